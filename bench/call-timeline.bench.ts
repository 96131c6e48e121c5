// Where a tool step's time goes (docs/benchmarks.md, "Where a tool step's time goes"): sequential turns
// whose first model step calls a tool, with a fake model that answers at once, and for each the times of
// what happened between the caller's first model request and its second, read afterwards from the
// sessions' Temporal histories (event times) and their event logs (`at`: when the writing transaction
// began), as milliseconds from that first request; the median of each over the runs.
//   - builtin: the call is the built-in `current_time` tool;
//   - agent: the call is another agent's (docs/tools.md, "Calling other agents"), whose child session's
//     history and events are read too;
//   - direct: the child agent's own turn, a waiting send to a fresh session, from the send (what
//     `agent-calls` subtracts from an agent call's gap).
// A milestone is named by whose it is, where it was read, and its type, numbered when it repeats (the
// second workflow task started is `caller history WORKFLOW_TASK_STARTED #2`).
import http from 'node:http';
import proto from '@temporalio/proto';
import type { Benchmark } from './benchmark.ts';
import { startAgentStack, type AgentStack } from './agent-stack.ts';
import { CALLER, CHILD, deployAgentCallPair, requestOf } from './agent-call-pair.ts';
import { createPool, type Db } from '../store/db.ts';

const RUNS = 25;
const WARMUP = 3;
// The package is CommonJS: its namespace comes through the default export under Node's ESM loader.
const EVENT_TYPES = proto.temporal.api.enums.v1.EventType;

/** Samples by milestone; a milestone missing from some runs says in how many it came. */
class Timeline {
  private readonly samples = new Map<string, number[]>();
  add(what: string, ms: number): void {
    this.samples.set(what, [...(this.samples.get(what) ?? []), ms]);
  }
  medians(runs: number): { what: string; p50Ms: number; runs?: number }[] {
    return [...this.samples.entries()]
      .map(([what, values]) => {
        const sorted = [...values].sort((a, b) => a - b);
        return { what, p50Ms: sorted[Math.floor(sorted.length / 2)]!, ...(values.length < runs ? { runs: values.length } : {}) };
      })
      .sort((a, b) => a.p50Ms - b.p50Ms);
  }
}

/** Milestones of one session between `from` and `to` (ms since the epoch), as ms after `from`. */
async function sessionMilestones(
  stack: AgentStack,
  db: Db,
  sessionId: string,
  who: string,
  window: { from: number; to: number },
  add: Timeline['add'],
) {
  const inWindow = (at: number) => at >= window.from - 5 && at <= window.to + 20;
  const count = new Map<string, number>();
  const numbered = (what: string) => {
    const n = (count.get(what) ?? 0) + 1;
    count.set(what, n);
    return `${what} #${n}`;
  };
  const history = await stack.temporal.client.workflow.getHandle(`session:${sessionId}`).fetchHistory();
  for (const event of history.events ?? []) {
    const at = Number(event.eventTime?.seconds ?? 0) * 1000 + Math.round((event.eventTime?.nanos ?? 0) / 1e6);
    const type = String(EVENT_TYPES[event.eventType ?? 0]).replace(/^EVENT_TYPE_/, '');
    const what = numbered(`${who} history ${type}`);
    if (inWindow(at)) add(what, at - window.from);
  }
  const { rows } = await db.query<{ type: string; at: Date }>('SELECT type, at FROM events WHERE session_id = $1 ORDER BY seq', [
    sessionId,
  ]);
  for (const event of rows) {
    const what = numbered(`${who} event ${event.type}`);
    if (inWindow(event.at.getTime())) add(what, event.at.getTime() - window.from);
  }
}

const callTimeline: Benchmark = {
  name: 'call-timeline',
  description: `where a tool step's time goes: milestones of a built-in tool's call, another agent's call and a direct send; ${RUNS} sequential runs each`,
  needs: ['postgres', 'temporal'],
  async run({ infra, log }) {
    const stack = await startAgentStack(infra, log, { fake: { defaultScript: { text: 'done' } } });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const db = createPool(infra.databaseUrl(), 2);
    try {
      const { caller, child, calls } = await deployAgentCallPair(stack);
      const timelines = { builtin: new Timeline(), agent: new Timeline(), direct: new Timeline() };
      for (let run = -WARMUP; run < RUNS; run++) {
        for (const kind of ['builtin', 'agent'] as const) {
          calls(kind);
          const from = stack.fake.requests.length;
          const session = await stack.newSession(caller);
          await stack.send(agent, session, 'go');
          const first = await requestOf(stack, from, CALLER);
          const second = await requestOf(stack, from, CALLER, 2);
          if (run < 0) continue;
          const timeline = timelines[kind];
          const add = timeline.add.bind(timeline);
          const window = { from: first, to: second };
          add('caller second model request', second - first);
          await sessionMilestones(stack, db, session, 'caller', window, add);
          if (kind === 'agent') {
            add('child model request', (await requestOf(stack, from, CHILD)) - first);
            const { rows } = await db.query<{ id: string }>('SELECT id FROM sessions WHERE parent_session_id = $1', [session]);
            for (const { id } of rows) await sessionMilestones(stack, db, id, 'child', window, add);
          }
        }
        const directSession = await stack.newSession(child);
        const from = stack.fake.requests.length;
        const sentAt = Date.now();
        await stack.send(agent, directSession, 'help');
        const answeredAt = Date.now();
        if (run < 0) continue;
        const add = timelines.direct.add.bind(timelines.direct);
        add('answered', answeredAt - sentAt);
        add('model request', (await requestOf(stack, from, CHILD)) - sentAt);
        await sessionMilestones(stack, db, directSession, 'child', { from: sentAt, to: answeredAt }, add);
        if ((run + 1) % 5 === 0) log(`${run + 1}/${RUNS}`);
      }
      return {
        runs: RUNS,
        method:
          'sequential; ms from the caller’s first model request (direct: from the send), medians over the runs; history ' +
          'times are the Temporal server’s, event times when the writing transaction began, request times the fake model’s ' +
          '(API, worker and fake model share this process and its clock)',
        builtin: timelines.builtin.medians(RUNS),
        agent: timelines.agent.medians(RUNS),
        direct: timelines.direct.medians(RUNS),
      };
    } finally {
      agent.destroy();
      await db.end();
      await stack.close();
    }
  },
};

export default callTimeline;
