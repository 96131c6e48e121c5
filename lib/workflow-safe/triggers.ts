// Triggers as the workflows see them: which trigger fired, the input of one firing, and the first
// message of the fresh session it opens. Pure code: workflows import it.
import type { TurnSettings } from './turn-settings.ts';

export type TriggerRef =
  | { kind: 'cron'; index: number; expression: string; timezone: string }
  | { kind: 'webhook'; index: number }
  /** POST /agent/<name>/workflow/<wf>: a run started through the API. */
  | { kind: 'api' };

/** One firing: a fresh session, then a plain message or a run of a workflow graph. */
export interface TriggerRunInput {
  userId: string;
  agentId: string;
  /** The revision whose trigger fired (a schedule is updated on every deploy). */
  revision: number;
  trigger: TriggerRef;
  /** Webhook body (JSON kept as its text), a cron trigger's `message`, or a run's `input`. */
  payload: string | null;
  /** Run this workflow graph of the bundle instead of sending a message. */
  workflow?: string;
  /** Given when the API opened the session already (webhook triggers, runs): it answers with these ids. */
  sessionId?: string;
  messageId?: string;
  runId?: string;
  /** When it fired; a scheduled firing uses its nominal time instead. */
  firedAt?: string;
  settings: TurnSettings;
}

/** The first user message of a session a cron trigger opened: which trigger, and when. */
export function cronMessage(trigger: Extract<TriggerRef, { kind: 'cron' }>, firedAt: string, message: string | null): string {
  const head = `Scheduled trigger fired: cron "${trigger.expression}" (${trigger.timezone}), scheduled for ${firedAt}.`;
  return message ? `${head}\n\n${message}` : head;
}

/** A webhook body as the first user message; an empty body still says what happened. */
export function webhookMessage(payload: string | null): string {
  return payload && payload.trim() !== '' ? payload : 'Webhook trigger fired with an empty body.';
}
