// Approvals as every part sees them: the request (from the ask_my_user tool, a workflow node or the
// API), its limits, its record and its answer. Pure code: the approval and turn workflows import it.
import { isRecord } from './is-record.ts';
import { parseTeam, type TeamRequest } from './approval-quorum.ts';
import { APPROVAL_LIMITS } from '../../contract/approvals.ts';
import type { AnswerVia } from '../../contract/approvals.ts';

export { APPROVAL_LIMITS };

export type ApprovalStatus = 'unanswered' | 'answered' | 'expired';
export type ApprovalSource = 'tool' | 'workflow' | 'api';

/** Without options, a question is answered yes or no (a note carries anything more). */
export const DEFAULT_OPTIONS: readonly string[] = ['yes', 'no'];

/** Timings of approvals, from configuration, carried in workflow input (deterministic). */
export interface ApprovalSettings {
  defaultExpiryMs: number;
  maxExpiryMs: number;
  /** Attempts of one channel's dispatch before it is recorded as failed and the next one goes. */
  dispatchMaxAttempts: number;
  dispatchRetryInitialMs: number;
}

export interface ApprovalRequest {
  question: string;
  options: string[];
  expiresInMs: number;
  /**
   * Asks its user to sign in to this MCP server of theirs (workflows/connect-wait.ts): its link starts the
   * sign-in, and only the sign-in finishing answers it (with CONNECT_OPTION).
   */
  connect?: { serverId: string };
  /** Who may answer and how many must agree (lib/workflow-safe/approval-quorum.ts); absent, anyone holding it, once. */
  team?: TeamRequest;
}

/** The one option of a connect approval, the answer its sign-in gives. */
export const CONNECT_OPTION = 'Connect';

export type ParsedRequest =
  { ok: true; request: ApprovalRequest } | { ok: false; error: string; /** Where, when one field is at fault. */ path?: string };

/**
 * Checks `{question, options?, expiresInMs?}` and applies defaults. The error is a sentence a model
 * (tool input) or a person (API) can act on. Options are trimmed, must be distinct ignoring case
 * (replies are matched that way), and may not be bare numbers (a reply "2" means the second one).
 */
export function parseApprovalRequest(
  input: unknown,
  settings: Pick<ApprovalSettings, 'defaultExpiryMs' | 'maxExpiryMs'>,
  /** The request may name its approvers (`approvers`, `quorum`, `denyWins`). */
  allow: { team?: boolean } = {},
): ParsedRequest {
  if (!isRecord(input)) return { ok: false, error: 'Give an object {question, options?, expiresInMs?}.' };
  const known = ['question', 'options', 'expiresInMs', ...(allow.team ? ['approvers', 'quorum', 'denyWins', 'remind', 'escalate'] : [])];
  const unknown = Object.keys(input).filter((key) => !known.includes(key));
  if (unknown.length > 0) return { ok: false, error: `Unknown field(s): ${unknown.join(', ')}. Give ${known.join(', ')} only.` };
  const question = typeof input.question === 'string' ? input.question.trim() : '';
  if (!question) return { ok: false, error: 'question must be a non-empty string.' };
  if (question.length > APPROVAL_LIMITS.questionChars)
    return { ok: false, error: `question must be at most ${APPROVAL_LIMITS.questionChars} characters.` };

  let options = [...DEFAULT_OPTIONS];
  if (input.options !== undefined) {
    if (!Array.isArray(input.options) || input.options.length < 1 || input.options.length > APPROVAL_LIMITS.options)
      return { ok: false, error: `options must be an array of 1 to ${APPROVAL_LIMITS.options} strings.` };
    options = [];
    for (const raw of input.options) {
      const option = typeof raw === 'string' ? raw.trim() : '';
      if (!option || option.length > APPROVAL_LIMITS.optionChars)
        return { ok: false, error: `Each option must be a non-empty string of at most ${APPROVAL_LIMITS.optionChars} characters.` };
      if (/^\d+$/.test(option))
        return { ok: false, error: `Option "${option}" is a bare number; replies name options by number, so use words.` };
      if (options.some((known) => known.toLowerCase() === option.toLowerCase()))
        return { ok: false, error: `Option "${option}" is given twice (options are compared ignoring case).` };
      options.push(option);
    }
  }

  let expiresInMs = settings.defaultExpiryMs;
  if (input.expiresInMs !== undefined) {
    const value = input.expiresInMs;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < APPROVAL_LIMITS.minExpiryMs || value > settings.maxExpiryMs)
      return { ok: false, error: `expiresInMs must be an integer from ${APPROVAL_LIMITS.minExpiryMs} to ${settings.maxExpiryMs}.` };
    expiresInMs = value;
  }
  const team = parseTeam(input, options);
  if (!team.ok) return { ok: false, error: team.error, path: team.path };
  return { ok: true, request: { question, options, expiresInMs, ...(team.team ? { team: team.team } : {}) } };
}

/** The options as a person sees them in a chat, numbered from 1: a reply may name an option by that number. */
export function numberedOptions(options: readonly string[]): string[] {
  return options.map((option, index) => `${index + 1}. ${option}`);
}

/** The option a choice names, compared ignoring case and surrounding space; undefined if none. */
export function matchOption(options: readonly string[], choice: string): string | undefined {
  const wanted = choice.trim().toLowerCase();
  return options.find((option) => option.toLowerCase() === wanted);
}

/** What the approval workflow is started with. The record is written by its first activity. */
export interface ApprovalWorkflowInput {
  approvalId: string;
  userId: string;
  source: ApprovalSource;
  /** The agent whose channels carry the question; without one, only the API and links answer it. */
  agentId?: string;
  revision?: number;
  /** Providers of the agent's channels to send over (POST /approval's `channels`); without it, every channel. */
  channels?: string[];
  sessionId?: string;
  turnId?: string;
  toolCallId?: string;
  request: ApprovalRequest;
  settings: ApprovalSettings;
  /**
   * When the API took the request (POST /approval, ISO 8601) and wrote its record: the expiry counts from
   * then, as the record says. Absent (asked by a turn or a run, or started before the API wrote records),
   * it counts from the workflow's start.
   */
  createdAt?: string;
}

export interface ApprovalAnswer {
  choice: string;
  note: string | null;
  via: AnswerVia;
}

/** The approval workflow's result: what the asking turn or workflow node continues with. */
export type ApprovalOutcome =
  { status: 'answered'; choice: string; note: string | null; answeredAt: string } | { status: 'expired'; expiredAt: string };

/**
 * The name of the signal that hands an approval's workflow an answer stored already (workflows/approval.ts,
 * answeredSignal): shared here so that an activity can send it without importing the workflow.
 */
export const ANSWERED_SIGNAL = 'answered';
