// A worker's death noticed in a second or two, not at its activities' timeouts. Temporal learns that a
// worker died only when an activity it ran misses its heartbeat (MODEL_STEP_HEARTBEAT_TIMEOUT_MS, 8 s)
// or outlasts its start-to-close timeout (30 s for an approval's bookkeeping), and its turn stalled that
// long. PostgreSQL learns it at once: the process's connections close with it. So each worker process
// holds an advisory lock on a connection of its own and keeps, in its row of worker_lives
// (schema/migrations/0033), the task tokens of the activities it runs, written before each runs. Every
// worker looks each second for rows whose lock nobody holds; a row of its scope still unlocked at a later
// look is deleted, and its activities failed with Temporal, which runs each again on a live worker.
//
// A worker whose connection drops while it lives (a database restart) connects again at once and takes
// its key and row back before a second look finds them free, so its activities are not run twice; one
// kept away longer has them failed, and each then runs twice, as after a heartbeat timeout (an old
// attempt that heartbeats is cancelled at its next heartbeat; one that does not runs to its end).
// An activity Temporal handed to the worker that it died before recording (handed over with the answer
// to its workflow task, or whose start took longer than START_WAITS_AT_MOST_MS to write) is found by
// asking Temporal, through the dead worker's identity, also kept in its row (dead-worker-recovery.ts).
// Left to the activities' own timeouts: any activity while the database cannot be reached, and those of
// workflows that recovery does not ask about.
import { randomInt } from 'node:crypto';
import pg from 'pg';
import type { Client } from '@temporalio/client';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import type { Logger } from '../lib/logger.ts';
import { withTimeout } from '../lib/with-timeout.ts';
import type { Db } from '../store/db.ts';
import { busyTurnWorkflowIds } from '../store/busy-turns.ts';
import { claimWorkerLife, endWorkerLife, reclaimWorkerLife, recordRunningTasks, takeDeadWorkers } from '../store/worker-lives.ts';
import { endLostActivity, recoverDeadWorkersWork, runningListedWorkflowIds } from './dead-worker-recovery.ts';

/** How often a worker looks for dead ones. */
const SWEEP_EVERY_MS = 1_000;
/** A lock found free is taken for dead at a look this much later: room for its worker to connect again. */
const DEAD_AFTER_MS = 900;
/** An activity runs once its start is written (the starts of one moment share a write), or after this long. */
const START_WAITS_AT_MOST_MS = 250;
/** An activity's end is written within this long: a sweep that finds an ended one fails nothing. */
const RECORD_ENDS_MS = 500;
/** A statement on the life connection that takes longer means the connection is dead (a half-open socket). */
const QUERY_TIMEOUT_MS = 5_000;
/** Reconnects: the first at once (to take the row back in time), then doubling with jitter up to the most. */
const RECONNECT_MS = { most: 10_000 };
/**
 * The server's keep-alives on the life connection: a worker whose host vanished (no FIN ever comes) lets
 * go of its lock within about 11 s instead of the operating system's two hours.
 */
const SERVER_KEEPALIVES = '-c tcp_keepalives_idle=5 -c tcp_keepalives_interval=2 -c tcp_keepalives_count=3';
/** Sessions, and the graph and eval workflows Temporal lists, asked about after a death (workers/dead-worker-recovery.ts). */
const RECOVER_AT_MOST = 500;

export interface WorkerLifeOptions {
  databaseUrl: string;
  /** The pool, for recovery's read of the busy sessions: the life connection keeps to the worker's own rows. */
  db: Db;
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
  /** The key of the life last held, taken back first after a lost connection. */
  private lastKey: number | undefined;
  private client: Client | undefined;
  /** This worker's Temporal identity, kept in its row for the worker that finds it dead. */
  private identity = '';
  private dirty = false;
  /** Activities waiting for their start to be written: resolved once a write that includes it has ended. */
  private waiting: Array<() => void> = [];
  private recordTimer: NodeJS.Timeout | undefined;
  private recordDue = 0;
  private sweepTimer: NodeJS.Timeout | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private reconnects = 0;
  private closed = false;
  private sweeping = false;

  constructor(private readonly options: WorkerLifeOptions) {
    this.log = options.logger.child({ component: 'worker-life' });
    this.scope = `${options.namespace}/${options.taskQueue}`;
  }

  /** Claims this worker's life; the worker starts all the same if PostgreSQL cannot be reached (retried). */
  async start(client: Client, identity: string): Promise<void> {
    this.client = client;
    this.identity = identity;
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

  /**
   * Stopping in order: the row goes with the lock, unless activities outlived the worker's shutdown grace:
   * then only the connection goes, and a live worker fails them at its next looks.
   */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweepTimer);
    clearTimeout(this.recordTimer);
    clearTimeout(this.reconnectTimer);
    for (const resolve of this.waiting.splice(0)) resolve();
    const current = this.connection;
    this.connection = undefined;
    if (!current) return;
    if (this.running.size === 0) {
      await withTimeout(endWorkerLife(current.client, current.lockKey), QUERY_TIMEOUT_MS, 'The worker life connection').catch(
        () => undefined,
      );
    }
    current.client.removeAllListeners('end');
    await withTimeout(current.client.end(), QUERY_TIMEOUT_MS, 'The worker life connection').catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.options.databaseUrl,
      // Its process named, so an operator (or a test) can tell the workers' lives apart in pg_stat_activity.
      application_name: `agent-service-worker-life-${process.pid}`,
      options: SERVER_KEEPALIVES,
      keepAlive: true,
      keepAliveInitialDelayMillis: 5_000,
      connectionTimeoutMillis: 5_000,
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    let lockKey = 0;
    let reclaimed = false;
    try {
      await client.connect();
      const bounded = <T>(work: Promise<T>) => withTimeout(work, QUERY_TIMEOUT_MS, 'The worker life connection');
      if (this.lastKey !== undefined && (await bounded(reclaimWorkerLife(client, this.lastKey, this.scope)))) {
        lockKey = this.lastKey;
        reclaimed = true;
      }
      for (let tries = 0; lockKey === 0 && tries < 10; tries++) {
        const candidate = randomInt(1, 2 ** 31 - 1);
        if (await bounded(claimWorkerLife(client, candidate, this.scope, this.identity))) lockKey = candidate;
      }
      if (lockKey === 0) throw new Error('no free worker life key after 10 tries');
    } catch (error) {
      client.removeAllListeners('end');
      client.removeAllListeners('error');
      client.on('error', () => undefined);
      await withTimeout(client.end(), QUERY_TIMEOUT_MS, 'The worker life connection').catch(() => undefined);
      throw error;
    }
    this.connection = { client, lockKey };
    this.lastKey = lockKey;
    this.reconnects = 0;
    if (this.closed) return this.close();
    this.dirty = true;
    await this.record();
    this.log.info({ lockKey, reclaimed }, reclaimed ? 'worker life taken back' : 'worker life claimed');
  }

  private lost(which: pg.Client | undefined, error: unknown): void {
    if (this.closed || (which && this.connection?.client !== which)) return;
    if (this.connection) {
      const old = this.connection.client;
      old.removeAllListeners('end');
      old.removeAllListeners('error');
      old.on('error', () => undefined);
      old.end().catch(() => undefined);
      this.connection = undefined;
    }
    this.log.warn({ err: error }, 'worker life connection lost; connecting again');
    if (this.reconnectTimer) return;
    const ceiling = Math.min(RECONNECT_MS.most, 250 * 2 ** this.reconnects);
    const delay = this.reconnects === 0 ? 0 : ceiling / 2 + Math.random() * (ceiling / 2);
    this.reconnects++;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.connect().catch((failure: unknown) => this.lost(undefined, failure));
    }, delay);
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
      const tokens = [...this.running.values()];
      const kept = await withTimeout(
        recordRunningTasks(current.client, current.lockKey, tokens),
        QUERY_TIMEOUT_MS,
        'The worker life connection',
      );
      // Its row was taken for dead's (the connection was away too long): a new life, with what runs now.
      if (!kept) this.lost(current.client, new Error('the worker life row was taken for a dead worker’s'));
    } catch (error) {
      this.dirty = true;
      if (current) this.lost(current.client, error);
    } finally {
      for (const resolve of waiting) resolve();
    }
  }

  private async sweep(): Promise<void> {
    const current = this.connection;
    if (!current || !this.client || this.sweeping) return;
    this.sweeping = true;
    try {
      // Deleted before they are failed: a sweeper that dies in between leaves them to their own timeouts.
      const dead = await withTimeout(
        takeDeadWorkers(current.client, this.scope, DEAD_AFTER_MS),
        QUERY_TIMEOUT_MS,
        'The worker life connection',
      );
      if (dead.taskTokens.length > 0) {
        const failed = await Promise.all(dead.taskTokens.map((token) => endLostActivity(this.client!, token, this.log)));
        const rerun = failed.filter(Boolean).length;
        this.log.warn({ rerun, ended: dead.taskTokens.length - rerun }, 'a worker died: its activities are run again');
      }
      // Never this worker's own (a row it lost while away): it lives, and so do its activities.
      const identities = dead.identities.filter((identity) => identity !== this.identity);
      // After the recorded tokens, whose retries it then passes over; apart from the sweeps and from the life
      // connection, so that a slow Temporal delays neither the next look nor this worker's own records.
      if (identities.length > 0) void this.recover(identities);
    } catch (error) {
      this.lost(current.client, error);
    } finally {
      this.sweeping = false;
    }
  }

  /** What the dead workers left unrecorded, asked of Temporal. */
  private async recover(identities: string[]): Promise<void> {
    try {
      const [sessions, listed] = await Promise.all([
        busyTurnWorkflowIds(this.options.db, RECOVER_AT_MOST),
        runningListedWorkflowIds(this.client!, this.options.taskQueue, RECOVER_AT_MOST),
      ]);
      const workflowIds = [...sessions, ...listed];
      const recovered = await recoverDeadWorkersWork({
        client: this.client!,
        namespace: this.options.namespace,
        identities: new Set(identities),
        workflowIds,
        logger: this.log,
      });
      this.log.warn({ ...recovered, identities }, 'a worker died: what it had not recorded is run again');
    } catch (error) {
      this.log.warn(
        { err: error, identities },
        'could not ask Temporal what a dead worker left: its activities’ own timeouts will retry them',
      );
    }
  }
}
