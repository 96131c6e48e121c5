// The performance issue's goal for idle streams: "10,000 idle SSE connections held by one API process
// in under 1 GiB, a turn's latency unchanged while they are open". API and worker run as child
// processes (bench/concurrent-streams-service.ts), so the API's resident memory (VmRSS, read from
// /proc) is its own. The baseline, from the same run: the API's RSS at rest and the latency of
// sequential waiting sends with no stream open. Then 10,000 `GET /session/<id>/events` streams are
// opened from this process over 1,000 sessions with no activity, and the same is measured with them
// held open. The turns go to a session no idle reader follows, so the difference is the idle
// streams alone; one more turn then goes to an idle session, and all its readers must see it. The
// API exposes no count of its streams, so that closed streams let go is checked from outside: its
// descriptors come back down. Last, every client reconnects at once (the same 10,000 streams again):
// V8 collects its old generation lazily, so the first round's garbage is still resident while the
// second round opens, and the peak RSS of that reconnect storm is what a memory limit must allow.
// (Not a leak check: heap snapshots, which collect first, showed the heap back at rest once 2,000
// streams had been opened and closed twice.)
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../lib/config.ts';
import { startFakeModel, type FakeModel } from '../test/helpers/fakes/fake-model.ts';
import type { Benchmark } from './benchmark.ts';
import { processCpuMs } from './concurrent-streams-children.ts';
import { startService, type ServiceTarget } from './concurrent-streams-service.ts';
import { expectStatus, timedRequest } from './http-json.ts';
import { summarize, type Latency } from './measure.ts';
import { mib, openDescriptors, processMemory } from './idle-streams-proc.ts';
import { idleReaders, type IdleReaders } from './idle-streams-readers.ts';

const CONNECTIONS = 10_000;
const SESSIONS = 1_000;
/** Streams being opened at once: the opening is timed, but it is not what the goal is about. */
const OPEN_CONCURRENCY = 100;
const TURNS = 30;
const WARMUP_TURNS = 5;
/** Streams opened and closed before the rest figure, so the SSE route's code is loaded and compiled in both figures. */
const WARMUP_STREAMS = 20;
const REPLY = 'Hello from the fake model.';
const TURN_TIMEOUT_MS = 60_000;
/** After opening, RSS is read once the process has had this long to finish what the opening left (GC, logging). */
const SETTLE_MS = 2_000;
const GOAL_BYTES = 2 ** 30;

const round2 = (value: number) => Math.round(value * 100) / 100;

interface WaitingSendAnswer {
  reply: string;
  status: string;
}

async function turns(service: ServiceTarget, agent: http.Agent, sessionId: string, count: number, tag: string): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const response = await timedRequest<WaitingSendAnswer>(agent, `${service.url}/session/${sessionId}`, {
      method: 'POST',
      headers: service.headers,
      body: JSON.stringify({ parts: [{ type: 'text', text: `${tag} ${i}` }] }),
      timeoutMs: TURN_TIMEOUT_MS,
    });
    const answer = expectStatus(response, 200, 'POST /session/<id>');
    if (answer.status !== 'completed' || answer.reply !== REPLY) throw new Error(`unexpected answer ${JSON.stringify(answer)}`);
    samples.push(response.ms);
  }
  return samples;
}

function memoryFigures(pid: number) {
  const memory = processMemory(pid);
  return { rssMiB: mib(memory.rss), rssAnonMiB: mib(memory.rssAnon), peakRssMiB: mib(memory.peakRss), fds: openDescriptors(pid) };
}

const idleStreams: Benchmark = {
  name: 'idle-streams',
  description: `${CONNECTIONS} idle SSE streams over ${SESSIONS} sessions held by one API process: its RSS, and ${TURNS} waiting sends' latency, against no streams`,
  needs: ['postgres', 'temporal'],
  async run({ infra, log }) {
    let fake: FakeModel | undefined;
    let service: ServiceTarget | undefined;
    let readers: IdleReaders | undefined;
    const sender = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      fake = await startFakeModel({ defaultScript: { text: REPLY } });
      log('starting the API and the worker (child processes)');
      service = await startService(infra, fake.baseUrl, log);
      const api = service.pids.api!;
      const headers = service.headers;

      log(`creating ${SESSIONS + 1} sessions`);
      const [turnSession] = await service.open(1);
      const idleSessions = await service.open(SESSIONS);

      log(`warming up: ${WARMUP_TURNS} turns, ${WARMUP_STREAMS} streams opened and closed`);
      await turns(service, sender, turnSession!, WARMUP_TURNS, 'warm-up');
      const warm = idleReaders(headers);
      const warmed = await warm.open(
        idleSessions.slice(0, WARMUP_STREAMS).map((sessionId) => ({ sessionId, url: `${service!.url}/session/${sessionId}/events` })),
        WARMUP_STREAMS,
      );
      warm.close();
      if (warmed.opened !== WARMUP_STREAMS) throw new Error(`warm-up streams failed to open: ${JSON.stringify(warmed.failures)}`);

      log(`baseline: ${TURNS} sequential waiting sends, no stream open`);
      const baselineSamples = await turns(service, sender, turnSession!, TURNS, 'baseline');
      await sleep(SETTLE_MS);
      const rest = processMemory(api);
      const restFigures = memoryFigures(api);
      log(`at rest: RSS ${restFigures.rssMiB} MiB, ${restFigures.fds} fds`);

      log(`opening ${CONNECTIONS} idle streams, ${OPEN_CONCURRENCY} at a time`);
      readers = idleReaders(headers);
      const targets = Array.from({ length: CONNECTIONS }, (_, index) => {
        const sessionId = idleSessions[index % SESSIONS]!;
        return { sessionId, url: `${service!.url}/session/${sessionId}/events` };
      });
      const cpuBefore = processCpuMs(api);
      const opening = await readers.open(targets, OPEN_CONCURRENCY);
      const cpuOpening = cpuBefore === undefined ? undefined : processCpuMs(api)! - cpuBefore;
      const openedAt = performance.now();
      log(
        `${opening.opened} opened in ${opening.ms} ms${Object.keys(opening.failures).length ? `; failed: ${JSON.stringify(opening.failures)}` : ''}`,
      );
      if (opening.opened === 0) throw new Error(`no stream opened: ${JSON.stringify(opening.failures)}`);
      await sleep(SETTLE_MS);
      const open = processMemory(api);
      const openFigures = memoryFigures(api);
      const bytesPerConnection = Math.round((open.rss - rest.rss) / opening.opened);
      log(`${readers.count()} open: RSS ${openFigures.rssMiB} MiB (${bytesPerConnection} bytes per stream), ${openFigures.fds} fds`);

      log(`with the streams open: ${TURNS} sequential waiting sends`);
      const idleSamples = await turns(service, sender, turnSession!, TURNS, 'with idle streams');
      const afterTurns = memoryFigures(api);

      // Every stream's first heartbeat comes one interval after it opened.
      const heartbeatMs = loadConfig().limits.sseHeartbeatMs;
      const heartbeatDeadline = openedAt + heartbeatMs + 5_000;
      while (readers.heartbeats().readersWithNone > 0 && performance.now() < heartbeatDeadline) await sleep(500);
      const heartbeats = readers.heartbeats();
      const afterHeartbeats = memoryFigures(api);
      log(`heartbeats: ${heartbeats.total}, ${heartbeats.readersWithNone} streams without one; RSS ${afterHeartbeats.rssMiB} MiB`);

      // A turn on one of the idle sessions: every one of its readers must see it end.
      const watched = idleSessions[0]!;
      const watchedStarted = performance.now();
      await turns(service, sender, watched, 1, 'to the watched session');
      const watchedReaders = await readers.allSee(watched, 'turn.completed', 30_000);
      const watchedMs = Math.round(performance.now() - watchedStarted);
      log(`all ${watchedReaders} readers of the watched session saw turn.completed`);
      const stillOpen = readers.count();
      const events = readers.events();
      const dropped = readers.dropped();

      log('closing every stream');
      const closeAll = async (which: IdleReaders) => {
        which.close();
        const closedAt = performance.now();
        // The sockets close on the API's side as their FINs arrive; wait for its descriptors to come back down.
        while (openDescriptors(api) > restFigures.fds + 20 && performance.now() - closedAt < 20_000) await sleep(250);
        const ms = Math.round(performance.now() - closedAt);
        await sleep(SETTLE_MS);
        return { ...memoryFigures(api), closeMs: ms };
      };
      const closed = await closeAll(readers);
      readers = undefined;
      log(`closed: RSS ${closed.rssMiB} MiB, ${closed.fds} fds after ${closed.closeMs} ms`);

      // Every client reconnects at once, as after a network blip: the first round's garbage is still resident.
      log(`reconnect storm: reopening the ${CONNECTIONS} streams, then closing them`);
      readers = idleReaders(headers);
      const reopening = await readers.open(targets, OPEN_CONCURRENCY);
      await sleep(SETTLE_MS);
      const reopen = processMemory(api);
      const reopenFigures = memoryFigures(api);
      const reclosed = await closeAll(readers);
      const peak = processMemory(api).peakRss;
      readers = undefined;
      log(`reopened ${reopening.opened}: RSS ${reopenFigures.rssMiB} MiB; closed again: RSS ${reclosed.rssMiB} MiB, ${reclosed.fds} fds`);

      const baseline = summarize(baselineSamples);
      const withIdle = summarize(idleSamples);
      const describe = (latency: Latency) => ({ p50Ms: latency.p50Ms, p99Ms: latency.p99Ms, meanMs: latency.meanMs, maxMs: latency.maxMs });
      return {
        connections: opening.opened,
        sessions: SESSIONS,
        readersPerSession: CONNECTIONS / SESSIONS,
        openFailures: opening.failures,
        openDurationMs: opening.ms,
        openApiCpuMs: cpuOpening,
        rssRestMiB: mib(rest.rss),
        rssOpenMiB: mib(open.rss),
        bytesPerConnection,
        // VmHWM at the end: the most the API was ever resident, the reopening's burst included, which is
        // what a container's memory limit must allow.
        peakRssMiB: mib(peak),
        underOneGiB: peak < GOAL_BYTES,
        memory: { rest: restFigures, open: openFigures, afterTurns, afterHeartbeats, closed, reopen: reopenFigures, reclosed },
        reconnectStorm: {
          opened: reopening.opened,
          failures: reopening.failures,
          openDurationMs: reopening.ms,
          rssMiB: mib(reopen.rss),
          // The first round's uncollected garbage, mostly (V8 has not yet run a full collection).
          rssOverFirstRoundMiB: mib(reopen.rss - open.rss),
        },
        turnLatency: {
          baseline: describe(baseline),
          withIdle: describe(withIdle),
          ratio: { p50: round2(withIdle.p50Ms / baseline.p50Ms), p99: round2(withIdle.p99Ms / baseline.p99Ms) },
        },
        heartbeatMs,
        heartbeatsReceived: heartbeats.total,
        streamsWithoutHeartbeat: heartbeats.readersWithNone,
        eventsReceived: events,
        droppedWhileHeld: dropped,
        openBeforeClosing: stillOpen,
        watchedSession: { readers: watchedReaders, sendToAllSawTurnCompletedMs: watchedMs },
        method:
          `API and worker: one child process each (NODE_ENV=production, pools of 10). RSS: VmRSS of the API from /proc, ` +
          `${SETTLE_MS} ms after the last step; bytesPerConnection = (RSS open - RSS rest) / connections. Streams: ` +
          `GET /session/<id>/events (Accept: text/event-stream) from this process, one http.Agent without a socket limit, ` +
          `${OPEN_CONCURRENCY} being opened at a time, ${CONNECTIONS / SESSIONS} per session, data read and discarded. Turns: ` +
          `sequential waiting sends (POST /session/<id>) over one keep-alive socket to a session no stream follows, zero-delay ` +
          `fake model; baseline before the streams open, ratio = with / without. Warm-up first: ${WARMUP_TURNS} turns and ` +
          `${WARMUP_STREAMS} streams opened and closed. Reconnect storm: once all are closed and the API's descriptors are ` +
          `back down, the same ${CONNECTIONS} streams opened again. peakRssMiB / underOneGiB: VmHWM of the API at the end.`,
        childLogWarnings: service.logWarnings(),
      };
    } finally {
      readers?.close();
      sender.destroy();
      await service?.close().catch((error: unknown) => log(`stopping the service failed: ${(error as Error).message}`));
      await fake?.close();
    }
  },
};

export default idleStreams;
