// Where a turn's time goes, read back from its events' `at` (PostgreSQL's now(): the start of the
// transaction that wrote the event, to the ms): from the user message to turn.started (session workflow →
// first activity), the model step (turn.started → the reply's message.completed), and the end
// (→ turn.completed). What the client saw beyond those is the send path (HTTP, auth, the
// update-with-start up to the user message) plus the wake of the waiting answer.
import type http from 'node:http';
import type { SessionEvent } from '../contract/events.ts';
import { expectStatus, timedRequest, type TimedResponse } from './http-json.ts';
import { summarize, type Latency } from './measure.ts';

export interface TurnPhases {
  toTurnStarted: Latency;
  modelStep: Latency;
  toTurnCompleted: Latency;
  /** Client time minus user message → turn.completed. */
  outsideEvents: Latency;
}

interface EventPage {
  events: SessionEvent[];
  next: number | null;
}

async function sessionEvents(
  agent: http.Agent,
  url: string,
  headers: http.OutgoingHttpHeaders,
  sessionId: string,
): Promise<SessionEvent[]> {
  const all: SessionEvent[] = [];
  for (let after: number | null = 0; after !== null;) {
    const response: TimedResponse<EventPage> = await timedRequest<EventPage>(
      agent,
      `${url}/session/${sessionId}/events?after=${after}&limit=1000`,
      {
        headers,
        timeoutMs: 30_000,
      },
    );
    const page: EventPage = expectStatus(response, 200, 'GET /session/<id>/events');
    all.push(...page.events);
    after = page.next;
  }
  return all;
}

/** `turns`: turn id (the user message's id) → the time the client measured for it. */
export async function turnPhases(
  agent: http.Agent,
  url: string,
  headers: http.OutgoingHttpHeaders,
  sessionIds: readonly string[],
  turns: ReadonlyMap<string, number>,
): Promise<TurnPhases> {
  const phases = {
    toTurnStarted: [] as number[],
    modelStep: [] as number[],
    toTurnCompleted: [] as number[],
    outsideEvents: [] as number[],
  };
  for (const sessionId of sessionIds) {
    const at = new Map<string, number>();
    for (const event of await sessionEvents(agent, url, headers, sessionId)) {
      const time = Date.parse(event.at);
      if (event.type === 'message.created' && event.message.role === 'user') at.set(`user:${event.message.id}`, time);
      if (event.type === 'message.completed' && event.message.role === 'assistant' && event.message.turnId) {
        at.set(`reply:${event.message.turnId}`, time);
      }
      if (event.type === 'turn.started' || event.type === 'turn.completed') at.set(`${event.type}:${event.turnId}`, time);
    }
    for (const [turnId, clientMs] of turns) {
      const user = at.get(`user:${turnId}`);
      const started = at.get(`turn.started:${turnId}`);
      const reply = at.get(`reply:${turnId}`);
      const completed = at.get(`turn.completed:${turnId}`);
      if (user === undefined || started === undefined || reply === undefined || completed === undefined) continue;
      phases.toTurnStarted.push(started - user);
      phases.modelStep.push(reply - started);
      phases.toTurnCompleted.push(completed - reply);
      phases.outsideEvents.push(clientMs - (completed - user));
    }
  }
  if (phases.toTurnStarted.length !== turns.size) {
    throw new Error(`found the events of ${phases.toTurnStarted.length} of ${turns.size} measured turns`);
  }
  return {
    toTurnStarted: summarize(phases.toTurnStarted),
    modelStep: summarize(phases.modelStep),
    toTurnCompleted: summarize(phases.toTurnCompleted),
    outsideEvents: summarize(phases.outsideEvents),
  };
}
