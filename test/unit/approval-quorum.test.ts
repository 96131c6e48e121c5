// Approvals a team answers: the checks of `approvers`, `quorum` and `denyWins`, the rule made for the
// seats, and how votes become a decision (lib/workflow-safe/approval-quorum.ts).
import { describe, expect, it } from 'vitest';
import {
  decisionOf,
  parseTeam,
  refusingOption,
  tallyOf,
  tallyText,
  teamRule,
  TEAM_LIMITS,
  type TeamRule,
} from '../../lib/workflow-safe/approval-quorum.ts';
import { parseApprovalRequest } from '../../lib/workflow-safe/approvals.ts';

const YES_NO = ['yes', 'no'];
const COLOURS = ['red', 'blue', 'green'];

function failure(input: Record<string, unknown>, options: readonly string[] = YES_NO): { error: string; path: string } {
  const parsed = parseTeam(input, options);
  if (parsed.ok) throw new Error(`expected a failure, got ${JSON.stringify(parsed.team)}`);
  return { error: parsed.error, path: parsed.path };
}

describe('parseTeam', () => {
  it('gives no team when nothing of one is asked', () => {
    expect(parseTeam({ question: 'Ship?' }, YES_NO)).toEqual({ ok: true, team: undefined });
  });

  it('refuses quorum or denyWins without approvers, at their path', () => {
    expect(failure({ quorum: 2 }).path).toBe('/quorum');
    expect(failure({ quorum: 2 }).error).toMatch(/approvers/);
    expect(failure({ denyWins: true }).path).toBe('/denyWins');
    expect(failure({ denyWins: false }).path).toBe('/denyWins');
  });

  it('takes "me", names and groups, trimmed, with quorum 1 by default and no denyWins', () => {
    expect(parseTeam({ approvers: ['me', ' alice ', 'group:ops', 'b.o_b-2'] }, YES_NO)).toEqual({
      ok: true,
      team: { approvers: ['me', 'alice', 'group:ops', 'b.o_b-2'], quorum: 1 },
    });
  });

  it.each([
    ['upper case', 'Alice'],
    ['a space', 'al ice'],
    ['a group with no name', 'group:'],
    ['a group named me', 'group:me'],
    ['a group with an upper-case name', 'group:Ops'],
    ['an empty name', ''],
    ['a name starting with "."', '.alice'],
    ['not a string', 42],
  ])('refuses %s at its index', (_, name) => {
    const { error, path } = failure({ approvers: ['alice', name] });
    expect(path).toBe('/approvers/1');
    expect(error).toMatch(/is not "me"/);
  });

  it('refuses a name given twice (after trimming), at the second one', () => {
    expect(failure({ approvers: ['alice', 'bob', 'alice'] })).toEqual({
      error: 'Approver "alice" is given twice.',
      path: '/approvers/2',
    });
    expect(failure({ approvers: ['me', ' me'] }).path).toBe('/approvers/1');
  });

  it('refuses approvers that are not a non-empty array of at most the limit', () => {
    const names = (count: number) => Array.from({ length: count }, (_, i) => `person${i}`);
    expect(parseTeam({ approvers: names(TEAM_LIMITS.approvers) }, YES_NO).ok).toBe(true);
    expect(failure({ approvers: names(TEAM_LIMITS.approvers + 1) }).path).toBe('/approvers');
    expect(failure({ approvers: [] }).path).toBe('/approvers');
    expect(failure({ approvers: 'alice' }).path).toBe('/approvers');
  });

  it('accepts a quorum from 1 to the seat limit, or "all"', () => {
    for (const quorum of [1, 2, TEAM_LIMITS.seats, 'all'] as const) {
      const parsed = parseTeam({ approvers: ['alice'], quorum }, YES_NO);
      expect(parsed).toEqual({ ok: true, team: { approvers: ['alice'], quorum } });
    }
  });

  it.each([0, -1, TEAM_LIMITS.seats + 1, 1.5, '2', 'ALL', null])('refuses quorum %j', (quorum) => {
    expect(failure({ approvers: ['alice'], quorum }).path).toBe('/quorum');
  });

  it('keeps an explicit denyWins, and refuses one that is not a boolean', () => {
    expect(parseTeam({ approvers: ['alice'], denyWins: false }, YES_NO)).toEqual({
      ok: true,
      team: { approvers: ['alice'], quorum: 1, denyWins: false },
    });
    expect(parseTeam({ approvers: ['alice'], denyWins: true }, YES_NO)).toEqual({
      ok: true,
      team: { approvers: ['alice'], quorum: 1, denyWins: true },
    });
    expect(failure({ approvers: ['alice'], denyWins: 'yes' }).path).toBe('/denyWins');
  });

  it('refuses denyWins true when no option refuses, but not denyWins false', () => {
    const { error, path } = failure({ approvers: ['alice'], denyWins: true }, COLOURS);
    expect(path).toBe('/denyWins');
    expect(error).toMatch(/"deny", "no", "reject", "decline"/);
    expect(parseTeam({ approvers: ['alice'], denyWins: false }, COLOURS).ok).toBe(true);
  });
});

describe('refusingOption', () => {
  it.each([
    [['Approve', 'Deny'], 'Deny'],
    [['yes', 'NO'], 'NO'],
    [['ship', 'Reject'], 'Reject'],
    [['accept', 'DECLINE'], 'DECLINE'],
    [['go', 'no', 'deny'], 'no'],
  ])('finds the refusing option of %j ignoring case', (options, expected) => {
    expect(refusingOption(options)).toBe(expected);
  });

  it('finds none among options that only contain a refusal', () => {
    expect(refusingOption(['red', 'blue'])).toBeNull();
    expect(refusingOption(['denied', 'not now', 'nope'])).toBeNull();
    expect(refusingOption([])).toBeNull();
  });
});

describe('teamRule', () => {
  it('keeps a number asked even above the seats (a directory that lost approvers never weakens it); "all" is the seat count', () => {
    expect(teamRule({ approvers: ['group:ops'], quorum: 5 }, 3, YES_NO).quorum).toBe(5);
    expect(teamRule({ approvers: ['alice'], quorum: 2 }, 0, YES_NO).quorum).toBe(2);
    expect(teamRule({ approvers: ['alice'], quorum: 'all' }, 0, YES_NO).quorum).toBe(1);
    expect(teamRule({ approvers: ['group:ops'], quorum: 2 }, 3, YES_NO).quorum).toBe(2);
    expect(teamRule({ approvers: ['group:ops'], quorum: 'all' }, 4, YES_NO).quorum).toBe(4);
    expect(teamRule({ approvers: ['group:ops'], quorum: 'all' }, 1, YES_NO).quorum).toBe(1);
  });

  it('records the refusing option', () => {
    expect(teamRule({ approvers: ['alice'], quorum: 1 }, 1, ['Approve', 'Decline']).refusing).toBe('Decline');
    expect(teamRule({ approvers: ['alice'], quorum: 1 }, 1, COLOURS).refusing).toBeNull();
  });

  it('defaults denyWins to true only when more than one vote is needed and an option refuses', () => {
    expect(teamRule({ approvers: ['a', 'b'], quorum: 2 }, 2, YES_NO).denyWins).toBe(true);
    expect(teamRule({ approvers: ['a', 'b'], quorum: 'all' }, 2, YES_NO).denyWins).toBe(true);
    expect(teamRule({ approvers: ['a', 'b'], quorum: 1 }, 2, YES_NO).denyWins).toBe(false);
    expect(teamRule({ approvers: ['a', 'b'], quorum: 2 }, 2, COLOURS).denyWins).toBe(false);
    // A quorum of 3 asked of one seat stays 3: a refusal by that one decides.
    expect(teamRule({ approvers: ['a'], quorum: 3 }, 1, YES_NO).denyWins).toBe(true);
  });

  it('keeps an explicit denyWins false, and true when an option refuses', () => {
    expect(teamRule({ approvers: ['a', 'b'], quorum: 2, denyWins: false }, 2, YES_NO).denyWins).toBe(false);
    expect(teamRule({ approvers: ['a', 'b'], quorum: 1, denyWins: true }, 2, YES_NO).denyWins).toBe(true);
  });
});

describe('tallyOf', () => {
  it('counts votes per option in the options order, every option present', () => {
    const tally = tallyOf(COLOURS, ['green', 'red', 'green']);
    expect(tally).toEqual({ red: 1, blue: 0, green: 2 });
    expect(Object.keys(tally)).toEqual(COLOURS);
  });

  it('ignores choices that are not options, including other cases', () => {
    expect(tallyOf(YES_NO, ['maybe', 'YES', 'yes', ''])).toEqual({ yes: 1, no: 0 });
  });

  // `choice in tally` would see Object.prototype's keys: 'toString' would add a key holding a string.
  it('ignores choices that are names of Object.prototype', () => {
    const tally = tallyOf(YES_NO, ['toString', 'constructor', 'no']);
    expect(Object.keys(tally)).toEqual(YES_NO);
    expect(tally).toEqual({ yes: 0, no: 1 });
  });
});

describe('decisionOf', () => {
  const rule = (overrides: Partial<TeamRule>): TeamRule => ({ quorum: 2, denyWins: false, refusing: 'no', ...overrides });

  it('under denyWins, a single refusal decides at once', () => {
    expect(decisionOf(rule({ quorum: 3, denyWins: true }), { yes: 0, no: 1 })).toBe('no');
    expect(decisionOf(rule({ quorum: 3, denyWins: true }), { yes: 2, no: 1 })).toBe('no');
  });

  it('without denyWins, a refusal is one vote among others', () => {
    expect(decisionOf(rule({ quorum: 3 }), { yes: 0, no: 1 })).toBeUndefined();
    expect(decisionOf(rule({ quorum: 3 }), { yes: 0, no: 3 })).toBe('no');
    expect(decisionOf(rule({ quorum: 2 }), { yes: 2, no: 1 })).toBe('yes');
  });

  it('gives the first option, in tally order, that has the quorum', () => {
    expect(decisionOf(rule({ quorum: 1, refusing: null }), { red: 0, blue: 1, green: 1 })).toBe('blue');
    expect(decisionOf(rule({ quorum: 2, refusing: null }), { red: 1, blue: 1, green: 2 })).toBe('green');
  });

  it('stays undecided while no option has the quorum, even when none can reach it', () => {
    const threeSeats = teamRule({ approvers: ['group:ops'], quorum: 2 }, 3, COLOURS);
    expect(decisionOf(threeSeats, tallyOf(COLOURS, ['red', 'blue', 'green']))).toBeUndefined();
    expect(decisionOf(threeSeats, tallyOf(COLOURS, []))).toBeUndefined();
    expect(decisionOf(threeSeats, tallyOf(COLOURS, ['red', 'blue', 'red']))).toBe('red');
  });

  it('works from a rule made by teamRule: two of three must approve, any refusal ends it', () => {
    const twoOfThree = teamRule({ approvers: ['a', 'b', 'c'], quorum: 2 }, 3, YES_NO);
    expect(decisionOf(twoOfThree, tallyOf(YES_NO, ['yes']))).toBeUndefined();
    expect(decisionOf(twoOfThree, tallyOf(YES_NO, ['yes', 'yes']))).toBe('yes');
    expect(decisionOf(twoOfThree, tallyOf(YES_NO, ['yes', 'no']))).toBe('no');
  });
});

describe('tallyText', () => {
  const twoOfThree: TeamRule = { quorum: 2, denyWins: true, refusing: 'no' };

  it('reads the options with votes and who is still to answer', () => {
    expect(tallyText(twoOfThree, { yes: 1, no: 0 }, ['alice', 'bob'])).toBe('1 of 2 yes; waiting on alice, bob');
    expect(tallyText(twoOfThree, { yes: 1, no: 1 }, ['bob'])).toBe('1 of 2 yes, 1 of 2 no; waiting on bob');
  });

  it('says when nobody has answered, and when everybody has', () => {
    expect(tallyText(twoOfThree, { yes: 0, no: 0 }, ['alice'])).toBe('0 of 2 answers; waiting on alice');
    expect(tallyText(twoOfThree, { yes: 1, no: 0 }, [])).toBe('1 of 2 yes; every approver has answered');
  });
});

describe('parseApprovalRequest and teams', () => {
  const settings = { defaultExpiryMs: 3_600_000, maxExpiryMs: 86_400_000 };
  const input = { question: 'Ship it?', approvers: ['alice', 'group:ops'], quorum: 2 };

  it('refuses approvers unless a team is allowed', () => {
    const parsed = parseApprovalRequest(input, settings);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toMatch(/^Unknown field\(s\): approvers, quorum\./);
    const explicit = parseApprovalRequest({ question: 'Ship it?', denyWins: true }, settings, { team: false });
    expect(explicit.ok).toBe(false);
    if (!explicit.ok) expect(explicit.error).toMatch(/^Unknown field\(s\): denyWins\./);
  });

  it('returns the team when allowed', () => {
    const parsed = parseApprovalRequest(input, settings, { team: true });
    expect(parsed).toEqual({
      ok: true,
      request: {
        question: 'Ship it?',
        options: YES_NO,
        expiresInMs: 3_600_000,
        team: { approvers: ['alice', 'group:ops'], quorum: 2 },
      },
    });
  });

  it('gives no team for a plain request even when allowed, and passes on parseTeam errors with their path', () => {
    const plain = parseApprovalRequest({ question: 'Ship it?' }, settings, { team: true });
    expect(plain.ok && plain.request.team).toBe(undefined);
    expect(plain.ok).toBe(true);
    const bad = parseApprovalRequest({ question: 'Pick', options: COLOURS, approvers: ['alice'], denyWins: true }, settings, {
      team: true,
    });
    expect(bad).toMatchObject({ ok: false, path: '/denyWins' });
  });
});
