// How an approval's answer arrived (`answeredVia` of an approval, `via` of `approval.answered`): the
// authenticated API, a signed link, a provider's reply, or (`replay`) the recorded answer an eval case
// replaying a session gave in its place (docs/evals.md).
export const ANSWER_VIAS = ['api', 'link', 'slack', 'telegram', 'email', 'webhook', 'replay'] as const;
export type AnswerVia = (typeof ANSWER_VIAS)[number];

/** The sizes of a question and its answer, the same wherever an approval is asked or answered. */
export const APPROVAL_LIMITS = {
  questionChars: 4000,
  options: 10,
  optionChars: 100,
  noteChars: 4000,
  minExpiryMs: 1_000,
} as const;

/**
 * An approval's question, options and expiry as JSON Schema: the API's body (POST /approvals) and the
 * input of the built-in ask_my_user tool (lib/workflow-safe/ask-my-user.ts) take the same, each adding its own words.
 */
export const APPROVAL_QUESTION_PROPERTIES = {
  question: { type: 'string', minLength: 1, maxLength: APPROVAL_LIMITS.questionChars },
  options: {
    type: 'array',
    minItems: 1,
    maxItems: APPROVAL_LIMITS.options,
    items: { type: 'string', minLength: 1, maxLength: APPROVAL_LIMITS.optionChars },
  },
  expiresInMs: { type: 'integer', minimum: APPROVAL_LIMITS.minExpiryMs },
} as const;

/** In an approval's `approvers`: its user, answering by API, dashboard, CLI, links they hold or their agent's channels. */
export const ME = 'me';
/** In an approval's `approvers`: every member of one of the user's approver groups. */
export const GROUP_PREFIX = 'group:';
/** Approver and group names: lower case, so a name read from a chat or a mail matches as typed. */
export const APPROVER_NAME = /^[a-z0-9][a-z0-9_.-]{0,62}$/;

/** An approval a team answers (docs/approvals.md, "Several approvers"). */
export const TEAM_LIMITS = {
  /** Names an approval may give (a group counts once). */
  approvers: 20,
  /** Seats once groups are expanded (escalations and delegations included). */
  seats: 50,
  /** Escalation steps of one approval. */
  escalations: 5,
  /** Reminders of one approval: each asks every waiting approver again, and each is history its workflow keeps. */
  reminders: 20,
  /** Bounds of a reminder's interval and of an escalation's wait. */
  minIntervalMs: 1_000,
  maxIntervalMs: 366 * 24 * 3_600_000,
} as const;
