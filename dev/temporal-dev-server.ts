// A Temporal dev server (`temporal server start-dev`) with its state in a SQLite file, the Web UI
// on, and this service's search attributes registered.
import { spawn } from 'node:child_process';
import { SEARCH_ATTRIBUTES } from '../lib/workflow-safe/search-attributes.ts';
import { canConnect, waitFor } from './ports.ts';
import { serverProcess } from './server-process.ts';

export interface DevServerOptions {
  cli: string;
  dbFile: string;
  port: number;
  uiPort: number;
  namespace: string;
  /** No Web UI: the test harness does not need one. */
  headless?: boolean;
  /**
   * SQLite's `synchronous` for the server's file, which is always in WAL mode. `normal` (the default)
   * syncs at checkpoints, not at every commit: a crashed or killed process loses nothing, an OS crash or
   * power cut can lose the last commits. `full` syncs every commit and survives both, at a cost.
   */
  synchronous?: DevServerSynchronous;
  log?: (line: string) => void;
}

export type DevServerSynchronous = 'normal' | 'full';

/**
 * What `start-dev` runs with besides its defaults (docs/benchmarks.md, "Figures behind choices in the
 * code"): WAL lets readers and the writer overlap instead of taking turns on the whole file, and
 * one task-queue partition (the default is four) lets a poller find every task instead of a quarter of
 * them, which on one small server only adds forwarding between partitions.
 *
 * The history service's task-queue readers (transfer: workflow and activity tasks on their way to
 * matching; visibility; timers) are rate-limited per history shard, 20 reads a second by default. A
 * cluster has hundreds of shards; the dev server has one, so all of its runs share one reader, and
 * each task waits for that reader before matching sees it. A workflow with one activity needs three
 * such tasks in a row (workflow task, activity task, workflow task), so that wait was most of its
 * latency; at 100 reads a second it almost vanishes (the figures are in the same section of
 * docs/benchmarks.md). Under load one read still picks up every waiting task.
 */
const HISTORY_QUEUE_READS_PER_SECOND = 100;

/**
 * Eager activity dispatch: when a workflow task schedules an activity on its own task queue and the
 * worker has a free slot, the server hands the activity back in its answer to that task, recorded as
 * started in the same write, instead of queueing it for matching and a poll. Every model step is such
 * an activity. Temporal's servers default it off (Temporal Cloud has it on); nothing about retries,
 * timeouts or heartbeats changes, and a worker that dies with it is timed out like any other.
 */
const EAGER_ACTIVITIES = 'system.enableActivityEagerExecution';

/**
 * The dynamic-config values above, by key: the dev server takes them as flags, the server on
 * PostgreSQL (dev/temporal-postgres.ts) as its dynamic-config file, so both engines run tuned alike.
 */
export function tuningValues(): Record<string, number | boolean> {
  return {
    'matching.numTaskqueueReadPartitions': 1,
    'matching.numTaskqueueWritePartitions': 1,
    [EAGER_ACTIVITIES]: true,
    ...Object.fromEntries(
      ['transfer', 'visibility', 'timer'].map((queue) => [`history.${queue}ProcessorMaxPollRPS`, HISTORY_QUEUE_READS_PER_SECOND]),
    ),
  };
}

export function tuningArgs(synchronous: DevServerSynchronous = 'normal'): string[] {
  return [
    '--sqlite-pragma',
    'journal_mode=wal',
    '--sqlite-pragma',
    `synchronous=${synchronous}`,
    ...Object.entries(tuningValues()).flatMap(([key, value]) => ['--dynamic-config-value', `${key}=${value}`]),
  ];
}

export interface RunningTemporal {
  address: string;
  uiUrl: string | undefined;
  /** The server's process, for a benchmark's CPU accounting. */
  pid: number | undefined;
  stop(): Promise<void>;
}

/**
 * On a busy machine a fresh SQLite file can be locked while the server creates its namespaces
 * (SQLITE_BUSY), and the server exits. Nothing is half-made: another start succeeds.
 */
const START_ATTEMPTS = 3;

export async function startTemporalDevServer(options: DevServerOptions): Promise<RunningTemporal> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (error) {
      const busy = error instanceof Error && /SQLITE_BUSY|database is locked/.test(error.message);
      if (!busy || attempt >= START_ATTEMPTS) throw error;
      options.log?.(`the Temporal dev server found its database locked; starting it again (attempt ${attempt + 1})`);
      await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
    }
  }
}

/** The server of a launcher killed moments ago (SIGKILL) may still be stopping on the port. */
const PORT_RELEASE_WAIT_MS = 15_000;

async function startOnce(options: DevServerOptions): Promise<RunningTemporal> {
  await waitFor(async () => !(await canConnect(options.port)), PORT_RELEASE_WAIT_MS, `Port ${options.port} to be free`).catch(() => {
    throw new Error(`Port ${options.port} is already in use; set TEMPORAL_DEV_PORT or TEMPORAL_ADDRESS`);
  });
  const args = [
    'server',
    'start-dev',
    '--db-filename',
    options.dbFile,
    '--ip',
    '127.0.0.1',
    '--port',
    String(options.port),
    '--namespace',
    options.namespace,
    '--log-level',
    'warn',
    ...(options.headless ? ['--headless'] : ['--ui-port', String(options.uiPort)]),
    ...tuningArgs(options.synchronous),
    ...SEARCH_ATTRIBUTES.flatMap((attribute) => ['--search-attribute', `${attribute.name}=${attribute.type}`]),
  ];
  const child = spawn(options.cli, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const collect = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    output.push(text);
    if (output.length > 50) output.shift();
    options.log?.(text.trimEnd());
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const server = serverProcess(child);

  try {
    await waitFor(
      async () => {
        if (server.exited()) throw new Error(`temporal server exited: ${output.join('').slice(-2000)}`);
        return canConnect(options.port);
      },
      60_000,
      'The Temporal dev server',
    );
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }

  return {
    address: `127.0.0.1:${options.port}`,
    uiUrl: options.headless ? undefined : `http://127.0.0.1:${options.uiPort}`,
    pid: child.pid,
    stop: () => server.stop(),
  };
}
