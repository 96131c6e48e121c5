// The events of the agents a session's turn calls, relayed on its SSE stream when the client asks
// (`?children=1`; docs/tools.md, "Calling other agents"): each `subagent.started` the stream writes
// starts following that child session's turn, whose events go out as `subagent.event` frames with no
// `id:` (they are not the caller's events, so Last-Event-ID keeps naming the caller's). A child's own
// calls are followed the same way. A relay ends at its child's turn end; the stream, before it ends,
// lets its relays reach theirs (a child's turn ends before its caller's can).
import type { RelayedEvent, SessionEvent } from '../../contract/events.ts';
import { isTurnEnd, turnEventFilter } from '../../contract/turn-events.ts';
import type { Db } from '../../store/db.ts';
import type { EventHub } from './event-hub.ts';

/** Longest a stream that reached its end waits for its relays to reach their children's turn ends. */
const SETTLE_MS = 5_000;
/**
 * Children followed at once by one stream. More wait their turn, in order: a replay of a long session
 * relays its past calls a few at a time, each reading one finished turn.
 */
const MAX_RELAYS = 8;

type Started = Extract<SessionEvent, { type: 'subagent.started' }>;

export function relayFrame(relayed: RelayedEvent): string {
  return `event: subagent.event\ndata: ${JSON.stringify(relayed)}\n\n`;
}

/**
 * Where the child's turn starts in its log: just before its message (a message's position is the seq of
 * its `message.created`), or, not written yet, after everything so far (read in the same statement, so
 * the message's event, when it comes, is past it).
 */
async function relayStart(db: Db, started: Started): Promise<number> {
  const { rows } = await db.query<{ position: string | null; last_seq: string }>(
    `SELECT (SELECT position FROM messages WHERE id = $2 AND session_id = $1) AS position, last_seq FROM sessions WHERE id = $1`,
    [started.childSessionId, started.childMessageId],
  );
  const row = rows[0];
  if (!row) return 0;
  return row.position !== null ? Number(row.position) - 1 : Number(row.last_seq);
}

export class ChildRelay {
  private readonly running = new Set<Promise<void>>();
  private readonly stop = new AbortController();
  /** Calls seen while MAX_RELAYS were followed, oldest first. */
  private readonly waiting: Started[] = [];

  constructor(
    private readonly deps: { db: Db; hub: EventHub; log: { warn: (details: object, message: string) => void } },
    /** The session whose stream this is. */
    private readonly sessionId: string,
    /** Writes SSE text to the stream, honouring its backpressure. */
    private readonly write: (chunk: string) => Promise<void>,
    streamClosed: AbortSignal,
  ) {
    streamClosed.addEventListener('abort', () => this.stop.abort(), { once: true });
  }

  /** An event the stream wrote (the session's own, or a relayed child's): a call it starts is followed. */
  see(event: SessionEvent): void {
    if (event.type !== 'subagent.started' || this.stop.signal.aborted) return;
    if (this.running.size >= MAX_RELAYS) this.waiting.push(event);
    else this.follow(event);
  }

  private follow(started: Started): void {
    const relay = this.relay(started)
      .catch((error: unknown) => {
        if (!this.stop.signal.aborted) this.deps.log.warn({ err: error, childSessionId: started.childSessionId }, 'child relay failed');
      })
      .finally(() => {
        this.running.delete(relay);
        const next = this.waiting.shift();
        if (next && !this.stop.signal.aborted) this.follow(next);
      });
    this.running.add(relay);
  }

  /** Calls still open that began before the stream did (a reconnecting client): followed from their turn's start. */
  async resume(afterSeq: number): Promise<void> {
    if (afterSeq <= 0) return;
    const { rows } = await this.deps.db.query<{ data: Omit<Started, 'seq' | 'type' | 'at' | 'sessionId'>; seq: string; at: Date }>(
      `SELECT s.data, s.seq, s.at FROM events s
        WHERE s.session_id = $1 AND s.type = 'subagent.started' AND s.seq <= $2
          AND NOT EXISTS (SELECT 1 FROM events e WHERE e.session_id = s.session_id AND e.type IN ('subagent.completed', 'subagent.failed')
                          AND e.data->>'toolCallId' = s.data->>'toolCallId' AND e.data->>'messageId' = s.data->>'messageId')
        ORDER BY s.seq`,
      [this.sessionId, afterSeq],
    );
    for (const row of rows)
      this.see({ ...row.data, seq: Number(row.seq), type: 'subagent.started', at: row.at.toISOString(), sessionId: this.sessionId });
  }

  /** The stream reached its end: the relays (and those waiting) reach their children's turn ends first (SETTLE_MS at most). */
  async settle(): Promise<void> {
    const deadline = Date.now() + SETTLE_MS;
    while (this.running.size > 0 && Date.now() < deadline) {
      const timer = new Promise<void>((resolve) => setTimeout(resolve, deadline - Date.now()).unref());
      await Promise.race([Promise.race([...this.running]).then(() => undefined), timer]);
    }
    this.stop.abort();
  }

  private async relay(started: Started): Promise<void> {
    const turnId = started.childMessageId;
    const ours = turnEventFilter(turnId);
    const afterSeq = await relayStart(this.deps.db, started);
    for await (const batch of this.deps.hub.follow(started.childSessionId, afterSeq, this.stop.signal)) {
      let chunk = '';
      let ended = false;
      for (const event of batch) {
        if (ours(event)) {
          chunk += relayFrame({
            type: 'subagent.event',
            sessionId: this.sessionId,
            parentSessionId: started.sessionId,
            toolCallId: started.toolCallId,
            agent: started.agent,
            event,
          });
          this.see(event);
        }
        if (isTurnEnd(event, turnId)) {
          ended = true;
          break;
        }
      }
      if (chunk) await this.write(chunk);
      if (ended) return;
    }
  }
}
