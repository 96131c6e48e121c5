// Approvals a team answers: who may answer (`approvers`), how many must agree (`quorum`), and whether a
// refusal by one is final (`denyWins`). The request's checks and the rule that turns votes into a
// decision. Pure code: the API decides by it under the approval's row lock (store/approval-votes.ts).
import { APPROVER_NAME, GROUP_PREFIX, ME, TEAM_LIMITS } from '../../contract/approvals.ts';
import { isRecord } from './is-record.ts';

export { APPROVER_NAME, GROUP_PREFIX, ME, TEAM_LIMITS };

/** Options that refuse, ignoring case: a vote for one decides at once under `denyWins`. */
const REFUSALS = ['deny', 'no', 'reject', 'decline'];

/** The option of `options` that refuses, if there is one. */
export function refusingOption(options: readonly string[]): string | null {
  return options.find((option) => REFUSALS.includes(option.toLowerCase())) ?? null;
}

/** Approvers added once an approval has waited `afterMs` (each step an event and a webhook). */
export interface Escalation {
  afterMs: number;
  to: string[];
}

/** As asked: names not yet expanded, `all` not yet a number. */
export interface TeamRequest {
  approvers: string[];
  quorum: number | 'all';
  /** Absent: true when more than one vote is needed and some option refuses. */
  denyWins?: boolean;
  /** The approvers who have not answered are asked again this often. */
  remind?: { everyMs: number };
  escalate?: Escalation[];
}

/** As recorded, once the names are seats. */
export interface TeamRule {
  quorum: number;
  denyWins: boolean;
  refusing: string | null;
}

export type ParsedTeam = { ok: true; team: TeamRequest | undefined } | { ok: false; error: string; path: string };

/**
 * Checks `approvers`, `quorum` and `denyWins` of a request (the rest is parseApprovalRequest's). Whether
 * each name is in the user's directory, and the quorum within the seats, are the caller's to check.
 */
export function parseTeam(input: Record<string, unknown>, options: readonly string[]): ParsedTeam {
  const { approvers, quorum, denyWins } = input;
  if (approvers === undefined) {
    for (const field of ['remind', 'escalate'])
      if (input[field] !== undefined) return { ok: false, error: `${field} is for approvers: give approvers with it.`, path: `/${field}` };
    if (quorum !== undefined) return { ok: false, error: 'quorum counts approvers: give approvers with it.', path: '/quorum' };
    if (denyWins !== undefined) return { ok: false, error: 'denyWins is a rule of approvers: give approvers with it.', path: '/denyWins' };
    return { ok: true, team: undefined };
  }
  const names = parseNames(approvers, '/approvers');
  if (!Array.isArray(names)) return names;
  let counted: number | 'all' = 1;
  if (quorum !== undefined) {
    if (quorum !== 'all' && (typeof quorum !== 'number' || !Number.isInteger(quorum) || quorum < 1 || quorum > TEAM_LIMITS.seats))
      return { ok: false, error: `quorum must be "all" or an integer from 1 to ${TEAM_LIMITS.seats}.`, path: '/quorum' };
    counted = quorum;
  }
  if (denyWins !== undefined && typeof denyWins !== 'boolean')
    return { ok: false, error: 'denyWins must be true or false.', path: '/denyWins' };
  if (denyWins === true && refusingOption(options) === null)
    return {
      ok: false,
      error: `denyWins needs an option that refuses (${REFUSALS.map((word) => `"${word}"`).join(', ')}); the options have none.`,
      path: '/denyWins',
    };
  const remind = parseRemind(input.remind);
  if (remind && 'error' in remind) return remind;
  const escalate = parseEscalations(input.escalate);
  if (escalate && !Array.isArray(escalate)) return escalate;
  return {
    ok: true,
    team: {
      approvers: names,
      quorum: counted,
      ...(denyWins !== undefined ? { denyWins } : {}),
      ...(remind ? { remind } : {}),
      ...(escalate ? { escalate } : {}),
    },
  };
}

type Refusal = { ok: false; error: string; path: string };

/** A list of approver names ("me", names, "group:<name>"), distinct. */
function parseNames(value: unknown, path: string): string[] | Refusal {
  if (!Array.isArray(value) || value.length < 1 || value.length > TEAM_LIMITS.approvers)
    return { ok: false, error: `${path.slice(1).replaceAll('/', '.')} must be an array of 1 to ${TEAM_LIMITS.approvers} names.`, path };
  const names: string[] = [];
  for (const [index, raw] of value.entries()) {
    const name = typeof raw === 'string' ? raw.trim() : '';
    const bare = name.startsWith(GROUP_PREFIX) ? name.slice(GROUP_PREFIX.length) : name;
    if (name !== ME && (!APPROVER_NAME.test(bare) || bare === ME))
      return {
        ok: false,
        error: `Approver "${String(raw)}" is not "me", an approver's name or "group:<name>" (names are lower-case letters, digits, "_", "." and "-").`,
        path: `${path}/${index}`,
      };
    if (names.includes(name)) return { ok: false, error: `Approver "${name}" is given twice.`, path: `${path}/${index}` };
    names.push(name);
  }
  return names;
}

function isDuration(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= TEAM_LIMITS.minIntervalMs && value <= TEAM_LIMITS.maxIntervalMs;
}

/** `remind: {everyMs}`: the approvers who have not answered are asked again this often. */
function parseRemind(value: unknown): { everyMs: number } | Refusal | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value) || Object.keys(value).some((key) => key !== 'everyMs') || !isDuration(value.everyMs))
    return {
      ok: false,
      error: `remind must be {everyMs}, an integer from ${TEAM_LIMITS.minIntervalMs} to ${TEAM_LIMITS.maxIntervalMs}.`,
      path: '/remind',
    };
  return { everyMs: value.everyMs };
}

/** `escalate: [{afterMs, to}]`: approvers added once the approval has waited `afterMs`, in order. */
function parseEscalations(value: unknown): Escalation[] | Refusal | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length < 1 || value.length > TEAM_LIMITS.escalations)
    return { ok: false, error: `escalate must be an array of 1 to ${TEAM_LIMITS.escalations} steps.`, path: '/escalate' };
  const steps: Escalation[] = [];
  for (const [index, step] of value.entries()) {
    const at = `/escalate/${index}`;
    if (!isRecord(step) || Object.keys(step).some((key) => key !== 'afterMs' && key !== 'to'))
      return { ok: false, error: 'Each escalation is {afterMs, to}.', path: at };
    if (!isDuration(step.afterMs))
      return {
        ok: false,
        error: `afterMs must be an integer from ${TEAM_LIMITS.minIntervalMs} to ${TEAM_LIMITS.maxIntervalMs}.`,
        path: `${at}/afterMs`,
      };
    if (steps.length > 0 && step.afterMs <= steps.at(-1)!.afterMs)
      return { ok: false, error: 'Escalations come in the order they fire: each afterMs after the one before.', path: `${at}/afterMs` };
    const to = parseNames(step.to, `${at}/to`);
    if (!Array.isArray(to)) return to;
    steps.push({ afterMs: step.afterMs, to });
  }
  return steps;
}

/**
 * The rule for these seats: `all` made their number, `denyWins` defaulted. A number asked stays as asked even
 * when the directory has lost approvers since it was checked: fewer approvers never make a weaker rule (the
 * approval then waits on an escalation or a delegation, or expires).
 */
export function teamRule(team: TeamRequest, seats: number, options: readonly string[]): TeamRule {
  const quorum = Math.max(1, team.quorum === 'all' ? seats : team.quorum);
  const refusing = refusingOption(options);
  return { quorum, denyWins: refusing !== null && (team.denyWins ?? quorum > 1), refusing };
}

/** Votes per option, every option present, in the options' order. */
export function tallyOf(options: readonly string[], choices: readonly string[]): Record<string, number> {
  const tally = Object.fromEntries(options.map((option) => [option, 0]));
  for (const choice of choices) if (Object.hasOwn(tally, choice)) tally[choice]! += 1;
  return tally;
}

/**
 * The decision the votes make, or undefined while they make none: a refusal under `denyWins`, else the
 * option that has `quorum` votes. Votes that cannot reach a quorum any more leave it undecided: an
 * escalation or a delegation may still add the votes, and its expiry ends it otherwise.
 */
export function decisionOf(rule: TeamRule, tally: Readonly<Record<string, number>>): string | undefined {
  if (rule.denyWins && rule.refusing !== null && (tally[rule.refusing] ?? 0) > 0) return rule.refusing;
  return Object.keys(tally).find((option) => tally[option]! >= rule.quorum);
}

/** "1 of 2 approved, waiting on alice and bob": the tally as a person reads it. */
export function tallyText(rule: TeamRule, tally: Readonly<Record<string, number>>, waitingOn: readonly string[]): string {
  const counted = Object.entries(tally)
    .filter(([, votes]) => votes > 0)
    .map(([option, votes]) => `${votes} of ${rule.quorum} ${option}`);
  const waiting = waitingOn.length > 0 ? `waiting on ${waitingOn.join(', ')}` : 'every approver has answered';
  return [counted.length > 0 ? counted.join(', ') : `0 of ${rule.quorum} answers`, waiting].join('; ');
}

/** Where a team's approval stands, for the people asked: the rule, the votes so far and who is still to answer. */
export function standingText(
  rule: TeamRule,
  options: readonly string[],
  seats: ReadonlyArray<{ name: string; vote: { choice: string } | null; delegatedTo: string | null }>,
): string {
  const tally = tallyOf(
    options,
    seats.flatMap((seat) => (seat.vote ? [seat.vote.choice] : [])),
  );
  const waiting = seats.filter((seat) => !seat.vote && seat.delegatedTo === null).map((seat) => seat.name);
  const refusal = rule.denyWins && rule.refusing ? ` (one "${rule.refusing}" decides)` : '';
  return `Several approvers decide: ${rule.quorum} votes for one option${refusal}. So far: ${tallyText(rule, tally, waiting)}.`;
}
