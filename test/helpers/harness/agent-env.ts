// Everything a turn needs, for tests: a fake model, a worker on its own task queue, an API that
// starts workflows on that queue, a user, and helpers to deploy an agent and open a session.
import { randomUUID } from 'node:crypto';
import { startFakeModel, type FakeModel } from '../fakes/fake-model.ts';
import { startTestWorker, type TestWorker } from './worker.ts';
import { startTestApi, type TestApi } from './api.ts';
import { createTestUser, type TestUser } from './users.ts';
import { call } from '../client/request.ts';
import type { SessionEvent } from '../../../contract/events.ts';

export interface AgentEnv {
  fake: FakeModel;
  worker: TestWorker;
  api: TestApi;
  user: TestUser;
  /** Settings shared by worker and API (task queue, fast retries, provider base URL). */
  env: Record<string, string>;
  deploy(bundle?: Record<string, unknown>): Promise<{ name: string; agentId: string }>;
  newSession(bundle?: Record<string, unknown>): Promise<string>;
  events(sessionId: string, after?: number): Promise<SessionEvent[]>;
  /** Polls the event log until `done` holds (or the timeout ends). */
  waitForEvents(sessionId: string, done: (events: SessionEvent[]) => boolean, timeoutMs?: number): Promise<SessionEvent[]>;
  /** Stops the worker (it finishes its running activities), runs `meanwhile` with no worker, starts a new one. */
  restartWorker(meanwhile?: () => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

/** The model deploy() gives an agent whose bundle names none: the Chat Completions fake's. */
export const FAKE_MODEL = { providerId: 'openai-compatible', modelId: 'fake-model' };

/**
 * `inProcessWorker: false` when the test runs its workers as separate processes (crash tests).
 * `model`: the model deploy() gives an agent whose bundle names none (another provider, whose fake
 * the test starts and names in `overrides`).
 */
export async function startAgentEnv(
  overrides: Record<string, string> = {},
  options: { inProcessWorker?: boolean; model?: { providerId: string; modelId: string } } = {},
): Promise<AgentEnv> {
  const fake = await startFakeModel();
  const env = {
    TASK_QUEUE: `test-${randomUUID()}`,
    OPENAI_COMPATIBLE_BASE_URL: fake.baseUrl,
    OPENAI_COMPATIBLE_API_KEY: 'test-key',
    MODEL_STEP_RETRY_INITIAL_MS: '100',
    MODEL_STEP_MAX_ATTEMPTS: '3',
    MODEL_STEP_HEARTBEAT_TIMEOUT_MS: '5000',
    SSE_HEARTBEAT_MS: '1000',
    ...overrides,
  };
  // The API first: the worker writes links to it into the messages it sends (PUBLIC_BASE_URL).
  const api = await startTestApi(env);
  (env as Record<string, string>).PUBLIC_BASE_URL ??= api.url;
  let worker: TestWorker | undefined = options.inProcessWorker === false ? undefined : await startTestWorker(env);
  const user = await createTestUser(api.db);

  const self: AgentEnv = {
    fake,
    get worker() {
      if (!worker) throw new Error('this environment has no in-process worker');
      return worker;
    },
    api,
    user,
    env,
    async deploy(bundle = {}) {
      const name = `agent-${randomUUID().slice(0, 8)}`;
      const response = await call<{ agentId: string; ok: boolean }>(`${api.url}/deploy`, {
        headers: user.auth,
        json: { name, model: options.model ?? FAKE_MODEL, ...bundle },
      });
      if (!response.body.ok) throw new Error(`deploy failed: ${response.text}`);
      return { name, agentId: response.body.agentId };
    },
    async newSession(bundle = {}) {
      const { name } = await self.deploy(bundle);
      const response = await call<{ id: string }>(`${api.url}/agent/${name}/session`, { headers: user.auth, json: {} });
      if (response.status !== 201) throw new Error(`session failed: ${response.text}`);
      return response.body.id;
    },
    async events(sessionId, after = 0) {
      const all: SessionEvent[] = [];
      let cursor: number | null = after;
      while (cursor !== null) {
        const page: { body: { events: SessionEvent[]; next: number | null } } = await call(
          `${api.url}/session/${sessionId}/events?after=${cursor}&limit=1000`,
          { headers: user.auth },
        );
        all.push(...page.body.events);
        cursor = page.body.next;
      }
      return all;
    },
    async waitForEvents(sessionId, done, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const events = await self.events(sessionId);
        if (done(events)) return events;
        if (Date.now() > deadline)
          throw new Error(`events did not reach the expected state:\n${events.map((event) => event.type).join('\n')}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async restartWorker(meanwhile) {
      await worker?.stop();
      await meanwhile?.();
      worker = await startTestWorker(env);
    },
    async close() {
      await api.close();
      await worker?.stop();
      await fake.close();
    },
  };
  return self;
}

/** The text a reader following the stream shows for a message: deltas, dropped at each step.retry. */
export function textFromEvents(events: SessionEvent[], messageId: string): string {
  let text = '';
  for (const event of events) {
    if (event.type === 'step.retry' && event.messageId === messageId) text = '';
    if (event.type === 'message.part.delta' && event.messageId === messageId) text += event.delta;
  }
  return text;
}
