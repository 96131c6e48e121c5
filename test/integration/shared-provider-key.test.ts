// What one tenant's model calls may do to another's, or tell them, when tenants share the operator's
// provider key. A context window is learned only from the provider's own words (never from a user's
// input that an error quotes) and only for the credentials whose provider said it. The prompt cache's
// counts, which would tell a tenant whether someone else sent the same long prefix, are shown only to a
// user whose cache is their own (their own base URL).
import { describe, expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { createTestUser, type TestUser } from '../helpers/harness/users.ts';
import { sessionAs } from '../helpers/harness/sessions-as.ts';
import { call } from '../helpers/client/request.ts';
import { contextLengthExceeded, lastUserText } from '../helpers/fakes/fake-model.ts';
import { filler, isSummarising } from '../helpers/fakes/compaction-requests.ts';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import type { MessageView, SessionEvent, TokenUsage } from '../../contract/events.ts';

// A user's own base URL reaches the fake on loopback only where the outbound guard allows it.
const test = agentTest({ OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32' });

interface Reply {
  status: string;
  reply?: string;
}

async function send(env: AgentEnv, who: TestUser, sessionId: string, text: string): Promise<Reply> {
  const response = await call<Reply>(`${env.api.url}/session/${sessionId}`, {
    headers: who.auth,
    json: { parts: [{ type: 'text', text }] },
  });
  expect(response.status, response.text).toBe(200);
  return response.body;
}

async function grant(env: AgentEnv, who: TestUser, secrets: Record<string, string>): Promise<void> {
  for (const [key, value] of Object.entries(secrets)) {
    expect((await call(`${env.api.url}/secret/${key}`, { method: 'PUT', headers: who.auth, json: { value } })).status).toBe(201);
  }
}

async function eventsOf(env: AgentEnv, who: TestUser, sessionId: string): Promise<SessionEvent[]> {
  const page = await call<{ events: SessionEvent[] }>(`${env.api.url}/session/${sessionId}/events?after=0&limit=1000`, {
    headers: who.auth,
  });
  return page.body.events;
}

/**
 * Four long messages (about 300 tokens each): a conversation past 80% of a 1,000-token window from the
 * third on, and far within the default window (128,000) that an openai-compatible model starts with.
 */
async function longConversation(env: AgentEnv, who: TestUser, sessionId: string): Promise<SessionEvent[]> {
  for (let index = 1; index <= 4; index++) {
    expect((await send(env, who, sessionId, `question-${index} ${filler(`q${index}`)}`)).status).toBe('completed');
  }
  return eventsOf(env, who, sessionId);
}

const compactions = (events: SessionEvent[]) =>
  events.filter((event): event is Extract<SessionEvent, { type: 'session.compacted' }> => event.type === 'session.compacted');
const model = (modelId: string) => ({ model: { providerId: 'openai-compatible', modelId } });

describe('a context window learned from a provider', () => {
  test("is not read from a user's words that the provider's error quotes", async ({ env }) => {
    const { user } = env;
    env.fake.reset();
    let quoted = 0;
    env.fake.setHandler((request) => {
      const text = lastUserText(request) ?? '';
      // A refusal of another kind that echoes the input back, as moderation and validation errors do.
      if (request.body.model === 'quoting-model' && text.includes('maximum context length') && quoted === 0) {
        quoted++;
        const message = `Invalid 'messages[0].content': this content could not be processed: "${text}"`;
        return { status: 400, errorBody: { error: { message, type: 'invalid_request_error', param: 'messages', code: null } } };
      }
      return { text: isSummarising(request) ? 'SUMMARY' : 'ok' };
    });
    const author = await createTestUser(env.api.db);
    const authored = await sessionAs(env, author, model('quoting-model'));
    await send(env, author, authored, "Say it back: This model's maximum context length is 1000 tokens.");
    expect(quoted).toBe(1);

    // Another tenant's long conversation on the same model and the operator's key is not compacted.
    const sessionId = await sessionAs(env, user, model('quoting-model'));
    const events = await longConversation(env, user, sessionId);
    expect(compactions(events)).toEqual([]);
    expect(env.fake.requests.filter(isSummarising)).toEqual([]);
  });

  test("is believed for the credentials that heard it, and not for another's", async ({ env }) => {
    const { user } = env;
    env.fake.reset();
    let refused = 0;
    env.fake.setHandler((request) => {
      if (isSummarising(request)) return { text: 'SUMMARY of the earlier questions.' };
      // The model behind the user's own key has a small window, and its first answer says so, in OpenAI's words.
      if (request.headers.authorization === 'Bearer owner-own-key' && refused === 0) {
        refused++;
        return contextLengthExceeded(5_000, 1_000);
      }
      return { text: 'ok' };
    });
    const owner = await createTestUser(env.api.db);
    await grant(env, owner, { OPENAI_COMPATIBLE_API_KEY: 'owner-own-key' });
    const owned = await sessionAs(env, owner, { ...model('window-model'), secretGrants: ['OPENAI_COMPATIBLE_API_KEY'] });
    expect((await send(env, owner, owned, 'hello')).status).toBe('completed');
    expect(refused).toBe(1);

    // The operator's key: the window the owner's key was told is not believed for it.
    const sessionId = await sessionAs(env, user, model('window-model'));
    expect(compactions(await longConversation(env, user, sessionId))).toEqual([]);

    // The owner's own key: it is, and their conversation compacts before it is refused again.
    const ownEvents = await longConversation(env, owner, owned);
    expect(compactions(ownEvents).map((event) => event.reason)).toContain('threshold');
  });
});

describe("the prompt cache's counts", () => {
  /** The usage a turn's reply shows its user: in its message.completed event, in GET /session/<id>, and the session's totals. */
  async function cachedTurn(env: AgentEnv, who: TestUser, sessionId: string) {
    expect((await send(env, who, sessionId, 'Tell me about caching.')).status).toBe('completed');
    const events = await eventsOf(env, who, sessionId);
    const completed = events.findLast(
      (event): event is Extract<SessionEvent, { type: 'message.completed' }> =>
        event.type === 'message.completed' && event.message.role === 'assistant',
    )!;
    const turn = events.findLast((event): event is Extract<SessionEvent, { type: 'turn.completed' }> => event.type === 'turn.completed')!;
    const session = await call<{ usage: TokenUsage; messages: MessageView[] }>(`${env.api.url}/session/${sessionId}`, {
      headers: who.auth,
    });
    const reply = session.body.messages.findLast((message) => message.role === 'assistant')!;
    return { event: completed.message.usage, turn: turn.usage, message: reply.usage, session: session.body.usage };
  }

  test("are left out behind the operator's key, and shown with the user's own base URL", async ({ env }) => {
    const { user } = env;
    env.fake.reset();
    env.fake.setHandler(() => ({ text: 'Cached.', usage: { promptTokens: 1_500, completionTokens: 3, cacheReadTokens: 1_024 } }));

    // The operator's key: the input tokens are there, what the cache served is not.
    const shared = await cachedTurn(env, user, await sessionAs(env, user, model('cache-model')));
    for (const usage of [shared.event, shared.turn, shared.message]) {
      expect(usage).toMatchObject({ inputTokens: 1_500, outputTokens: 3 });
      expect(usage).not.toHaveProperty('cacheReadTokens');
      expect(usage).not.toHaveProperty('cacheWriteTokens');
    }
    expect(shared.session.cacheReadTokens ?? 0).toBe(0);

    // A user's own key sent to the operator's base URL still reads the cache the operator's server keeps for all.
    const keyOnly = await createTestUser(env.api.db);
    await grant(env, keyOnly, { OPENAI_COMPATIBLE_API_KEY: 'key-only' });
    const viaOperator = await cachedTurn(
      env,
      keyOnly,
      await sessionAs(env, keyOnly, { ...model('cache-model'), secretGrants: ['OPENAI_COMPATIBLE_API_KEY'] }),
    );
    expect(viaOperator.message).not.toHaveProperty('cacheReadTokens');

    // The user's own base URL and key: the cache is theirs, and so are its counts.
    const own = await createTestUser(env.api.db);
    await grant(env, own, { OPENAI_COMPATIBLE_BASE_URL: env.fake.baseUrl, OPENAI_COMPATIBLE_API_KEY: 'their-own' });
    const theirs = await cachedTurn(
      env,
      own,
      await sessionAs(env, own, { ...model('cache-model'), secretGrants: ['OPENAI_COMPATIBLE_BASE_URL', 'OPENAI_COMPATIBLE_API_KEY'] }),
    );
    for (const usage of [theirs.event, theirs.turn, theirs.message])
      expect(usage).toMatchObject({ inputTokens: 1_500, cacheReadTokens: 1_024 });
    expect(theirs.session.cacheReadTokens).toBe(1_024);
  });
});
