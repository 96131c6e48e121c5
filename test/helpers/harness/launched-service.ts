// Driving a service `npm start` launched (launcher.ts) through its HTTP API, as a user of it would: the
// admin key it printed, a turn that asks its user on ask_my_user, the session's events, and the wait for
// every port to close once the launcher is stopped.
import { canConnect, waitFor } from '../../../dev/ports.ts';
import { call } from '../client/request.ts';
import type { SessionEvent } from '../../../contract/events.ts';
import type { FakeModel } from '../fakes/fake-model.ts';
import type { LauncherPorts } from './launcher.ts';

export interface LaunchedApi {
  base: string;
  auth: Record<string, string>;
}

/** The API of a launcher on `ports`, with the admin key its first start printed. */
export function launchedApi(ports: LauncherPorts, output: string): LaunchedApi {
  return { base: `http://127.0.0.1:${ports.api}`, auth: { authorization: `Bearer ${/ADMIN_API_KEY=(sk_[0-9a-z]+)/.exec(output)![1]}` } };
}

export async function eventsOf(api: LaunchedApi, sessionId: string): Promise<SessionEvent[]> {
  const page = await call<{ events: SessionEvent[] }>(`${api.base}/session/${sessionId}/events?after=0&limit=1000`, { headers: api.auth });
  return page.body?.events ?? [];
}

/** The session's events once one of `type` is among them. */
export async function waitForEvent(
  api: LaunchedApi,
  sessionId: string,
  type: SessionEvent['type'],
  timeoutMs: number,
): Promise<SessionEvent[]> {
  let events: SessionEvent[] = [];
  await waitFor(
    async () => {
      events = await eventsOf(api, sessionId).catch(() => []);
      return events.some((event) => event.type === type);
    },
    timeoutMs,
    `event ${type}`,
  );
  return events;
}

/**
 * Deploys an agent on the fake model, and sends its new session a message whose turn asks its user
 * `question` (ask_my_user) and, once answered, replies `reply`. Resolves once the approval is asked.
 */
export async function askedInTurn(
  api: LaunchedApi,
  fake: FakeModel,
  ask: { question: string; options: string[]; reply: string },
): Promise<{ sessionId: string; approvalId: string }> {
  const deployed = await call(`${api.base}/deploy`, {
    headers: api.auth,
    json: { name: 'careful', model: { providerId: 'openai-compatible', modelId: 'fake-model' } },
  });
  if (deployed.status !== 201) throw new Error(`deploy answered ${deployed.status}`);
  const session = await call<{ id: string }>(`${api.base}/agent/careful/session`, { headers: api.auth, json: {} });
  fake.enqueue(
    { toolCalls: [{ id: 'call_ask', name: 'ask_my_user', arguments: { question: ask.question, options: ask.options } }] },
    { text: ask.reply },
  );
  await call(`${api.base}/session/${session.body.id}?async=1`, { headers: api.auth, json: { parts: [{ type: 'text', text: 'Go on' }] } });
  const asked = await waitForEvent(api, session.body.id, 'approval.requested', 60_000);
  const requested = asked.find((event) => event.type === 'approval.requested') as { approvalId: string };
  return { sessionId: session.body.id, approvalId: requested.approvalId };
}

/** Resolves once nothing listens on any of the launcher's ports. */
export async function portsClosed(ports: LauncherPorts): Promise<void> {
  await waitFor(
    async () => (await Promise.all(Object.values(ports).map((port) => canConnect(port)))).every((open) => !open),
    60_000,
    'ports to close',
  );
}
