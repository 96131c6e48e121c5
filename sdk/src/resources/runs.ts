import type { RunBody, RunStarted, RunView } from '../contract.ts';
import { path, type RequestOptions } from '../transport.ts';
import { Resource, newIdempotencyKey } from './resource.ts';

/** Runs of an agent's workflow graphs (the bundle's `workflows`). */
export class Runs extends Resource {
  /** Starts a run in a fresh session; a retry of this call never starts two (Idempotency-Key). */
  start(agentName: string, workflow: string, body: RunBody = {}, options?: RequestOptions): Promise<RunStarted> {
    return this.transport.json(
      {
        method: 'POST',
        path: path`/agent/${agentName}/workflow/${workflow}`,
        json: body,
        idempotent: true,
        idempotencyKey: newIdempotencyKey(),
      },
      options,
    );
  }

  retrieve(runId: string, options?: RequestOptions): Promise<RunView> {
    return this.transport.json({ method: 'GET', path: path`/run/${runId}`, idempotent: true }, options);
  }
}
