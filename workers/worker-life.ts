// A worker's death noticed in a second, not at its activities' heartbeat timeout. Temporal learns that a
// worker died only when an activity it ran misses its heartbeat (MODEL_STEP_HEARTBEAT_TIMEOUT_MS, 8 s),
// so a turn whose step ran there stalled that long and more. PostgreSQL learns it at once: the process's
// connections close with it. So each worker process holds an advisory lock on a connection of its own
// and keeps, in its row of worker_lives (schema/migrations/0033), the task tokens of the activities it
// runs (all of them: one without a heartbeat, an approval's bookkeeping say, held its workflow for its
// whole start-to-close timeout, 30 s, in the soak). Every worker looks each second for rows of its scope whose lock nobody holds, and
// fails their activities with Temporal, which runs each again on a live worker at once.
//
// What it does not cover, left to the activities' own timeouts: an activity whose start took longer than
// START_WAITS_AT_MOST_MS to write, and any activity while the connection is down. An activity failed
// this way while its worker in fact lives (its connection dropped, PostgreSQL restarted) runs twice, as
// after a heartbeat timeout: its old attempt is cancelled at its next heartbeat.
import { randomInt } from 'node:crypto';
import pg from 'pg';
import { ApplicationFailure } from '@temporalio/common';
import { ActivityNotFoundError, type Client } from '@temporalio/client';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import type { Logger } from '../lib/logger.ts';
import { claimWorkerLife, endWorkerLife, recordRunningTasks, takeDeadWorkersTasks } from '../store/worker-lives.ts';

/** How often a worker looks for dead ones; a dead worker's activities wait at most about this long. */
const SWEEP_EVERY_MS = 1_000;
/**
 * An activity runs once its start is written (the starts of one moment share a write), or after this
 * long without it: a kill in its first moments was the commonest miss in the soak, a step just started.
 */
const START_WAITS_AT_MOST_MS = 250;
/** An activity's end is written within this long: a sweep that finds an ended one fails nothing. */
const RECORD_ENDS_MS = 500;
const RECONNECT_AFTER_MS = 1_000;
/** The failure a dead worker's activity gets: retried (not one of FAILURE's non-retryable types), at once. */
export const WORKER_LOST = 'WorkerLost';
const RETRY_AFTER_LOSS = '100 milliseconds';

export interface WorkerLifeOptions {
  databaseUrl: string;
  /** The Temporal namespace and task queue: only activities of this scope are failed. */
  namespace: string;
  taskQueue: string;
  logger: Logger;
}

export class WorkerLife {
  private readonly running = new Map<string, Uint8Array>();
  private readonly log: Logger;
  private readonly scope: string;
  private connection: { client: pg.Client; lockKey: number } | undefined;
  private client: Client | undefined;
  private dirty = false;
  /** Activities waiting for their start to be written: resolved once a write that includes it has ended. */
  private waiting: Array<() => void> = [];
  private recordTimer: NodeJS.Timeout | undefined;
  private recordDue = 0;
  private sweepTimer: NodeJS.Timeout | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private sweeping = false;

  constructor(private readonly options: WorkerLifeOptions) {
    this.log = options.logger.child({ component: 'worker-life' });
    this.scope = `${options.namespace}/${options.taskQueue}`;
  }

  /** Claims this worker's life; the worker starts all the same if PostgreSQL cannot be reached (retried). */
  async start(client: Client): Promise<void> {
    this.client = client;
    await this.connect().catch((error: unknown) => this.lost(undefined, error));
    this.sweepTimer = setInterval(() => void this.sweep(), SWEEP_EVERY_MS);
    this.sweepTimer.unref();
  }

  /** Registers every activity (not local ones: they die with their workflow task, which Temporal times out). */
  interceptor(): ActivityInterceptorsFactory {
    return (context) => ({
      inbound: {
        execute: async (input, next) => {
          const { info } = context;
          if (info.isLocal) return next(input);
          const key = Buffer.from(info.taskToken).toString('base64');
          this.running.set(key, info.taskToken);
          await this.startRecorded();
          try {
            return await next(input);
          } finally {
            this.running.delete(key);
            this.changed(RECORD_ENDS_MS);
          }
        },
      },
    });
  }

  /** Stopping in order: the row goes, and the lock with the connection. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweepTimer);
    clearTimeout(this.recordTimer);
    clearTimeout(this.reconnectTimer);
    const current = this.connection;
    this.connection = undefined;
    if (!current) return;
    await endWorkerLife(current.client, current.lockKey).catch(() => undefined);
    await current.client.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.options.databaseUrl,
      application_name: 'agent-service-worker-life',
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      connectionTimeoutMillis: 5_000,
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    await client.connect();
    try {
      let lockKey = 0;
      for (let tries = 0; lockKey === 0 && tries < 10; tries++) {
        const candidate = randomInt(1, 2 ** 31 - 1);
        if (await claimWorkerLife(client, candidate, this.scope)) lockKey = candidate;
      }
      if (lockKey === 0) throw new Error('no free worker life key after 10 tries');
      this.connection = { client, lockKey };
    } catch (error) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed) return this.close();
    this.dirty = true;
    await this.record();
    this.log.info({ lockKey: this.connection.lockKey }, 'worker life claimed');
  }

  private lost(which: pg.Client | undefined, error: unknown): void {
    if (this.closed || (which && this.connection?.client !== which)) return;
    if (this.connection) {
      const old = this.connection.client;
      old.removeAllListeners('end');
      old.on('error', () => undefined);
      old.end().catch(() => undefined);
      this.connection = undefined;
    }
    this.log.warn({ err: error }, 'worker life connection lost: its activities are failed by others; claiming a new one');
    if (this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.connect().catch((failure: unknown) => this.lost(undefined, failure));
    }, RECONNECT_AFTER_MS);
    this.reconnectTimer.unref();
  }

  private startRecorded(): Promise<void> {
    if (!this.connection) return Promise.resolve();
    let timer: NodeJS.Timeout | undefined;
    return new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      timer = setTimeout(resolve, START_WAITS_AT_MOST_MS);
      this.changed(0);
    }).finally(() => clearTimeout(timer));
  }

  private changed(withinMs: number): void {
    this.dirty = true;
    // A start moves a write planned for later nearer.
    if (this.recordTimer && this.recordDue <= Date.now() + withinMs) return;
    clearTimeout(this.recordTimer);
    this.recordDue = Date.now() + withinMs;
    this.recordTimer = setTimeout(() => {
      this.recordTimer = undefined;
      void this.record();
    }, withinMs);
    this.recordTimer.unref();
  }

  private async record(): Promise<void> {
    const current = this.connection;
    const waiting = this.waiting.splice(0);
    try {
      if (!current || !this.dirty) return;
      this.dirty = false;
      await recordRunningTasks(current.client, current.lockKey, [...this.running.values()]);
    } catch (error) {
      this.dirty = true;
      this.log.warn({ err: error }, 'could not record the running activities');
    } finally {
      for (const resolve of waiting) resolve();
    }
  }

  private async sweep(): Promise<void> {
    const current = this.connection;
    if (!current || !this.client || this.sweeping) return;
    this.sweeping = true;
    try {
      const tokens = await takeDeadWorkersTasks(current.client, this.scope);
      if (tokens.length === 0) return;
      const failed = await Promise.all(tokens.map((token) => this.fail(token)));
      const rerun = failed.filter(Boolean).length;
      this.log.warn({ rerun, ended: tokens.length - rerun }, 'a worker died: its activities are run again');
    } catch (error) {
      this.log.warn({ err: error }, 'could not look for dead workers');
    } finally {
      this.sweeping = false;
    }
  }

  /** True when the activity was failed (to be run again), false when it had ended or could not be failed. */
  private async fail(token: Uint8Array): Promise<boolean> {
    const failure = ApplicationFailure.create({
      type: WORKER_LOST,
      message: 'The worker running this attempt died',
      nextRetryDelay: RETRY_AFTER_LOSS,
    });
    try {
      await this.client!.activity.fail(token, failure);
      return true;
    } catch (error) {
      // Ended meanwhile (it completed, or its heartbeat timed out first): nothing to run again.
      if (!(error instanceof ActivityNotFoundError)) {
        this.log.warn({ err: error }, 'could not fail an activity of a dead worker: its own timeouts will retry it');
      }
      return false;
    }
  }
}
