// An approval's messages on its channels, as GET /approval/<id> lists them once they are settled. A test that
// replies to a channel message waits for this first: the provider's reference to the message is stored as
// the send returns, and a reply that comes before it (no person is that quick) is about no question the
// service knows.
import { call } from './request.ts';

export interface DispatchView {
  position: number;
  provider: string;
  answerVia: string;
  status: string;
  attempts: number;
  error: string | null;
}

/** Polls the approval until it has dispatches and none is still pending; returns them. */
export async function settledDispatches(
  api: { url: string },
  headers: Record<string, string>,
  approvalId: string,
  timeoutMs = 10_000,
): Promise<DispatchView[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await call<{ dispatches: DispatchView[] }>(`${api.url}/approval/${approvalId}`, { headers });
    if (body.dispatches.length > 0 && body.dispatches.every((dispatch) => dispatch.status !== 'pending')) return body.dispatches;
    if (Date.now() > deadline) throw new Error(`the dispatches of ${approvalId} are still pending: ${JSON.stringify(body.dispatches)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
