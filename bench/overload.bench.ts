// Sends at three times what the machine can serve: is every send taken or refused at once, and does
// every taken one complete? The API and the worker run as two child processes, as in production, with
// the production defaults of the admission limits (QUEUED_SENDS_PER_USER, RUNNING_TURNS_PER_USER).
// First the capacity: a backlog of async sends on fresh sessions, timed until every turn has ended.
// Then an open-loop load: async sends at OVERLOAD x that rate for LOAD_SECONDS, round robin over
// SESSIONS sessions of one user, each send fired on its schedule whatever the answers before it.
// Each answer is timed: a 202 is a send taken, a 429 (`queue-full`, with Retry-After) one refused;
// anything else is counted apart, and is a defect. Then the drain: every taken send's turn must end,
// its reply stored; a send taken and never answered is reported as lost.
import fs from 'node:fs';
import http from 'node:http';
import type { Benchmark } from './benchmark.ts';
import { startFakeModel, type FakeModel } from '../test/helpers/fakes/fake-model.ts';
import { startService, type ServiceTarget } from './concurrent-streams-service.ts';
import { createPool, type Db } from '../store/db.ts';
import { timedRequest, type TimedResponse } from './http-json.ts';
import { summarize } from './measure.ts';
import { cpuSnapshot, cpuSpent } from './cpu-meter.ts';

/** Sends of the capacity phase, one per fresh session, all at once. */
const CAPACITY_SENDS = 150;
/** How far past capacity the load goes. */
const OVERLOAD = 3;
const LOAD_SECONDS = 30;
const SESSIONS = 300;
/** A send answered later than this is late: the bound for a send taken or refused. */
const PROMPT_MS = 100;
const DRAIN_TIMEOUT_MS = 10 * 60_000;
const REPLY = 'Hello from the fake model.';

const round = (value: number) => Math.round(value * 100) / 100;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Turns ended in `sessionIds`: replies stored complete, and ended otherwise (failed, aborted). */
async function endedTurns(db: Db, sessionIds: readonly string[]): Promise<{ complete: number; failed: number }> {
  const { rows } = await db.query<{ complete: string; failed: string }>(
    `SELECT count(*) FILTER (WHERE status = 'complete') AS complete, count(*) FILTER (WHERE status IN ('failed', 'aborted')) AS failed
       FROM messages WHERE session_id = ANY($1) AND role = 'assistant'`,
    [sessionIds],
  );
  return { complete: Number(rows[0]!.complete), failed: Number(rows[0]!.failed) };
}

/** Waits until `expected` turns of `sessionIds` have ended; answers how long it took, or undefined past the timeout. */
async function untilEnded(db: Db, sessionIds: readonly string[], expected: number, timeoutMs: number): Promise<number | undefined> {
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    const { complete, failed } = await endedTurns(db, sessionIds);
    if (complete + failed >= expected) return performance.now() - started;
    await sleep(100);
  }
  return undefined;
}

function sendAsync(service: ServiceTarget, agent: http.Agent, sessionId: string, text: string): Promise<TimedResponse<unknown>> {
  return timedRequest(agent, `${service.url}/session/${sessionId}?async=1`, {
    method: 'POST',
    headers: service.headers,
    body: JSON.stringify({ parts: [{ type: 'text', text }] }),
    timeoutMs: 60_000,
  });
}

/** The backlog a fresh start clears per second: CAPACITY_SENDS async sends at once, timed until every turn has ended. */
async function capacity(service: ServiceTarget, db: Db, agent: http.Agent, tag: string): Promise<number> {
  const sessions = await service.open(CAPACITY_SENDS);
  const started = performance.now();
  const answers = await Promise.all(sessions.map((id, index) => sendAsync(service, agent, id, `${tag} ${index}`)));
  const refused = answers.filter((answer) => answer.status !== 202);
  if (refused.length)
    throw new Error(`${refused.length} capacity sends not taken, e.g. ${refused[0]!.status} ${JSON.stringify(refused[0]!.body)}`);
  const waited = await untilEnded(db, sessions, CAPACITY_SENDS, DRAIN_TIMEOUT_MS);
  if (waited === undefined) throw new Error(`the capacity phase's ${CAPACITY_SENDS} turns did not end within ${DRAIN_TIMEOUT_MS} ms`);
  return CAPACITY_SENDS / ((performance.now() - started) / 1000);
}

interface Answered {
  status: number;
  ms: number;
  retryAfter: boolean;
  /** Why there was no answer (status 0): the socket's error, or the request's timeout. */
  error?: string;
}

/** Why a send had no answer, and whether it went out on a kept-alive socket (one the API may have just closed). */
function unansweredBecause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const { code, reusedSocket } = error as NodeJS.ErrnoException & { reusedSocket?: boolean };
  return `${code ?? error.name}: ${error.message}${reusedSocket ? ' (on a reused keep-alive socket)' : ' (on a new socket)'}`;
}

/** Fires sends at `perSecond` for `seconds`, each on its schedule, round robin over `sessions`; answers each one's outcome. */
async function openLoop(service: ServiceTarget, agent: http.Agent, sessions: readonly string[], perSecond: number, seconds: number) {
  const total = Math.round(perSecond * seconds);
  const answers: Array<Promise<Answered>> = [];
  const taken: string[] = [];
  const started = performance.now();
  while (answers.length < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * perSecond) + 1);
    while (answers.length < due) {
      const index = answers.length;
      const sentAt = performance.now();
      const sessionId = sessions[index % sessions.length]!;
      answers.push(
        sendAsync(service, agent, sessionId, `load ${index}`).then(
          (response) => {
            if (response.status === 202) taken.push(sessionId);
            return { status: response.status, ms: response.ms, retryAfter: response.headers['retry-after'] !== undefined };
          },
          // No answer at all (reset, timeout): status 0, counted apart.
          (error: unknown) => ({
            status: 0,
            ms: performance.now() - sentAt,
            retryAfter: false,
            error: unansweredBecause(error),
          }),
        ),
      );
    }
    await sleep(2);
  }
  const outcomes = await Promise.all(answers);
  return { outcomes, taken, offeredSeconds: (performance.now() - started) / 1000 };
}

/**
 * The API's own time for each async send it answered with `status` (its request log's `ms`, from the request's
 * arrival to the answer written): beside the client's figures, it tells time inside the API from time spent
 * reaching it (a socket, a machine with no core free).
 */
function apiSendTimes(logFile: string, status: number, from: number, to: number): number[] {
  const times: number[] = [];
  for (const line of fs.readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.includes('"msg":"request"')) continue;
    const entry = JSON.parse(line) as { time: string; method?: string; route?: string; status?: number; ms?: number };
    const at = Date.parse(entry.time);
    if (at < from || at > to || entry.ms === undefined) continue;
    if (entry.method === 'POST' && entry.route === '/session/:id' && entry.status === status) times.push(entry.ms);
  }
  return times;
}

/**
 * Samples, every 20 ms until stopped, the statements waiting on a lock and what holds it (pg_blocking_pids):
 * where sends queue behind other writers (a session's row, NOTIFY's commit lock). Answers the 10 most seen.
 */
function sampleLockWaits(db: Db): { stop(): Promise<Array<{ samples: number; waiting: string; holder: string }>> } {
  const seen = new Map<string, { samples: number; waiting: string; holder: string }>();
  let sampling = true;
  const short = (query: string, length: number) => query.replace(/\s+/g, ' ').trim().slice(0, length);
  const loop = (async () => {
    while (sampling) {
      const { rows } = await db.query<{ waiting: string; state: string; holder: string }>(
        `SELECT w.query AS waiting, b.state, b.query AS holder
           FROM pg_stat_activity w
           JOIN LATERAL unnest(pg_blocking_pids(w.pid)) AS blocking(pid) ON true
           JOIN pg_stat_activity b ON b.pid = blocking.pid
          WHERE w.wait_event_type = 'Lock'`,
      );
      for (const row of rows) {
        const waiting = short(row.waiting, 60);
        const holder = `[${row.state}] ${short(row.holder, 100)}`;
        const key = `${waiting}\n${holder}`;
        const entry = seen.get(key) ?? { samples: 0, waiting, holder };
        entry.samples++;
        seen.set(key, entry);
      }
      await sleep(20);
    }
  })();
  return {
    async stop() {
      sampling = false;
      await loop;
      return [...seen.values()].sort((a, b) => b.samples - a.samples).slice(0, 10);
    },
  };
}

const overload: Benchmark = {
  name: 'overload',
  description: `async sends at ${OVERLOAD}x the measured capacity for ${LOAD_SECONDS} s: each taken or refused (429) at once, every taken one completed`,
  needs: ['postgres', 'temporal'],
  async run({ infra, log }) {
    let fake: FakeModel | undefined;
    let service: ServiceTarget | undefined;
    const db = createPool(infra.databaseUrl(), 2);
    // A fresh socket pool per phase: a keep-alive socket idle between phases may be closed by the API
    // (its keep-alive timeout) just as it is reused, which fails that request with no fault of the service.
    const agents: http.Agent[] = [];
    const agent = () => {
      agents.at(-1)?.destroy();
      agents.push(new http.Agent({ keepAlive: true, maxSockets: 1_000 }));
      return agents.at(-1)!;
    };
    try {
      fake = await startFakeModel();
      fake.setHandler(() => ({ text: REPLY }));
      log('starting the API and the worker (child processes)');
      // The rate limiter would refuse a load this size from one user (600 a minute): the admission limits are what is measured.
      service = await startService(infra, fake.baseUrl, log, { label: 'overload' });
      log(`warm-up, then capacity: ${CAPACITY_SENDS} async sends at once on fresh sessions`);
      await capacity(service, db, agent(), 'warm-up');
      const perSecond = await capacity(service, db, agent(), 'capacity');
      const offered = perSecond * OVERLOAD;
      log(
        `capacity ${perSecond.toFixed(1)} turns/s; offering ${offered.toFixed(1)} sends/s for ${LOAD_SECONDS} s over ${SESSIONS} sessions`,
      );

      const sessions = await service.open(SESSIONS);
      const cpuBefore = cpuSnapshot(service.pids);
      const lockWaits = sampleLockWaits(db);
      const loadFrom = Date.now();
      const { outcomes, taken, offeredSeconds } = await openLoop(service, agent(), sessions, offered, LOAD_SECONDS);
      const loadTo = Date.now();
      const blockers = await lockWaits.stop();
      log(`${outcomes.length} sends in ${offeredSeconds.toFixed(1)} s: ${taken.length} taken; draining`);
      const drainMs = await untilEnded(db, sessions, taken.length, DRAIN_TIMEOUT_MS);
      const cpu = cpuSpent(cpuBefore, cpuSnapshot(service.pids), taken.length);
      const ended = await endedTurns(db, sessions);

      const byStatus: Record<string, number> = {};
      for (const outcome of outcomes) byStatus[outcome.status] = (byStatus[outcome.status] ?? 0) + 1;
      const ms = (status: number) => outcomes.filter((outcome) => outcome.status === status).map((outcome) => outcome.ms);
      const refused = outcomes.filter((outcome) => outcome.status === 429);
      const prompt = outcomes.filter((outcome) => (outcome.status === 202 || outcome.status === 429) && outcome.ms <= PROMPT_MS).length;
      return {
        method:
          `API and worker as child processes (NODE_ENV=production, production admission limits), zero-delay fake model; capacity: ` +
          `${CAPACITY_SENDS} async sends at once on fresh sessions, turns/s until every turn ended (after a warm-up of the same); load: ` +
          `async sends (POST /session/<id>?async=1) at ${OVERLOAD}x that rate for ${LOAD_SECONDS} s, open loop, round robin over ` +
          `${SESSIONS} sessions of one user; each answer timed to its last byte; then every taken send's turn awaited (stored reply). ` +
          'cpuMsPerTakenSend: CPU ms per taken send over the load and the drain, from /proc',
        capacityTurnsPerSecond: round(perSecond),
        offeredSendsPerSecond: round(offered),
        sends: outcomes.length,
        byStatus,
        taken: taken.length,
        refused429: refused.length,
        refusedWithoutRetryAfter: refused.filter((outcome) => !outcome.retryAfter).length,
        // Sends with no answer at all (status 0), the first few with their error and how long after the send it came: a defect unless
        // the error is the client's (a keep-alive socket the API closed as it was reused).
        unanswered: outcomes
          .flatMap((outcome) => (outcome.status === 0 ? [{ afterMs: round(outcome.ms), error: outcome.error }] : []))
          .slice(0, 5),
        // The bound: every send taken or refused within PROMPT_MS.
        answeredWithinMs: PROMPT_MS,
        answeredWithinShare: round(prompt / outcomes.length),
        latencyAll: summarize(outcomes.map((outcome) => outcome.ms)),
        ...(ms(202).length ? { latencyTaken: summarize(ms(202)) } : {}),
        ...(ms(429).length ? { latencyRefused: summarize(ms(429)) } : {}),
        apiTimeTaken: summarize(apiSendTimes(service.logFile('api'), 202, loadFrom, loadTo)),
        ...(refused.length ? { apiTimeRefused: summarize(apiSendTimes(service.logFile('api'), 429, loadFrom, loadTo)) } : {}),
        drainMs: drainMs === undefined ? null : round(drainMs),
        turnsCompleted: ended.complete,
        turnsFailed: ended.failed,
        // A send taken whose turn never ended: must be 0.
        lost: Math.max(0, taken.length - ended.complete - ended.failed),
        cpuMsPerTakenSend: Object.fromEntries(
          Object.entries(cpu).map(([name, value]) => [name, value === undefined ? null : round(value)]),
        ),
        // What statements waited on during the load, by what held the lock (sampled every 20 ms): most common first.
        lockWaitSamples: blockers,
        childLogWarnings: service.logWarnings(),
      };
    } finally {
      for (const each of agents) each.destroy();
      await service?.close();
      await fake?.close();
      await db.end();
    }
  },
};

export default overload;
