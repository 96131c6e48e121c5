// Follows a session's events with the SDK (client.events with follow: a replay from seq 1, then live
// over SSE, reconnecting by itself with Last-Event-ID after a dropped connection) and folds them into
// the conversation the page draws.
import { useEffect, useRef, useState } from 'preact/hooks';
import { APIUserAbortError, type SessionEvent } from '@agent-service/sdk';
import { useClient } from '../auth/client-context.ts';
import { applyEvent, emptyConversation, type Conversation } from './conversation.ts';

/** The raw log the page keeps for its event view: the latest events only, so a long session stays light. */
const KEPT_EVENTS = 500;

export interface Followed {
  conversation: Conversation;
  /** The latest events as they came (seq order), for the raw log. */
  events: SessionEvent[];
  /** The stream gave up (its reconnections ran out) or was refused. */
  error: unknown;
  /** Follows again, from the last event applied. */
  retry(): void;
}

export function useConversation(sessionId: string): Followed {
  const client = useClient();
  const [conversation, setConversation] = useState(emptyConversation);
  const [events, setEvents] = useState<SessionEvent[]>([]);
  const [error, setError] = useState<unknown>(undefined);
  const [attempt, setAttempt] = useState(0);
  // The seq of the last event applied: a retry follows on from there.
  const lastSeq = useRef(0);

  useEffect(() => {
    lastSeq.current = 0;
    setConversation(emptyConversation());
    setEvents([]);
  }, [sessionId]);

  useEffect(() => {
    const controller = new AbortController();
    setError(undefined);
    (async () => {
      const after = lastSeq.current;
      for await (const event of client.events(sessionId, { after, follow: true, signal: controller.signal })) {
        lastSeq.current = event.seq;
        setConversation((current) => applyEvent(current, event));
        setEvents((current) => [...current.slice(-(KEPT_EVENTS - 1)), event]);
      }
    })().catch((failure: unknown) => {
      if (!(failure instanceof APIUserAbortError) && !controller.signal.aborted) setError(failure);
    });
    return () => controller.abort();
  }, [client, sessionId, attempt]);

  return { conversation, events, error, retry: () => setAttempt((value) => value + 1) };
}
