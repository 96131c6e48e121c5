// The settings a turn runs with: read from configuration by the API and carried in the input of the
// session and turn workflows, so a replay sees the values the run started with (deterministic).
import type { ApprovalSettings } from './approvals.ts';

/** Timings and limits of turns, from configuration, carried in workflow input (deterministic). */
export interface TurnSettings {
  /** A model step that stops heartbeating this long is retried (e.g. its worker died). */
  stepHeartbeatTimeoutMs: number;
  /** Attempts of one model step before the turn fails. */
  stepMaxAttempts: number;
  stepRetryInitialIntervalMs: number;
  /** Model steps (tool round trips) in one turn before it stops. */
  maxSteps: number;
  /** An idle session workflow completes after this long; the next send starts it again. */
  sessionIdleMs: number;
  /** Defaults and limits of the approvals ask_my_user creates. */
  approvals: ApprovalSettings;
  /**
   * How long a call of a custom tool waits for the client's result before the model is told there was
   * none. Absent in the input of workflows started before it existed: they use the default.
   */
  clientToolTimeoutMs?: number;
  /**
   * The task timeout of the session workflows and approval workflows a turn waits on: how long a task a
   * worker took may go unanswered before another worker takes it over, so how long a worker's death
   * holds a turn whose task it ran. Absent in the input of workflows started before it existed (and
   * in tests' own settings): Temporal's default, 10 s.
   */
  workflowTaskTimeoutMs?: number;
}

/** CLIENT_TOOL_TIMEOUT_MS's default: a day. */
export const DEFAULT_CLIENT_TOOL_TIMEOUT_MS = 24 * 60 * 60 * 1000;
