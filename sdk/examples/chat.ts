// Chat with an agent, streaming its reply as it is written.
//   AGENT_SERVICE_URL=http://127.0.0.1:3000 AGENT_SERVICE_API_KEY=sk_... node --import tsx sdk/examples/chat.ts helper "Hello!"
import { Client } from '@agent-service/sdk';

const [agent = 'helper', message = 'Hello!'] = process.argv.slice(2);
const client = new Client(); // baseUrl and apiKey from AGENT_SERVICE_URL and AGENT_SERVICE_API_KEY

const session = await client.sessions.create(agent);
const stream = client.sessions.send(session.id, message);
for await (const event of stream) {
  // Deltas as they come; a retried step (step.retry) restarts its message, which currentText handles.
  if (event.type === 'message.part.delta') process.stdout.write(event.delta);
  if (event.type === 'tool.call') process.stdout.write(`\n[tool ${event.toolName}]\n`);
  if (event.type === 'turn.failed') console.error(`\nThe turn failed: ${event.error}`);
}
process.stdout.write('\n');
console.log(`final: ${await stream.text()}`);
