// A session of an agent call that waits on someone holds every caller up its chain, and they say so:
// each caller gets `subagent.waiting` on the step that made the call; a waiting send to the first
// caller answers `waiting` at once with `waitingFor: {kind: 'agents'}` naming the session that waits
// (a grandchild included, with its parent), as GET /session/<id> does; answering that session (an
// approval, or a client's tool result) lets the chain finish. A question asked in a child session
// goes over the first caller's channels (where its person is), where a reply answers it, or over the
// child's own when the first caller has none.
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { messageText, type FakeRequest, type FakeScript } from '../helpers/fakes/fake-model.ts';
import { startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from '../helpers/fakes/webhook-receiver.ts';
import { randomUUID } from 'node:crypto';
import type { SessionEvent } from '../../contract/events.ts';
import { generateWebhookSecret, signWebhook } from '../../lib/webhook-signature.ts';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';

// lead → middle → asker: the asker runs at depth 2. Webhook channels post to the receivers on 127.0.0.1.
const test = agentTest({ AGENT_CALL_DEPTH_LIMIT: '2', OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });

/** The system prompt of a request: which agent the fake is answering. */
const systemOf = (request: FakeRequest) => messageText(request.body.messages.find((message) => message.role === 'system')) ?? '';
/** Whether the request follows tool results (the step after its calls). */
const afterTools = (request: FakeRequest) => request.body.messages.at(-1)?.role === 'tool';
/** The text of the last tool result the request carries. */
const lastResult = (request: FakeRequest) => messageText(request.body.messages.at(-1)) ?? '';

/** A role's two steps: its first makes `first`, the one after its tools answers `then(last result)`. */
const role =
  (name: string, first: FakeScript, then: (result: string) => string) =>
  (request: FakeRequest): FakeScript | undefined =>
    systemOf(request).includes(`ROLE ${name}`) ? (afterTools(request) ? { text: then(lastResult(request)) } : first) : undefined;

/** Answers each request by the first of `handlers` that knows it. */
function answerBy(...handlers: Array<(request: FakeRequest) => FakeScript | undefined>) {
  return (request: FakeRequest): FakeScript => {
    for (const handler of handlers) {
      const script = handler(request);
      if (script) return script;
    }
    throw new Error(`no script for a request to "${systemOf(request).slice(0, 60)}"`);
  };
}

const callAgent = (id: string, agent: string, message: string): FakeScript => ({
  toolCalls: [{ id, name: `agent_${agent}`, arguments: { message } }],
});

const ofType = <T extends SessionEvent['type']>(events: SessionEvent[], type: T) =>
  events.filter((event): event is Extract<SessionEvent, { type: T }> => event.type === type);

interface WaitingSession {
  sessionId: string;
  agent: string;
  parentSessionId: string;
  toolCallId: string;
  approvals: { approvalId: string; question: string; options: string[]; expiresAt: string }[];
  toolCalls: { toolCallId: string; toolName: string; input: unknown }[];
}
interface TurnAnswer {
  messageId: string;
  status: string;
  reply?: string;
  waitingFor?: { kind: string; sessions?: WaitingSession[] };
}

async function newSession(env: AgentEnv, agent: string): Promise<string> {
  return (await call<{ id: string }>(`${env.api.url}/agent/${agent}/session`, { headers: env.user.auth, json: {} })).body.id;
}

/** A waiting send (JSON, no ?async=1, no event stream), failing plainly when it is still held after 15 s. */
async function send(env: AgentEnv, sessionId: string, text: string) {
  let timer: NodeJS.Timeout | undefined;
  const held = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the waiting send did not answer within 15 s: nothing told it the turn waits')), 15_000);
  });
  try {
    return await Promise.race([
      call<TurnAnswer>(`${env.api.url}/session/${sessionId}`, { headers: env.user.auth, json: { parts: [{ type: 'text', text }] } }),
      held,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The child session the call `toolCallId` of `sessionId` opened (its `subagent.started`). */
async function childOf(env: AgentEnv, sessionId: string, toolCallId: string): Promise<string> {
  const events = await env.waitForEvents(sessionId, (all) => ofType(all, 'subagent.started').some((e) => e.toolCallId === toolCallId));
  return ofType(events, 'subagent.started').find((event) => event.toolCallId === toolCallId)!.childSessionId;
}

/** The text of the session's last assistant message, once its turn completed. */
async function finalReply(env: AgentEnv, sessionId: string): Promise<string> {
  const events = await env.waitForEvents(sessionId, (all) => ofType(all, 'turn.completed').length === 1);
  const last = ofType(events, 'message.completed').at(-1)!.message;
  return last.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

describe('sessions of agent calls that wait on someone', () => {
  test("a grandchild's question: the lead's waiting send answers waiting naming it; answered, the chain finishes", async ({ env }) => {
    const asker = await env.deploy({ instructions: 'ROLE asker' });
    const middle = await env.deploy({ instructions: 'ROLE middle', agents: [{ name: asker.name }] });
    const lead = await env.deploy({ instructions: 'ROLE lead', agents: [{ name: middle.name }] });
    const ask = { id: 'call_ask', name: 'ask_my_user', arguments: { question: 'Deploy to prod?', options: ['yes', 'no'] } };
    env.fake.setHandler(
      answerBy(
        role('asker', { toolCalls: [ask] }, (result) => `asker heard ${result}`),
        role('middle', callAgent('call_asker', asker.name, 'Ask them'), (result) => `middle relays ${result}`),
        role('lead', callAgent('call_middle', middle.name, 'Find out'), (result) => `lead says ${result}`),
      ),
    );
    const leadSession = await newSession(env, lead.name);

    // Answered as soon as the grandchild asks, not when the turn ends.
    const waiting = await send(env, leadSession, 'Shall we deploy?');
    expect(waiting.status, waiting.text).toBe(200);
    const middleSession = await childOf(env, leadSession, 'call_middle');
    const askerSession = await childOf(env, middleSession, 'call_asker');
    const [requested] = ofType(await env.events(askerSession), 'approval.requested');
    expect(requested).toBeDefined();
    const waitingFor = {
      kind: 'agents',
      sessions: [
        {
          sessionId: askerSession,
          agent: asker.name,
          parentSessionId: middleSession,
          toolCallId: 'call_asker',
          approvals: [{ approvalId: requested!.approvalId, question: 'Deploy to prod?', options: ['yes', 'no'] }],
          toolCalls: [],
        },
      ],
    };
    expect(waiting.body).toMatchObject({ status: 'waiting', waitingFor });
    expect(waiting.body.waitingFor!.sessions).toHaveLength(1);

    // The lead's session says the same, a grandchild included.
    const view = await call<{ status: string; waitingFor?: unknown }>(`${env.api.url}/session/${leadSession}`, { headers: env.user.auth });
    expect(view.body).toMatchObject({ status: 'running', waitingFor });

    // Each caller up the chain was told, on the step that made its call, naming its own child.
    const leadWaits = ofType(await env.events(leadSession), 'subagent.waiting');
    const leadStarted = ofType(await env.events(leadSession), 'subagent.started')[0]!;
    expect(leadWaits).toEqual([
      expect.objectContaining({
        messageId: leadStarted.messageId,
        toolCallId: 'call_middle',
        agent: middle.name,
        childSessionId: middleSession,
        waitingSessionId: askerSession,
        on: 'approval',
      }),
    ]);
    expect(ofType(await env.events(middleSession), 'subagent.waiting')).toEqual([
      expect.objectContaining({
        toolCallId: 'call_asker',
        agent: asker.name,
        childSessionId: askerSession,
        waitingSessionId: askerSession,
        on: 'approval',
      }),
    ]);

    const answered = await call(`${env.api.url}/approval/${requested!.approvalId}/answer`, {
      headers: env.user.auth,
      json: { choice: 'yes' },
    });
    expect(answered.status, answered.text).toBe(200);
    // The answer flows up: asker → middle → lead.
    const reply = await finalReply(env, leadSession);
    expect(reply).toMatch(/^lead says .*middle relays .*asker heard .*yes/);
  });

  test("a child's call of a custom tool the client runs: waiting on it, answered in the child, the lead completes", async ({ env }) => {
    const lookup = {
      id: 'lookup_order',
      description: 'Look up an order in the shop system',
      parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
    };
    const clerk = await env.deploy({ instructions: 'ROLE clerk', customTools: [lookup] });
    const lead = await env.deploy({ instructions: 'ROLE boss', agents: [{ name: clerk.name }] });
    env.fake.setHandler(
      answerBy(
        role('clerk', { toolCalls: [{ id: 'call_lookup', name: 'lookup_order', arguments: { orderId: 'A-17' } }] }, (r) => `clerk: ${r}`),
        role('boss', callAgent('call_clerk', clerk.name, 'Where is A-17?'), (result) => `boss: ${result}`),
      ),
    );
    const leadSession = await newSession(env, lead.name);
    const waiting = await send(env, leadSession, 'Where is my order?');
    expect(waiting.status, waiting.text).toBe(200);
    const clerkSession = await childOf(env, leadSession, 'call_clerk');
    expect(waiting.body).toMatchObject({
      status: 'waiting',
      waitingFor: {
        kind: 'agents',
        sessions: [
          {
            sessionId: clerkSession,
            agent: clerk.name,
            parentSessionId: leadSession,
            toolCallId: 'call_clerk',
            approvals: [],
            toolCalls: [{ toolCallId: 'call_lookup', toolName: 'lookup_order', input: { orderId: 'A-17' } }],
          },
        ],
      },
    });
    expect(ofType(await env.events(leadSession), 'subagent.waiting')).toEqual([
      expect.objectContaining({ toolCallId: 'call_clerk', childSessionId: clerkSession, waitingSessionId: clerkSession, on: 'tool' }),
    ]);

    const answered = await call(`${env.api.url}/session/${clerkSession}/tool-result`, {
      headers: env.user.auth,
      json: { toolCallId: 'call_lookup', output: { status: 'shipped' } },
    });
    expect(answered.status, answered.text).toBe(200);
    expect(await finalReply(env, leadSession)).toMatch(/^boss: .*clerk: .*shipped/);
  });

  describe('channels', () => {
    let leadHooks: WebhookReceiver;
    let askerHooks: WebhookReceiver;
    beforeAll(async () => {
      [leadHooks, askerHooks] = await Promise.all([startWebhookReceiver(), startWebhookReceiver()]);
    });
    afterAll(async () => {
      await Promise.all([leadHooks?.close(), askerHooks?.close()]);
    });

    /** The approval a webhook receiver got (it carries the approval's id). */
    async function received(hooks: WebhookReceiver, approvalId: string): Promise<ReceivedRequest | undefined> {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const found = hooks.requests.find((request) => request.body.includes(approvalId));
        if (found || Date.now() > deadline) return found;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }

    test("a child's question goes over the first caller's channel, naming the asking agent, and a reply there answers it; over its own when the caller has none", async ({
      env,
    }) => {
      const webhook = (hooks: WebhookReceiver) => [{ provider: 'webhook', config: { url: hooks.url } }];
      const asker = await env.deploy({ instructions: 'ROLE chan-asker', userChannels: webhook(askerHooks) });
      // The lead's channel takes replies, signed with the lead's secret: a reply answers the child's question.
      const secretName = `LEAD_HOOK_${randomUUID().replace(/-/g, '').slice(0, 10).toUpperCase()}`;
      const secret = generateWebhookSecret();
      const stored = await call(`${env.api.url}/secret/${secretName}`, { method: 'PUT', headers: env.user.auth, json: { value: secret } });
      expect(stored.status, stored.text).toBeLessThan(300);
      const lead = await env.deploy({
        instructions: 'ROLE chan-lead',
        agents: [{ name: asker.name }],
        secretGrants: [secretName],
        userChannels: [{ provider: 'webhook', answerVia: 'reply', config: { url: leadHooks.url, secret: `{{secrets.${secretName}}}` } }],
      });
      const bare = await env.deploy({ instructions: 'ROLE chan-bare', agents: [{ name: asker.name }] });
      const ask = { id: 'call_ask', name: 'ask_my_user', arguments: { question: 'Which colour?', options: ['red', 'blue'] } };
      env.fake.setHandler(
        answerBy(
          role('chan-asker', { toolCalls: [ask] }, (result) => `asker heard ${result}`),
          role('chan-lead', callAgent('call_asker', asker.name, 'Ask'), (result) => `lead: ${result}`),
          role('chan-bare', callAgent('call_asker', asker.name, 'Ask'), (result) => `bare: ${result}`),
        ),
      );

      /** Asks through `caller`; returns the approval and the asking child session, the question still open. */
      const askThrough = async (caller: string) => {
        const callerSession = await newSession(env, caller);
        const waiting = await send(env, callerSession, 'Go');
        expect(waiting.body.status, waiting.text).toBe('waiting');
        const [session] = waiting.body.waitingFor!.sessions!;
        return { callerSession, askerSession: session!.sessionId, approvalId: session!.approvals[0]!.approvalId };
      };
      const answer = (approvalId: string) =>
        call(`${env.api.url}/approval/${approvalId}/answer`, { headers: env.user.auth, json: { choice: 'blue' } });

      // The lead declares a channel: the asker's question goes over it, not over the asker's own.
      const viaLead = await askThrough(lead.name);
      const posted = await received(leadHooks, viaLead.approvalId);
      expect(posted, 'the question never reached the lead channel').toBeDefined();
      expect(JSON.parse(posted!.body)).toMatchObject({
        type: 'approval.requested',
        approval: { id: viaLead.approvalId, question: 'Which colour?', agentName: asker.name, sessionId: viaLead.askerSession },
      });
      // One dispatch, over the lead's channel (position 0 of its `userChannels`), recorded as sent.
      let dispatches: { position: number; provider: string; status: string }[] = [];
      for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 50))) {
        const approval = await call<{ dispatches: typeof dispatches }>(`${env.api.url}/approval/${viaLead.approvalId}`, {
          headers: env.user.auth,
        });
        dispatches = approval.body.dispatches;
        if (dispatches.every((dispatch) => dispatch.status !== 'pending')) break;
      }
      expect(dispatches).toEqual([expect.objectContaining({ position: 0, provider: 'webhook', status: 'sent' })]);
      // Answered by a reply on the lead's channel, authenticated with the lead's secret.
      const reply = JSON.stringify({ approvalId: viaLead.approvalId, choice: 'blue' });
      const replied = await call(`${env.api.url}/inbound/webhook`, {
        headers: {
          'content-type': 'application/json',
          ...signWebhook(secret, `msg_${randomUUID()}`, Math.floor(Date.now() / 1000), reply),
        },
        body: reply,
      });
      expect(replied.status, replied.text).toBe(200);
      expect(await finalReply(env, viaLead.callerSession)).toMatch(/^lead: .*blue/);
      expect(askerHooks.requests.filter((request) => request.body.includes(viaLead.approvalId))).toEqual([]);

      // A caller with no channel: the question goes over the asker's own.
      const viaBare = await askThrough(bare.name);
      const own = await received(askerHooks, viaBare.approvalId);
      expect(own, "the question never reached the asker's own channel").toBeDefined();
      expect(JSON.parse(own!.body)).toMatchObject({ approval: { id: viaBare.approvalId, agentName: asker.name } });
      expect((await answer(viaBare.approvalId)).status).toBe(200);
      expect(await finalReply(env, viaBare.callerSession)).toMatch(/^bare: .*blue/);
      expect(leadHooks.requests.filter((request) => request.body.includes(viaBare.approvalId))).toEqual([]);
    });
  });
});
