// A response held open (an event stream, a waiting send, an approval's wait) must end when its client
// goes away. Its 'close' event says so, but only once: a client that hung up while the route was still
// reading (the session, its access, the send's take) has had its 'close' before anyone listened, and
// the response would then be held for good.
import type { Response } from 'express';

/** Calls `gone` when the client leaves, or at once if it already has; answers a function that stops listening. */
export function onClientGone(res: Response, gone: () => void): () => void {
  res.on('close', gone);
  if (res.closed) gone();
  return () => res.off('close', gone);
}
