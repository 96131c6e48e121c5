// Each script of sdk/examples runs against the real service (fake model), as a user would run it:
// a separate node process importing the built @agent-service/sdk.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import { Client } from '../../sdk/src/index.ts';

const test = agentTest({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });
const examples = path.join(import.meta.dirname, '../../sdk/examples');

interface Running {
  child: ChildProcess;
  lines: string[];
  /** Resolves with the first line (seen or to come) that matches. */
  line(pattern: RegExp): Promise<string>;
  /** Resolves with every line once the script exits 0. */
  exited(): Promise<string[]>;
}

function runExample(env: AgentEnv, script: string, args: string[], extraEnv: Record<string, string> = {}): Running {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(examples, script), ...args], {
    env: { PATH: process.env.PATH, AGENT_SERVICE_URL: env.api.url, AGENT_SERVICE_API_KEY: env.user.apiKey, ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiters: Array<{ pattern: RegExp; resolve: (line: string) => void }> = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line);
    for (const waiter of waiters.filter((candidate) => candidate.pattern.test(line))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(line);
    }
  });
  const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return {
    child,
    lines,
    line: (pattern) =>
      new Promise((resolve, reject) => {
        const found = lines.find((line) => pattern.test(line));
        if (found) return resolve(found);
        waiters.push({ pattern, resolve });
        void exit.then((code) =>
          reject(new Error(`${script} exited (${code}) before printing ${pattern}:\n${lines.join('\n')}\n${stderr}`)),
        );
      }),
    exited: async () => {
      const code = await exit;
      if (code !== 0) throw new Error(`${script} exited with ${code}:\n${lines.join('\n')}\n${stderr}`);
      return lines;
    },
  };
}

describe('sdk/examples', () => {
  test('chat.ts streams the reply', async ({ env }) => {
    const { name } = await env.deploy();
    env.fake.enqueue({ text: ['Hello', ' from', ' the agent'] });
    const lines = await runExample(env, 'chat.ts', [name, 'Hi!']).exited();
    expect(lines).toEqual(['Hello from the agent', 'final: Hello from the agent']);
  });

  test('client-tool.ts answers the custom tool from the script', async ({ env }) => {
    const { name } = await env.deploy({
      customTools: [
        {
          id: 'lookup_order',
          description: 'Look up an order',
          parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
        },
      ],
    });
    env.fake.enqueue({ toolCalls: [{ name: 'lookup_order', arguments: { orderId: 'A-17' } }] }, { text: 'It shipped on Monday.' });
    const lines = await runExample(env, 'client-tool.ts', [name, 'Where is A-17?']).exited();
    expect(lines).toEqual(['lookup_order(A-17)', 'final: It shipped on Monday.']);
    const toolResult = env.fake.requests.at(-1)!.body.messages.find((message) => message.role === 'tool');
    expect(JSON.stringify(toolResult?.content)).toContain('shipped on Monday');
  });

  test('ask-human.ts waits for the answer', async ({ env }) => {
    const running = runExample(env, 'ask-human.ts', ['Deploy now?']);
    const id = (await running.line(/^asked apr_/)).slice('asked '.length);
    await new Client({ baseUrl: env.api.url, apiKey: env.user.apiKey }).approvals.answer(id, { choice: 'yes', note: 'go ahead' });
    const lines = await running.exited();
    expect(lines.at(-1)).toBe('answered: yes (go ahead)');
    expect(lines.filter((line) => /^ {2}(yes|no): /.test(line))).toHaveLength(2);
  });

  test('webhook-receiver.ts verifies a real delivery and refuses a forged one', async ({ env }) => {
    const client = new Client({ baseUrl: env.api.url, apiKey: env.user.apiKey });
    const probe = await client.webhooks.create({ url: 'http://127.0.0.1:9/unused', events: ['session.completed'] });
    await client.webhooks.delete(probe.id);
    // The receiver needs its secret before the subscription exists: start it, then subscribe it.
    const pending = runExample(env, 'webhook-receiver.ts', [], { PORT: '0', WEBHOOK_SECRET: probe.secret });
    try {
      const url = (await pending.line(/^listening on /)).slice('listening on '.length);
      const forged = await fetch(url, {
        method: 'POST',
        headers: { 'webhook-id': 'dlv_x', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' },
        body: '{}',
      });
      expect(forged.status).toBe(400);
      expect(await pending.line(/^refused: /)).toBe('refused: WebhookSignatureMismatchError');
      pending.child.kill();
      await pending.exited().catch(() => {});

      const webhook = await client.webhooks.create({ url: `${url}/hooks`, events: ['session.completed'] });
      const receiver = runExample(env, 'webhook-receiver.ts', [], { PORT: new URL(url).port, WEBHOOK_SECRET: webhook.secret });
      await receiver.line(/^listening on /);
      const sessionId = await env.newSession();
      await client.sessions.sendAndWait(sessionId, 'hello');
      expect(await receiver.line(/^verified /)).toMatch(new RegExp(`^verified session.completed dlv_\\S+ session ${sessionId}$`));
      receiver.child.kill();
    } finally {
      pending.child.kill();
    }
  });
});
