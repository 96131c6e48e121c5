// Ask a person from a script and wait for the answer, however long it takes (long-polling that
// survives dropped connections). With an agent name, that agent's channels (Slack, Telegram, e-mail,
// a webhook) carry the question.
//   node --import tsx sdk/examples/ask-human.ts "Deploy to production?"
import { Client } from '@agent-service/sdk';

const [question = 'Deploy to production?', agent] = process.argv.slice(2);
const client = new Client();

const approval = await client.askHuman({ question, options: ['yes', 'no'], expiresInMs: 60 * 60_000, ...(agent ? { agent } : {}) });
console.log(`asked ${approval.id}`);
for (const link of approval.approval.links?.options ?? []) console.log(`  ${link.option}: ${link.url}`);

const outcome = await approval.waitForAnswer();
if (outcome.status === 'answered') console.log(`answered: ${outcome.choice}${outcome.note ? ` (${outcome.note})` : ''}`);
else console.log('expired: nobody answered in time');
