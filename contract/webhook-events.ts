// The events a webhook subscription can name and the data each one carries. Imported by
// the API (validation, OpenAPI), the activities and the workflows, so it does no I/O.
import type { TokenUsage } from './events.ts';

export const WEBHOOK_EVENTS = [
  'session.completed',
  'session.failed',
  'approval.requested',
  'approval.answered',
  'approval.expired',
  'approval.escalated',
  'trigger.fired',
  'agent.changed',
  'eval.completed',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];

export function isWebhookEventType(value: string): value is WebhookEventType {
  return (WEBHOOK_EVENTS as readonly string[]).includes(value);
}

interface TurnEndData {
  sessionId: string;
  agentId: string;
  revision: number;
  /** The id of the user message whose turn ended. */
  turnId: string;
}

/** `data` of each event type; types not listed are not emitted yet. */
export interface WebhookEventData {
  /** A turn completed and no other turn is queued: the session is idle, waiting for its user. */
  'session.completed': TurnEndData & { status: 'completed'; usage: TokenUsage; costUsd: number | null };
  /** A turn failed (the model or a tool could not answer); its `turn.failed` event says the same. */
  'session.failed': TurnEndData & { status: 'failed'; error: string };
  /**
   * A question now waits for its user. Never its answer links or token: the delivery log is readable
   * with `read`, and a link answers. Links go only to the agent's channels (e.g. a `webhook` userChannel
   * with answerVia signed-url) and to keys with approvals:answer (GET /approval/<id>).
   */
  'approval.requested': ApprovalData & {
    question: string;
    options: string[];
    expiresAt: string;
    /** Present when a turn waits for its user to sign in to this MCP server (its id); answered by signing in. */
    connect?: { serverId: string };
  };
  /** `approver` and `tally`: an approval a team answers (docs/approvals.md), the approver whose vote decided it and the votes per option then. */
  'approval.answered': ApprovalData & {
    choice: string;
    note: string | null;
    answeredAt: string;
    approver?: string;
    tally?: Record<string, number>;
  };
  'approval.expired': ApprovalData & { expiredAt: string };
  /** An approval a team answers waited past escalation step `step` (from 0): these approvers were added and asked. */
  'approval.escalated': ApprovalData & { step: number; approvers: string[] };
  /** A cron or webhook trigger fired (or a run was started): a fresh session is working on it. */
  'trigger.fired': {
    agentId: string;
    sessionId: string;
    trigger: { kind: 'cron' | 'webhook' | 'api'; index?: number; expression?: string; timezone?: string };
    firedAt: string;
    workflow: string | null;
    runId: string | null;
  };
  /**
   * What serves an agent's new sessions changed, or a revision was staged: a deploy, a staged deploy,
   * a promote, a rollback or new traffic shares (contract/operations/revisions.ts).
   */
  'agent.changed': {
    agentId: string;
    agentName: string;
    change: 'deployed' | 'staged' | 'promoted' | 'rolled_back' | 'traffic';
    changeId: string;
    revision: number | null;
    liveRevision: number;
    previousLiveRevision: number | null;
    traffic: Record<string, number>;
    keyId: string | null;
    at: string;
  };
  /** An eval run ended (completed, or cancelled): its summary; GET /evals/<evalId> has every case. */
  'eval.completed': {
    evalId: string;
    agentId: string;
    agentName: string;
    revision: number;
    status: 'completed' | 'cancelled';
    summary: { cases: number; passed: number; failed: number; errors: number; cancelled: number; pending: number; costUsd: number };
  };
}

interface ApprovalData {
  approvalId: string;
  /** The session that asked (null for approvals created by the API without one). */
  sessionId: string | null;
  agentId: string | null;
}

export type PublishedEvent = { [T in keyof WebhookEventData]: { type: T; data: WebhookEventData[T] } }[keyof WebhookEventData];
