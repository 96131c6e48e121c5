// Replay rate of a 50,000-event session: GET /session/:id/events over SSE from seq 0 through the
// real API (auth, rate limiter, ownership check, paged reads, framing, backpressure), beside reading
// the same rows with plain SQL in the same pages through the same driver. The ratio is the figure to
// compare across runs: the machine and PostgreSQL cancel out. Two more floors, same run: the rows
// with the replay's bounded page query (the plan the replay gets, without its framing), and the
// replay's own page reads (frames made by PostgreSQL, store/event-frames.ts) without HTTP.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { REPLAY_PAGE_SIZE } from '../api/streaming/sse.ts';
import { deployRevision } from '../store/agents.ts';
import type { Db } from '../store/db.ts';
import { readEventFrames } from '../store/event-frames.ts';
import { createSession } from '../store/sessions.ts';
import { startBenchApi } from './bench-api.ts';
import type { Benchmark } from './benchmark.ts';
import { seedDeltaEvents } from './seed-events.ts';
import { minimalBundle } from '../test/helpers/harness/bundles.ts';

const EVENTS = 50_000;
const RUNS = 5;

/**
 * Opens the SSE replay from 0 and reads until the frame with id EVENTS; the stream stays open for
 * live events, so the client cuts it there. Counts frames by their `event:` lines, which appear
 * exactly once per frame (the data is one line of JSON).
 */
function replayOverSse(url: string, headers: http.OutgoingHttpHeaders): Promise<{ ms: number; frames: number; bytes: number }> {
  const lastId = `id: ${EVENTS}\n`;
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const request = http.get(url, { headers: { ...headers, accept: 'text/event-stream' } }, (response) => {
      if (response.statusCode !== 200) {
        reject(new Error(`GET ${url} answered ${response.statusCode}`));
        response.resume();
        return;
      }
      response.setEncoding('utf8');
      let frames = 0;
      let bytes = 0;
      // The tail of the previous chunk, so a marker split across chunks is still found.
      let carry = '';
      response.on('data', (chunk: string) => {
        bytes += Buffer.byteLength(chunk);
        const text = carry + chunk;
        frames += countOf(text, '\nevent: ') - countOf(carry, '\nevent: ');
        if (text.includes(lastId)) {
          const ms = Number(process.hrtime.bigint() - started) / 1e6;
          request.destroy();
          resolve({ ms, frames, bytes });
          return;
        }
        carry = text.slice(-32);
      });
      response.on('error', reject);
    });
    request.on('error', (error) => {
      if (!request.destroyed) reject(error);
    });
  });
}

function countOf(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}

/** Plain keyset pages of the session's rows, parsed by pg; `seq <= after + page` is the bound the replay uses. */
const ROWS = 'SELECT * FROM events WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3';
const ROWS_BOUNDED = 'SELECT * FROM events WHERE session_id = $1 AND seq > $2 AND seq <= $2 + $3 ORDER BY seq LIMIT $3';

/** The floor: the same keyset pages of the same rows, straight from the pool, parsed by pg. */
async function replayOverSql(db: Db, sessionId: string, query = ROWS): Promise<{ ms: number; rows: number }> {
  const started = process.hrtime.bigint();
  let rows = 0;
  for (let after = 0; ;) {
    const page = await db.query<{ seq: number }>(query, [sessionId, after, REPLAY_PAGE_SIZE]);
    rows += page.rows.length;
    if (page.rows.length < REPLAY_PAGE_SIZE) break;
    after = page.rows[page.rows.length - 1]!.seq;
  }
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, rows };
}

/** The replay's own reads: every page as SSE text made by PostgreSQL, with no HTTP around them. */
async function replayFramesOverSql(db: Db, sessionId: string): Promise<{ ms: number; rows: number }> {
  const started = process.hrtime.bigint();
  let rows = 0;
  for (let after = 0; ;) {
    const page = await readEventFrames(db, sessionId, after, REPLAY_PAGE_SIZE);
    rows += page.count;
    if (page.count < REPLAY_PAGE_SIZE) break;
    after = page.lastSeq;
  }
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, rows };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round = (value: number, places = 2) => Math.round(value * 10 ** places) / 10 ** places;

const replay: Benchmark = {
  name: 'replay',
  description: `SSE replay of a ${EVENTS}-event session from seq 0, beside the same rows read with plain SQL; ${RUNS} runs each`,
  needs: ['postgres'],
  async run({ infra, log }) {
    // Reading events does not use Temporal: the client is never dialled.
    const api = await startBenchApi(infra);
    const { db, url, userId } = api;

    try {
      const { agent } = await deployRevision(db, {
        userId,
        bundle: minimalBundle(`replay-${randomBytes(4).toString('hex')}`, 'bench-model'),
        warnings: [],
      });
      const session = await createSession(db, { userId, agentId: agent.id, revision: agent.revision });
      log(`seeding ${EVENTS} events`);
      await seedDeltaEvents(db, session.id, EVENTS);

      const headers = api.auth;
      const streamUrl = `${url}/session/${session.id}/events`;
      log('warming up (one run each)');
      await replayOverSse(streamUrl, headers);
      await replayOverSql(db, session.id);
      await replayOverSql(db, session.id, ROWS_BOUNDED);
      await replayFramesOverSql(db, session.id);

      const sse: number[] = [];
      const sql: number[] = [];
      const sqlBounded: number[] = [];
      const sqlFrames: number[] = [];
      let bytes = 0;
      for (let run = 0; run < RUNS; run++) {
        const streamed = await replayOverSse(streamUrl, headers);
        if (streamed.frames !== EVENTS) throw new Error(`SSE replay delivered ${streamed.frames} frames, expected ${EVENTS}`);
        const floors = [
          await replayOverSql(db, session.id),
          await replayOverSql(db, session.id, ROWS_BOUNDED),
          await replayFramesOverSql(db, session.id),
        ];
        for (const read of floors) if (read.rows !== EVENTS) throw new Error(`SQL read ${read.rows} rows, expected ${EVENTS}`);
        sse.push(streamed.ms);
        sql.push(floors[0]!.ms);
        sqlBounded.push(floors[1]!.ms);
        sqlFrames.push(floors[2]!.ms);
        bytes = streamed.bytes;
        log(
          `run ${run + 1}: SSE ${streamed.ms.toFixed(0)} ms, SQL ${floors[0]!.ms.toFixed(0)} ms, ` +
            `bounded SQL ${floors[1]!.ms.toFixed(0)} ms, SQL frames ${floors[2]!.ms.toFixed(0)} ms`,
        );
      }

      const rate = (runs: number[]) => EVENTS / (median(runs) / 1000);
      const figures = (runs: number[]) => ({
        eventsPerSecond: Math.round(rate(runs)),
        medianMs: round(median(runs)),
        runsMs: runs.map((ms) => round(ms)),
      });
      return {
        events: EVENTS,
        runs: RUNS,
        pageSize: REPLAY_PAGE_SIZE,
        method: 'one client at a time; SSE timed from the request to the frame with the last id; medians of the runs',
        sse: { ...figures(sse), bytes },
        sql: figures(sql),
        // The rows of the replay's page query (seq bounded by the page), parsed by pg: its plan, no framing.
        sqlBounded: figures(sqlBounded),
        // The replay's page reads alone: PostgreSQL making the frames, no HTTP, no client.
        sqlFrames: figures(sqlFrames),
        // How many times slower the SSE replay is than the bare query (below 1: faster than pg making
        // objects of the rows, which the replay no longer does), then than the bounded one.
        ratio: round(rate(sql) / rate(sse)),
        ratioToBounded: round(rate(sqlBounded) / rate(sse)),
        // What HTTP, the feed and the client add to the replay's own reads.
        ratioToFrames: round(rate(sqlFrames) / rate(sse)),
      };
    } finally {
      // Sessions, events and agents go with the bench user.
      await api.close();
    }
  },
};

export default replay;
