import type {
  AgentDetail,
  AgentList,
  Budget,
  Bundle,
  CommandBody,
  CommandReply,
  Deployed,
  LiveChangeView,
  Revision,
  RevisionList,
  TrafficView,
  TurnAccepted,
} from '../contract.ts';
import { path, type RequestOptions } from '../transport.ts';
import type { TurnStream } from '../turn-stream.ts';
import { Resource, newIdempotencyKey } from './resource.ts';
import { turnStreamOf, type SendOptions } from './sessions.ts';

/**
 * A bundle as written for a deploy: `name` and `model`, the rest optional (the service applies the
 * defaults; `Bundle` is the validated form it reads back).
 */
export type BundleInput = Pick<Bundle, 'name' | 'model'> & Partial<Omit<Bundle, 'name' | 'model'>> & { $schema?: string };

/** A command's message recorded (`runCommandAsync`): follow its turn with `client.events(sessionId)`. */
export type CommandAccepted = TurnAccepted & { sessionId: string };

export class Agents extends Resource {
  /**
   * Deploys a bundle: an object, or JSONC text as written in a `service.jsonc` (comments and trailing
   * commas allowed). A new name is revision 1, an existing one its next revision. An invalid bundle
   * throws BadRequestError with every fault in `errors` (JSON pointers into the bundle). With
   * `stage: true` the revision is stored but not live: `promote` (or `setTraffic`) sends sessions to it.
   */
  deploy(bundle: BundleInput | string, options: RequestOptions & { stage?: boolean } = {}): Promise<Deployed> {
    const { stage, ...request } = options;
    const call = typeof bundle === 'string' ? { body: bundle, contentType: 'application/jsonc' } : { json: bundle };
    return this.transport.json(
      { method: 'POST', path: '/deploy', ...(stage ? { query: { stage: '1' } } : {}), ...call, idempotent: false },
      request,
    );
  }

  /**
   * Makes `revision` live: new sessions start on it and traffic shares end (a no-op for the live one).
   * With `requireEval`, only if a completed eval run of the revision against that stored set passed at
   * least `minScore` of its cases (default 1); otherwise ConflictError, naming the best run.
   */
  promote(
    name: string,
    revision: number,
    options: RequestOptions & { requireEval?: { set: string; minScore?: number } } = {},
  ): Promise<LiveChangeView> {
    const { requireEval, ...request } = options;
    return this.transport.json(
      { method: 'POST', path: path`/agent/${name}/promote`, json: { revision, ...(requireEval ? { requireEval } : {}) }, idempotent: true },
      request,
    );
  }

  /** Makes the revision that was live before the live one live again. */
  rollback(name: string, options?: RequestOptions): Promise<LiveChangeView> {
    return this.transport.json({ method: 'POST', path: path`/agent/${name}/rollback`, idempotent: false }, options);
  }

  /** Sends these percents of new sessions to revisions other than the live one (`{}` ends a canary). */
  setTraffic(name: string, shares: Record<string, number>, options?: RequestOptions): Promise<TrafficView> {
    return this.transport.json({ method: 'POST', path: path`/agent/${name}/traffic`, json: shares, idempotent: true }, options);
  }

  list(options?: RequestOptions): Promise<AgentList> {
    return this.transport.json({ method: 'GET', path: '/agent', idempotent: true }, options);
  }

  /** The agent's current revision: its bundle, triggers and schedules. */
  retrieve(name: string, options?: RequestOptions): Promise<AgentDetail> {
    return this.transport.json({ method: 'GET', path: path`/agent/${name}`, idempotent: true }, options);
  }

  revisions(name: string, options?: RequestOptions): Promise<RevisionList> {
    return this.transport.json({ method: 'GET', path: path`/agent/${name}/revisions`, idempotent: true }, options);
  }

  revision(name: string, revision: number, options?: RequestOptions): Promise<Revision> {
    return this.transport.json({ method: 'GET', path: path`/agent/${name}/revisions/${revision}`, idempotent: true }, options);
  }

  /**
   * Sets the agent's spend budget in USD per UTC calendar month (null removes it): once spent, its
   * turns fail before calling the model until it is raised or the month turns.
   */
  setBudget(name: string, monthlyUsd: number | null, options?: RequestOptions): Promise<Budget> {
    return this.transport.json({ method: 'PUT', path: path`/agent/${name}/budget`, json: { monthlyUsd }, idempotent: true }, options);
  }

  /** Deletes the agent, its schedules and its memory; its sessions answer 410 to new sends. */
  delete(name: string, options?: RequestOptions): Promise<void> {
    return this.transport.json({ method: 'DELETE', path: path`/agent/${name}`, idempotent: true }, options);
  }

  /**
   * Runs one of the agent's custom commands (the bundle's `commands`): the server resolves its
   * template with `args` and `flags` and sends it like a message, into `sessionId` or a new session,
   * and answers once the turn ends (or waits on someone) with the reply and the `sessionId`.
   * `runCommandStream` and `runCommandAsync` are its other forms, as `sessions.send` and `sendAsync`.
   */
  runCommand(name: string, command: string, body: CommandBody = {}, options: SendOptions = {}): Promise<CommandReply> {
    return this.transport.json(
      {
        method: 'POST',
        path: path`/agent/${name}/command/${command}`,
        query: { ifBusy: options.ifBusy },
        json: body,
        idempotent: true,
        idempotencyKey: newIdempotencyKey(),
      },
      { timeoutMs: 10 * 60_000, ...options },
    );
  }

  /**
   * Runs a custom command and streams its turn: the TurnStream a send gives (resuming by itself when
   * the connection breaks); `(await stream.ready).sessionId` names the session it runs in, a new one
   * unless `sessionId` was given. A retry of the request carries the same Idempotency-Key.
   */
  runCommandStream(name: string, command: string, body: CommandBody = {}, options: SendOptions = {}): TurnStream {
    const opened = this.transport.raw(
      {
        method: 'POST',
        path: path`/agent/${name}/command/${command}`,
        query: { ifBusy: options.ifBusy },
        json: body,
        accept: 'text/event-stream',
        idempotent: true,
        idempotencyKey: newIdempotencyKey(),
      },
      options,
    );
    // The session comes from the answer (x-session-id): a subtask runs in a new one even when `sessionId` is given.
    return turnStreamOf(this.transport, opened, options);
  }

  /** Runs a custom command without waiting: its message id and the session it went to (202). */
  runCommandAsync(name: string, command: string, body: CommandBody = {}, options: SendOptions = {}): Promise<CommandAccepted> {
    return this.transport.json(
      {
        method: 'POST',
        path: path`/agent/${name}/command/${command}`,
        query: { async: 1, ifBusy: options.ifBusy },
        json: body,
        idempotent: true,
        idempotencyKey: newIdempotencyKey(),
      },
      options,
    );
  }
}
