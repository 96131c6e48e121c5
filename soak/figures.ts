// The soak's figures: what was sent and answered, how turns ended, and for each kill how long its
// replacement took and how long the turns it interrupted went without an event.
import { TERMINAL_TURN_EVENTS, type SessionEvent } from '../contract/events.ts';
import type { Kill } from './chaos.ts';
import type { SentTurn } from './driver.ts';

function tally<T>(items: readonly T[], key: (item: T) => string | undefined): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) {
    const name = key(item);
    if (name !== undefined) counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}

function spread(values: readonly number[]): { p50: number; max: number } | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: sorted[Math.ceil(sorted.length / 2) - 1]!, max: sorted.at(-1)! };
}

/**
 * For one kill: the turns in flight at that moment (started before it, ended after it) and, for each,
 * the time from the kill to its session's next event. The largest is how long the kill stalled a turn.
 */
function stallAfter(
  kill: Kill,
  stored: ReadonlyMap<string, SessionEvent[]>,
): { inFlight: number; stallMs: number | null; longest?: { sessionId: string; before: string; after: string } } {
  const stalls: Array<{ ms: number; sessionId: string; before: string; after: string }> = [];
  for (const [sessionId, events] of stored) {
    let startedAt: number | undefined;
    for (const event of events) {
      const at = Date.parse(event.at);
      if (event.type === 'turn.started') startedAt = at;
      if (TERMINAL_TURN_EVENTS.includes(event.type)) {
        if (startedAt !== undefined && startedAt <= kill.at && at > kill.at) {
          const nextIndex = events.findIndex((later) => Date.parse(later.at) > kill.at);
          const next = events[nextIndex]!;
          // The events on either side of the pause say where the turn was (a step streaming, a tool, a task).
          stalls.push({ ms: Date.parse(next.at) - kill.at, sessionId, before: events[nextIndex - 1]?.type ?? '', after: next.type });
        }
        startedAt = undefined;
      }
    }
  }
  if (stalls.length === 0) return { inFlight: 0, stallMs: null };
  const longest = stalls.reduce((most, stall) => (stall.ms > most.ms ? stall : most));
  return {
    inFlight: stalls.length,
    stallMs: longest.ms,
    longest: { sessionId: longest.sessionId, before: longest.before, after: longest.after },
  };
}

export function soakFigures(input: {
  turns: readonly SentTurn[];
  kills: readonly Kill[];
  stored: ReadonlyMap<string, SessionEvent[]>;
  approvals: number;
  readers: { events: number; reconnects: number };
  retries: number;
  /** What the retried requests had met. */
  failures: Record<string, number>;
  refusedConnections: number;
}) {
  const { turns, kills, stored } = input;
  const accepted = turns.filter((turn) => turn.messageId !== undefined);
  const approvals = turns.flatMap((turn) => turn.approvals);
  const toolResults = turns.flatMap((turn) => turn.toolResults);
  const regenerations = turns.flatMap((turn) => (turn.regenerated ? [turn.regenerated] : []));
  const perKill = kills.map((kill) => ({ ...kill, at: new Date(kill.at).toISOString(), ...stallAfter(kill, stored) }));
  return {
    sends: {
      accepted: accepted.length,
      refused: turns.filter((turn) => turn.refused).length,
      byKind: tally(accepted, (turn) => turn.kind),
      byMode: tally(accepted, (turn) => turn.mode),
    },
    turns: tally(accepted, (turn) => turn.end ?? 'no end'),
    approvals: {
      asked: input.approvals,
      answers: tally(approvals, (answer) => String(answer.status)),
      answerMs: spread(approvals.map((answer) => answer.ms)),
    },
    compactions: [...stored.values()].reduce((sum, events) => sum + events.filter((event) => event.type === 'session.compacted').length, 0),
    regenerations: {
      asked: regenerations.length,
      // 409 or 404 after a retry: the first attempt was taken, its answer lost with a killed API.
      answers: tally(regenerations, (regenerated) => `${regenerated.status}${regenerated.attempts > 1 ? ' after a retry' : ''}`),
      turns: tally(regenerations, (regenerated) => regenerated.end ?? 'no end'),
    },
    clientTools: {
      called: toolResults.length,
      answers: tally(toolResults, (answer) => String(answer.status)),
      answerMs: spread(toolResults.map((answer) => answer.ms)),
    },
    kills: {
      total: kills.length,
      byTarget: tally(kills, (kill) => kill.target.replace(/-\d+$/, '')),
      restartMs: spread(kills.map((kill) => kill.restartMs)),
      turnStallMs: spread(perKill.flatMap((kill) => (kill.stallMs === null ? [] : [kill.stallMs]))),
      each: perKill,
    },
    clients: {
      readerEvents: input.readers.events,
      readerReconnects: input.readers.reconnects,
      requestRetries: input.retries,
      retriedBecause: input.failures,
      connectionsRefusedByEveryApi: input.refusedConnections,
    },
  };
}
