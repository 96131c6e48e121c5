// Hands a request to an Express router a library built for its own path (the MCP SDK's OAuth endpoints,
// the A2A SDK's JSON-RPC endpoint), from inside a contract route, whose auth, limits and checks ran first.
// Settles when the router has answered (or the client went away); a router that passes the request on
// answers 404, as no route matched.
import type { Request, RequestHandler, Response } from 'express';
import { NotFoundError } from '../lib/workflow-safe/errors.ts';

export function runSubRouter(handler: RequestHandler, req: Request, res: Response): Promise<undefined> {
  return new Promise((resolve, reject) => {
    res.once('finish', () => resolve(undefined));
    res.once('close', () => resolve(undefined));
    void handler(req, res, (error?: unknown) =>
      error
        ? reject(error instanceof Error ? error : new Error(String(error)))
        : reject(new NotFoundError(`No ${req.method} ${req.path} here`)),
    );
  });
}
