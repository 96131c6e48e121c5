// The approvers an approval names (POST /approval, a bundle's tool policy or graph node, ask_my_user) are checked
// against the user's directory where they are named: each name an approver or group of theirs, at most
// TEAM_LIMITS.seats people, a quorum within them. Each problem is located under `at`. The names are made
// seats again when an approval is asked, from the directory as it is then (store/approval-votes.ts).
import { GROUP_PREFIX, TEAM_LIMITS } from '../contract/approvals.ts';
import type { FieldError } from '../lib/workflow-safe/errors.ts';
import { resolveApprovers } from './approvers.ts';
import type { Db } from './db.ts';

interface NamedTeam {
  approvers: readonly string[];
  quorum?: number | 'all';
  escalate?: ReadonlyArray<{ afterMs: number; to: readonly string[] }>;
  /** When the approval expires, where known: an escalation must come before. */
  expiresInMs?: number;
}

function unknownName(name: string): string {
  return name.startsWith(GROUP_PREFIX)
    ? `you have no approver group "${name.slice(GROUP_PREFIX.length)}"`
    : `you have no approver "${name}" (PUT /approver/<name> adds one)`;
}

export async function teamProblems(db: Db, userId: string, team: NamedTeam, at = ''): Promise<FieldError[]> {
  const problems: FieldError[] = [];
  const lists = [
    { path: `${at}/approvers`, names: team.approvers },
    ...(team.escalate ?? []).map((step, index) => ({ path: `${at}/escalate/${index}/to`, names: step.to })),
  ];
  // Every person the approval may come to have, escalations included, counted once against the cap.
  const people = new Set<string>();
  for (const [index, { path, names }] of lists.entries()) {
    const { seats, unknown } = await resolveApprovers(db, userId, names);
    for (const seat of seats) people.add(seat.name);
    for (const name of unknown) problems.push({ path: `${path}/${names.indexOf(name)}`, message: unknownName(name) });
    if (index === 0 && unknown.length === 0 && typeof team.quorum === 'number' && team.quorum > seats.length)
      problems.push({ path: `${at}/quorum`, message: `is ${team.quorum}, more than the ${seats.length} approvers` });
  }
  if (people.size > TEAM_LIMITS.seats)
    problems.push({
      path: `${at}/approvers`,
      message: `names ${people.size} people with its escalations, groups counted by their members: at most ${TEAM_LIMITS.seats}`,
    });
  if (team.expiresInMs !== undefined)
    for (const [index, step] of (team.escalate ?? []).entries())
      if (step.afterMs >= team.expiresInMs)
        problems.push({ path: `${at}/escalate/${index}/afterMs`, message: `is not before the approval expires (${team.expiresInMs} ms)` });
  return problems;
}
