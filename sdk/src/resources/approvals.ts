import type {
  Answered,
  ApprovalPage,
  ApprovalView,
  CreateApprovalBody,
  DelegateBody,
  ListApprovalsQuery,
  VoteCounted,
} from '../contract.ts';
import { APIConnectionError, APIError, APITimeoutError, APIUserAbortError } from '../errors.ts';
import { PagedList } from '../pagination.ts';
import { isRetryableStatus, retryDelayMs, sleep } from '../retry.ts';
import { path, type RequestOptions, type Transport } from '../transport.ts';
import { Resource, newIdempotencyKey } from './resource.ts';

/** How a question ended. */
export type ApprovalOutcome = { status: 'answered'; choice: string; note: string | null } | { status: 'expired' };

/** One long-poll's wait: below the server's APPROVAL_MAX_WAIT_SECONDS (60) and most proxies' idle timeouts. */
const POLL_SECONDS = 25;

export interface WaitOptions {
  signal?: AbortSignal;
  /** Give up (APITimeoutError) after this long; by default wait until the approval is answered or expires. */
  timeoutMs?: number;
}

export class Approvals extends Resource {
  /**
   * Asks a question (what `client.askHuman` calls). With `agent` its channels carry it; with
   * `sessionId` its events go into that session. A retry never asks twice (Idempotency-Key).
   */
  create(body: CreateApprovalBody, options?: RequestOptions): Promise<ApprovalView> {
    return this.transport.json(
      { method: 'POST', path: '/approval', json: body, idempotent: true, idempotencyKey: newIdempotencyKey() },
      options,
    );
  }

  /** Approvals of the caller, newest first; `for await` pages through all. */
  list(query: Omit<ListApprovalsQuery, 'before'> & { before?: string } = {}, options: RequestOptions = {}): PagedList<ApprovalView> {
    return new PagedList(
      async (before, pageOptions) => {
        const page = await this.transport.json<ApprovalPage>(
          { method: 'GET', path: '/approval', query: { ...query, before }, idempotent: true },
          pageOptions,
        );
        return { items: page.approvals, next: page.next };
      },
      options,
      query.before,
    );
  }

  /** The approval as it stands; `wait` (seconds) holds the answer until it is decided or the wait ends. */
  retrieve(id: string, query: { wait?: number } = {}, options: RequestOptions = {}): Promise<ApprovalView> {
    const timeoutMs = query.wait ? Math.max(options.timeoutMs ?? 0, query.wait * 1000 + 15_000) : options.timeoutMs;
    return this.transport.json(
      { method: 'GET', path: path`/approval/${id}`, query: { wait: query.wait }, idempotent: true },
      { ...options, timeoutMs },
    );
  }

  /**
   * Answers with a key holding `approvals:answer`. A second answer is a ConflictError, an expired approval a GoneError.
   * An approval with `approvers` counts your vote ("me"): `status` is `unanswered` while it waits on others (202).
   */
  answer(id: string, body: { choice: string; note?: string }, options?: RequestOptions): Promise<Answered | VoteCounted> {
    return this.transport.json({ method: 'POST', path: path`/approval/${id}/answer`, json: body, idempotent: false }, options);
  }

  /** Hands the vote of one of the approval's approvers (`from`) to another approver of your directory (`to`). */
  delegate(id: string, body: DelegateBody, options?: RequestOptions): Promise<ApprovalView> {
    return this.transport.json({ method: 'POST', path: path`/approval/${id}/delegate`, json: body, idempotent: false }, options);
  }

  /** Waits until the approval is answered or expires (see ApprovalHandle.waitForAnswer). */
  wait(id: string, options: WaitOptions = {}): Promise<ApprovalOutcome> {
    return waitForOutcome(this.transport, id, options);
  }
}

/** A question asked with `askHuman`. */
export class ApprovalHandle {
  constructor(
    private readonly transport: Transport,
    /** The approval as created (with `links` when the key may answer). */
    readonly approval: ApprovalView,
  ) {}

  get id(): string {
    return this.approval.id;
  }

  /**
   * Resolves once the question is answered or expires. Long-polls `GET /approval/<id>?wait=`, one
   * request after another, so it survives dropped connections and API restarts: a failed poll is
   * tried again with backoff until `timeoutMs` (if given) or the signal ends the wait.
   */
  waitForAnswer(options: WaitOptions = {}): Promise<ApprovalOutcome> {
    return waitForOutcome(this.transport, this.approval.id, options);
  }
}

async function waitForOutcome(transport: Transport, id: string, options: WaitOptions): Promise<ApprovalOutcome> {
  const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
  let failures = 0;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) throw new APITimeoutError(`The approval ${id} was not decided within ${options.timeoutMs} ms`);
    const wait = Math.max(0, Math.min(POLL_SECONDS, Math.floor(left / 1000)));
    try {
      const approval = await transport.json<ApprovalView>(
        { method: 'GET', path: path`/approval/${id}`, query: { wait }, idempotent: true },
        { signal: options.signal, timeoutMs: wait * 1000 + 15_000, maxRetries: 0 },
      );
      failures = 0;
      if (approval.status === 'answered') return { status: 'answered', choice: approval.choice ?? '', note: approval.note ?? null };
      if (approval.status === 'expired') return { status: 'expired' };
      if (wait === 0) await sleep(Math.min(1000, Math.max(0, deadline - Date.now())), options.signal);
    } catch (error) {
      if (error instanceof APIUserAbortError) throw error;
      const transient = error instanceof APIConnectionError || (error instanceof APIError && isRetryableStatus(error.status, true));
      if (!transient) throw error;
      failures++;
      const delay = Math.min(
        retryDelayMs(Math.min(failures, 5), error instanceof APIError ? error.headers : undefined) ?? 5000,
        Math.max(0, deadline - Date.now()),
      );
      await sleep(delay, options.signal).catch(() => {
        throw new APIUserAbortError(undefined, { cause: options.signal?.reason });
      });
    }
  }
}
