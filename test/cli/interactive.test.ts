// The interactive CLI in a real terminal (tmux): the hidden key prompt of `login --key`, and `chat`
// with a streamed reply, Ctrl-C aborting a turn, a question answered inline, a client tool shown as
// waiting, and Ctrl-C twice leaving.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { lastUserText, type FakeRequest } from '../helpers/fakes/fake-model.ts';
import { call } from '../helpers/client/request.ts';
import { CLI, cliEnv, ensureBuilt, loginWith, newConfigDir } from './run-cli.ts';
import { Terminal } from './tmux.ts';

const test = agentTest();
const terminals: Terminal[] = [];

beforeAll(() => ensureBuilt());
afterEach(() => {
  for (const terminal of terminals.splice(0)) terminal.close();
});

function open(args: string[], configDir: string, options: { colours?: boolean; pipe?: string } = {}): Terminal {
  const quoted = [process.execPath, CLI, ...args].map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' ');
  const env = cliEnv(configDir);
  if (options.colours) delete env.NO_COLOR;
  const terminal = Terminal.start(options.pipe ? `${quoted} ${options.pipe}` : quoted, env, configDir);
  terminals.push(terminal);
  return terminal;
}

/** An SGR colour code, as a terminal receives it. */
const COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`);

describe('colours', () => {
  test('on a terminal, unless NO_COLOR is set or the output is piped', async () => {
    const configDir = newConfigDir();
    fs.writeFileSync(path.join(configDir, 'service.jsonc'), '{ "name": "x", "model": { "providerId": "nope", "modelId": "m" } }\n');
    const deploy = ['deploy', '--dry-run'];
    const coloured = open(deploy, configDir, { colours: true });
    await coloured.waitFor(/service\.jsonc:1:/);
    expect(coloured.screen({ escapes: true })).toMatch(COLOUR);
    for (const plain of [open(deploy, configDir), open(deploy, configDir, { colours: true, pipe: '2>&1 | cat' })]) {
      await plain.waitFor(/service\.jsonc:1:/);
      expect(plain.screen({ escapes: true })).not.toMatch(COLOUR);
    }
  });
});

describe('login --key at a hidden prompt', () => {
  test('the key typed is never shown, and is kept in the profile', async ({ env }) => {
    const configDir = newConfigDir();
    const terminal = open(['login', '--key', '--url', env.api.url], configDir);
    await terminal.waitFor(/API key: /);
    terminal.type(env.user.apiKey);
    terminal.press('Enter');
    const screen = await terminal.waitFor(/\[exit 0\]/);
    expect(screen).toContain('Logged in to');
    expect(screen).not.toContain(env.user.apiKey);
    expect(screen).not.toContain(env.user.apiKey.slice(3, 12));
    const config = JSON.parse(fs.readFileSync(path.join(configDir, 'config.json'), 'utf8')) as { profiles: { default: { key: string } } };
    expect(config.profiles.default.key).toBe(env.user.apiKey);
  });
});

describe('chat', () => {
  test('streams replies, Ctrl-C aborts a turn, questions are answered inline, client tools wait, Ctrl-C twice leaves', async ({ env }) => {
    const configDir = newConfigDir();
    await loginWith(configDir, env.api.url, env.user.apiKey);
    const { name } = await env.deploy({
      customTools: [
        {
          id: 'lookup_order',
          description: 'Look up an order',
          parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
        },
      ],
    });
    env.fake.setHandler((request: FakeRequest) => {
      const said = lastUserText(request) ?? '';
      const answered = request.body.messages.at(-1)?.role === 'tool';
      if (said.includes('story')) return { text: 'Once upon a time ', endless: true, chunkDelayMs: 50 };
      if (said.includes('ask')) {
        return answered
          ? { text: 'Approved, going ahead.' }
          : { toolCalls: [{ name: 'ask_my_user', arguments: { question: 'Proceed with the plan?', options: ['yes', 'no'] } }] };
      }
      if (said.includes('order')) {
        return answered ? { text: 'Order A-17 has shipped.' } : { toolCalls: [{ name: 'lookup_order', arguments: { orderId: 'A-17' } }] };
      }
      return { text: 'Hi there, human.' };
    });

    const terminal = open(['chat', name], configDir);
    const opening = await terminal.waitFor(/Chatting with .+ in (ses_\S+)\./);
    const sessionId = /in (ses_[^.\s]+)\./.exec(opening)![1]!;
    // The prompt comes back once a turn has ended; type only then, as a person would.
    let prompts = 1;
    const prompted = () => terminal.waitFor(/› /, { count: prompts++ });

    await prompted();
    terminal.type('hello');
    terminal.press('Enter');
    await terminal.waitFor(/Hi there, human\./);

    await prompted();
    terminal.type('tell me a story');
    terminal.press('Enter');
    await terminal.waitFor(/Once upon a time Once upon a time/);
    terminal.press('C-c');
    await terminal.waitFor(/aborted/);
    const events = await env.waitForEvents(sessionId, (all) => all.some((event) => event.type === 'turn.aborted'));
    expect(events.filter((event) => event.type === 'turn.aborted')).toHaveLength(1);

    await prompted();
    terminal.type('ask me first');
    terminal.press('Enter');
    await terminal.waitFor(/\? Proceed with the plan\? \[yes\/no\]/);
    terminal.type('yes');
    terminal.press('Enter');
    await terminal.waitFor(/Approved, going ahead\./);

    await prompted();
    terminal.type('where is my order?');
    terminal.press('Enter');
    await terminal.waitFor(/waiting for your tool lookup_order\(\{"orderId":"A-17"\}\)/);
    const session = await call<{ waitingFor: { toolCalls: Array<{ toolCallId: string }> } }>(`${env.api.url}/session/${sessionId}`, {
      headers: env.user.auth,
    });
    const toolCallId = session.body.waitingFor.toolCalls[0]!.toolCallId;
    const answer = await call(`${env.api.url}/session/${sessionId}/tool-result`, {
      headers: env.user.auth,
      json: { toolCallId, output: { status: 'shipped' } },
    });
    expect(answer.status).toBe(200);
    await terminal.waitFor(/Order A-17 has shipped\./);

    await prompted();
    terminal.press('C-c');
    await terminal.waitFor(/Ctrl-C again, or Ctrl-D, leaves/);
    terminal.press('C-c');
    await terminal.waitFor(/\[exit 130\]/);
  });
});
