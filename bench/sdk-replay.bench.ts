// Replay of a 50,000-event session through the SDK's `client.events()` beside the raw endpoint read
// with plain `fetch`, both forms: JSON pages (`events()` without follow, 1000 a page, against the same
// page loop by hand) and SSE (`events({follow: true})`, read until the last event, against the raw
// fetch SSE reader). The ratios are the figures to compare across runs: what the SDK adds (its
// transport, SSE parser, seq bookkeeping and async iteration) over the least a client can do.
import { randomBytes } from 'node:crypto';
import type { SessionEvent } from '../contract/events.ts';
import { Client } from '../sdk/src/index.ts';
import { deployRevision } from '../store/agents.ts';
import { createSession } from '../store/sessions.ts';
import { minimalBundle } from '../test/helpers/harness/bundles.ts';
import { startBenchApi } from './bench-api.ts';
import type { Benchmark } from './benchmark.ts';
import { readFetchSse } from './fetch-sse.ts';
import { seedDeltaEvents } from './seed-events.ts';

const EVENTS = 50_000;
const PAGE = 1000;
const RUNS = 5;

type Reader = () => Promise<number>;

/** Times one full read; the reader answers how many events it saw, which must be all of them, in order. */
async function timed(read: Reader): Promise<number> {
  const started = performance.now();
  const seen = await read();
  const ms = performance.now() - started;
  if (seen !== EVENTS) throw new Error(`read ${seen} events, expected ${EVENTS}`);
  return ms;
}

/** Counts events, refusing a gap, a repeat or a step back in seq. */
function inOrder(): { see(event: SessionEvent): void; count(): number } {
  let last = 0;
  return {
    see(event) {
      if (event.seq !== last + 1) throw new Error(`seq ${event.seq} after ${last}`);
      last = event.seq;
    },
    count: () => last,
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round = (value: number) => Math.round(value * 100) / 100;

function figures(runs: number[]) {
  return { eventsPerSecond: Math.round(EVENTS / (median(runs) / 1000)), medianMs: round(median(runs)), runsMs: runs.map(round) };
}

const sdkReplay: Benchmark = {
  name: 'sdk-replay',
  description: `replay of a ${EVENTS}-event session through the SDK's client.events() beside the raw endpoint with fetch (JSON pages and SSE); ${RUNS} runs each`,
  needs: ['postgres'],
  async run({ infra, log }) {
    const api = await startBenchApi(infra);
    try {
      const { agent } = await deployRevision(api.db, {
        userId: api.userId,
        bundle: minimalBundle(`sdk-replay-${randomBytes(4).toString('hex')}`, 'bench-model'),
        warnings: [],
      });
      const session = await createSession(api.db, { userId: api.userId, agentId: agent.id, revision: agent.revision });
      log(`seeding ${EVENTS} events`);
      await seedDeltaEvents(api.db, session.id, EVENTS);

      const client = new Client({ baseUrl: api.url, apiKey: api.key, maxRetries: 0 });
      const eventsUrl = `${api.url}/session/${session.id}/events`;
      const readers: Record<'rawPages' | 'sdkPages' | 'rawSse' | 'sdkSse', Reader> = {
        async rawPages() {
          const order = inOrder();
          for (let after: number | null = 0; after !== null;) {
            const response = await fetch(`${eventsUrl}?after=${after}&limit=${PAGE}`, { headers: api.auth });
            if (response.status !== 200) throw new Error(`GET events answered ${response.status}`);
            const page = (await response.json()) as { events: SessionEvent[]; next: number | null };
            for (const event of page.events) order.see(event);
            after = page.next;
          }
          return order.count();
        },
        async sdkPages() {
          const order = inOrder();
          for await (const event of client.events(session.id, { limit: PAGE })) order.see(event);
          return order.count();
        },
        async rawSse() {
          const order = inOrder();
          const response = await fetch(eventsUrl, { headers: { ...api.auth, accept: 'text/event-stream', 'last-event-id': '0' } });
          if (response.status !== 200 || !response.body) throw new Error(`GET events (SSE) answered ${response.status}`);
          // The stream stays open for live events: the reader cuts it at the last one.
          await readFetchSse(response.body, (event) => {
            order.see(event);
            return event.seq === EVENTS;
          });
          return order.count();
        },
        async sdkSse() {
          const order = inOrder();
          for await (const event of client.events(session.id, { after: 0, follow: true })) {
            order.see(event);
            if (event.seq === EVENTS) break;
          }
          return order.count();
        },
      };

      log('warming up (one run each)');
      for (const read of Object.values(readers)) await timed(read);
      const runs = { rawPages: [] as number[], sdkPages: [] as number[], rawSse: [] as number[], sdkSse: [] as number[] };
      for (let run = 0; run < RUNS; run++) {
        // Alternated within a run, so a slower moment of the machine weighs on both sides alike.
        for (const name of Object.keys(runs) as Array<keyof typeof runs>) runs[name].push(await timed(readers[name]));
        log(
          `run ${run + 1}: ` +
            Object.entries(runs)
              .map(([name, ms]) => `${name} ${ms.at(-1)!.toFixed(0)} ms`)
              .join(', '),
        );
      }
      return {
        events: EVENTS,
        runs: RUNS,
        pageSize: PAGE,
        method: 'one reader at a time, in this process; timed from the first request to the last event; medians of the runs',
        jsonPages: {
          raw: figures(runs.rawPages),
          sdk: figures(runs.sdkPages),
          // How many times longer the SDK's replay takes than the raw one (1: it adds nothing).
          ratio: round(median(runs.sdkPages) / median(runs.rawPages)),
        },
        sse: {
          raw: figures(runs.rawSse),
          sdk: figures(runs.sdkSse),
          ratio: round(median(runs.sdkSse) / median(runs.rawSse)),
        },
      };
    } finally {
      await api.close();
    }
  },
};

export default sdkReplay;
