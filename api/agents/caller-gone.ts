// A signal that fires when the HTTP caller hangs up before its answer is written: work done only for
// that answer (listing an MCP server's tools) is given up rather than run to its deadline for nobody.
import type { Response } from 'express';

export function callerGone(res: Response): AbortSignal {
  const gone = new AbortController();
  // 'close' comes once per response, after it is written or when the connection drops before that.
  res.once('close', () => {
    if (!res.writableFinished) gone.abort(new Error('the caller hung up'));
  });
  return gone.signal;
}
