// A turn whose model calls ask_my_user: the shared first half of every approval test that goes
// through a real turn. The fake model answers the tool call, then (once resumed) says `reply`.
import { expect } from 'vitest';
import type { AgentEnv } from './agent-env.ts';
import { call } from '../client/request.ts';
import type { SessionEvent } from '../../../contract/events.ts';

export type ApprovalRequested = Extract<SessionEvent, { type: 'approval.requested' }>;

export async function askInTurn(
  env: AgentEnv,
  options: { bundle?: Record<string, unknown>; input: Record<string, unknown>; callId?: string; reply?: string },
): Promise<{ sessionId: string; requested: ApprovalRequested; callId: string }> {
  const callId = options.callId ?? 'call_ask';
  const sessionId = await env.newSession(options.bundle);
  env.fake.enqueue({ toolCalls: [{ id: callId, name: 'ask_my_user', arguments: options.input }] }, { text: options.reply ?? 'Done.' });
  const sent = await call(`${env.api.url}/session/${sessionId}?async=1`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text: 'Go' }] },
  });
  expect(sent.status).toBe(202);
  const events = await env.waitForEvents(sessionId, (all) => all.some((event) => event.type === 'approval.requested'));
  const requested = events.find((event) => event.type === 'approval.requested') as ApprovalRequested;
  return { sessionId, requested, callId };
}
