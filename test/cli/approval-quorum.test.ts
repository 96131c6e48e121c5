// Approvals a team answers, from the CLI against the real service: the approvers directory (`approvers`,
// `approvers group`), `approvals show` with the rule, the tally, each approver's vote and who decided,
// and `approvals answer` as one vote: a vote that waits on the others says so, the deciding one says whose;
// `approvals delegate` hands an approver's vote to another and prints where the approval then stands.
import { beforeAll, describe, expect, vi } from 'vitest';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { ensureBuilt, loginWith, newConfigDir, runCli, type CliResult } from './run-cli.ts';

const test = agentTest();
// A test here runs the binary seven to ten times, each a node process: more than the default timeout
// allows a machine loaded with the whole suite (as test/cli/mcps.test.ts).
vi.setConfig({ testTimeout: 90_000 });

beforeAll(() => ensureBuilt());

interface TeamApproval {
  id: string;
  approvers: Array<{ name: string; links: { page: string } }>;
}

async function ok(args: string[], configDir: string): Promise<CliResult> {
  const result = await runCli(args, { configDir });
  if (result.code !== 0) throw new Error(`${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return result;
}

async function createTeamApproval(env: AgentEnv, approvers: string[], quorum: number): Promise<TeamApproval> {
  const created = await call<TeamApproval>(`${env.api.url}/approval`, {
    headers: env.user.auth,
    json: { question: 'Pay invoice 1042?', options: ['approve', 'deny'], approvers, quorum },
  });
  expect(created.status, created.text).toBe(201);
  return created.body;
}

/** A vote by the approver `name`'s own link, as its page's button posts it. */
async function voteByLink(approval: TeamApproval, name: string, choice: string, note?: string): Promise<number> {
  const page = approval.approvers.find((seat) => seat.name === name)!.links.page;
  const voted = await call(page, { headers: { accept: 'application/json' }, json: { choice, ...(note ? { note } : {}) } });
  return voted.status;
}

describe('approvals a team answers, from the CLI', () => {
  test('approvers: none yet, set with each kind of address, list, set again replaces them, delete', async ({ env }) => {
    const configDir = newConfigDir();
    await loginWith(configDir, env.api.url, env.user.apiKey);
    expect((await ok(['approvers', 'ls'], configDir)).stderr).toContain('No approvers yet.');
    await ok(['approvers', 'set', 'carol', '--email', 'carol@example.com', '--slack-user', 'U024BE7LH'], configDir);
    await ok(['approvers', 'set', 'dave', '--telegram-chat', '-1001234567890', '--webhook-url', 'https://example.com/approve'], configDir);
    const listed = JSON.parse((await ok(['approvers', 'ls', '--json'], configDir)).stdout) as Array<Record<string, unknown>>;
    expect(listed).toEqual([
      expect.objectContaining({ name: 'carol', email: 'carol@example.com', slack: { userId: 'U024BE7LH' } }),
      expect.objectContaining({ name: 'dave', telegram: { chatId: '-1001234567890' }, webhook: { url: 'https://example.com/approve' } }),
    ]);

    // `set` replaces: the addresses are exactly those given.
    expect((await ok(['approvers', 'set', 'carol', '--email', 'c@example.com'], configDir)).stderr).toContain('Stored approver carol.');
    const table = (await ok(['approvers', 'ls'], configDir)).stdout;
    expect(table).toMatch(/^carol\s+c@example\.com\s+-\s+-\s+-\s+-\s/m);
    expect(table).toMatch(/^dave\s+-\s+-\s+-1001234567890\s+https:\/\/example\.com\/approve\s+-\s/m);
    await ok(['approvers', 'delete', 'dave'], configDir);
  });

  test('groups: set, list, a member is not removed while in one, removing the group keeps its members', async ({ env }) => {
    const configDir = newConfigDir();
    await loginWith(configDir, env.api.url, env.user.apiKey);
    for (const name of ['erin', 'frank']) {
      const put = await call(`${env.api.url}/approver/${name}`, { method: 'PUT', headers: env.user.auth, json: {} });
      expect(put.status).toBeLessThan(300);
    }
    expect((await ok(['approvers', 'group', 'set', 'finance', 'erin', 'frank'], configDir)).stderr).toContain(
      'Stored group finance: erin, frank.',
    );
    expect((await ok(['approvers', 'group', 'ls'], configDir)).stdout).toMatch(/^finance\s+erin,frank\s/m);
    const refused = await runCli(['approvers', 'rm', 'erin'], { configDir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/finance/);

    await ok(['approvers', 'group', 'rm', 'finance'], configDir);
    expect((await runCli(['approvers', 'group', 'ls'], { configDir })).stderr).toContain('No groups of approvers yet.');
    await ok(['approvers', 'rm', 'erin'], configDir);
  });

  test('2 of 3: show waits on everyone, my vote is recorded and waits, a deny by link decides; show names who', async ({ env }) => {
    const configDir = newConfigDir();
    await loginWith(configDir, env.api.url, env.user.apiKey);
    await ok(['approvers', 'set', 'alice', '--email', 'alice@example.com'], configDir);
    await ok(['approvers', 'set', 'bob', '--email', 'bob@example.com'], configDir);
    const approval = await createTeamApproval(env, ['me', 'alice', 'bob'], 2);

    const before = (await ok(['approvals', 'show', approval.id], configDir)).stdout;
    expect(before).toMatch(/^quorum:\s+2 of 3 \(a deny decides\)$/m);
    expect(before).toMatch(/^tally:\s+approve 0, deny 0$/m);
    expect(before).toMatch(/^approvers:\s+0 of 3 voted\n {2}me {5}waiting\n {2}alice {2}waiting\n {2}bob {4}waiting$/m);
    expect(before).not.toMatch(/decided by/);

    // My vote does not decide: the CLI says it was recorded and what it waits on, not that it was answered.
    const voted = await ok(['approvals', 'answer', approval.id, 'approve', '--note', 'looks right'], configDir);
    expect(voted.stderr).toMatch(/^Vote recorded: approve 1 of 2; waiting on the others\.$/m);
    expect(voted.stderr).not.toMatch(/Answered/);
    const waiting = (await ok(['approvals', 'show', approval.id], configDir)).stdout;
    expect(waiting).toMatch(/^status:\s+unanswered$/m);
    expect(waiting).toMatch(/^tally:\s+approve 1, deny 0$/m);
    expect(waiting).toMatch(/^ {2}me {5}approve \(via api, \d+s ago\) "looks right"$/m);
    expect(waiting).toMatch(/^ {2}alice {2}waiting$/m);

    // Alice's deny decides at once (denyWins); bob never voted.
    expect(await voteByLink(approval, 'alice', 'deny', 'not this quarter')).toBe(200);
    const decided = (await ok(['approvals', 'show', approval.id], configDir)).stdout;
    expect(decided).toMatch(/^status:\s+answered$/m);
    expect(decided).toMatch(/^choice:\s+deny$/m);
    expect(decided).toMatch(/^tally:\s+approve 1, deny 1$/m);
    expect(decided).toMatch(/^decided by:\s+alice$/m);
    expect(decided).toMatch(/^ {2}alice {2}deny \(via link, \d+s ago\) "not this quarter"$/m);
    expect(decided).toMatch(/^ {2}bob {4}did not vote$/m);
    expect(decided).toMatch(/^approvers:\s+2 of 3 voted$/m);
    const shown = JSON.parse((await ok(['approvals', 'show', approval.id, '--json'], configDir)).stdout) as Record<string, unknown>;
    expect(shown).toMatchObject({ decidedBy: 'alice', quorum: 2, tally: { approve: 1, deny: 1 } });

    // A second vote of mine is refused.
    expect((await runCli(['approvals', 'answer', approval.id, 'approve'], { configDir })).code).toBe(1);
  });

  test('my vote that reaches the quorum decides, and answer says so; --json keeps the 202 as the service sent it', async ({ env }) => {
    const configDir = newConfigDir();
    await loginWith(configDir, env.api.url, env.user.apiKey);
    await ok(['approvers', 'set', 'alice', '--email', 'alice@example.com'], configDir);

    const first = await createTeamApproval(env, ['me', 'alice'], 2);
    expect(await voteByLink(first, 'alice', 'approve')).toBe(202);
    const decided = await ok(['approvals', 'answer', first.id, 'approve'], configDir);
    expect(decided.stderr).toMatch(/^Answered approve: your vote decided it \(approve 2, deny 0\)\.$/m);
    expect((await ok(['approvals', 'show', first.id], configDir)).stdout).toMatch(/^decided by:\s+me$/m);

    const second = await createTeamApproval(env, ['me', 'alice'], 2);
    const vote = JSON.parse((await ok(['approvals', 'answer', second.id, 'approve', '--json'], configDir)).stdout) as unknown;
    expect(vote).toEqual({
      id: second.id,
      status: 'unanswered',
      approver: 'me',
      choice: 'approve',
      tally: { approve: 1, deny: 0 },
      quorum: 2,
    });

    // An approval anyone answers once shows none of a team's lines.
    const single = await call<{ id: string }>(`${env.api.url}/approval`, {
      headers: env.user.auth,
      json: { question: 'Alone?', options: ['yes', 'no'] },
    });
    const plain = (await ok(['approvals', 'show', single.body.id], configDir)).stdout;
    expect(plain).toMatch(/^question:\s+Alone\?$/m);
    expect(plain).not.toMatch(/quorum|tally|decided by/);
  });

  test('delegate: the vote goes to another approver, printed with who now sits and the tally; refusals exit 1', async ({ env }) => {
    const configDir = newConfigDir();
    await loginWith(configDir, env.api.url, env.user.apiKey);
    for (const name of ['alice', 'dave', 'erin']) await ok(['approvers', 'set', name, '--email', `${name}@example.com`], configDir);
    const approval = await createTeamApproval(env, ['alice', 'dave'], 2);
    expect(await voteByLink(approval, 'alice', 'approve')).toBe(202);

    const handed = await ok(['approvals', 'delegate', approval.id, '--from', 'dave', '--to', 'erin'], configDir);
    expect(handed.stderr).toMatch(/^Handed dave's vote to erin: they are asked now, and vote in their place\.$/m);
    expect(handed.stdout).toMatch(/^quorum:\s+2 of 2 \(a deny decides\)$/m);
    expect(handed.stdout).toMatch(/^tally:\s+approve 1, deny 0$/m);
    expect(handed.stdout).toMatch(
      /^approvers:\s+1 of 2 voted\n {2}alice {2}approve \(via link, \d+s ago\)\n {2}dave {3}handed to erin\n {2}erin {3}waiting \[added by delegation\]$/m,
    );
    // `show` says the same, and the service has it.
    expect((await ok(['approvals', 'show', approval.id], configDir)).stdout).toMatch(/^ {2}dave {3}handed to erin$/m);
    const stored = await call<{ approvers: Array<{ name: string; addedBy: string; delegatedTo: string | null }> }>(
      `${env.api.url}/approval/${approval.id}`,
      { headers: env.user.auth },
    );
    expect(stored.body.approvers.map((seat) => [seat.name, seat.addedBy, seat.delegatedTo])).toEqual([
      ['alice', 'request', null],
      ['dave', 'request', 'erin'],
      ['erin', 'delegation', null],
    ]);

    // --json prints the approval as the service answered it.
    const second = await createTeamApproval(env, ['alice', 'dave'], 2);
    const json = JSON.parse(
      (await ok(['approvals', 'delegate', second.id, '--from', 'alice', '--to', 'erin', '--json'], configDir)).stdout,
    ) as {
      id: string;
      approvers: Array<{ name: string; delegatedTo: string | null }>;
    };
    expect(json.id).toBe(second.id);
    expect(json.approvers.map((seat) => [seat.name, seat.delegatedTo])).toEqual([
      ['alice', 'erin'],
      ['dave', null],
      ['erin', null],
    ]);

    // Handed on already, a voter, and a name the directory lacks: the service's reason, exit 1.
    const again = await runCli(['approvals', 'delegate', approval.id, '--from', 'dave', '--to', 'erin'], { configDir });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/dave has handed on their vote already/);
    expect((await runCli(['approvals', 'delegate', approval.id, '--from', 'alice', '--to', 'zed'], { configDir })).stderr).toMatch(
      /alice has voted already/,
    );
    const unknown = await runCli(['approvals', 'delegate', second.id, '--from', 'dave', '--to', 'zed'], { configDir });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/You have no approver "zed"/);
    // Both names are required.
    expect((await runCli(['approvals', 'delegate', second.id, '--from', 'dave'], { configDir })).code).toBe(2);
  });
});
