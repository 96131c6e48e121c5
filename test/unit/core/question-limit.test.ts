// The open-questions limit on a step's calls alone: which calls ask their user, and those past
// OPEN_APPROVALS_PER_USER (in order) turned into errors the model reads, the approval not asked.
import { describe, expect, it } from 'vitest';
import { asksItsUser, questionsWithin } from '../../../core/question-limit.ts';
import { ASK_MY_USER } from '../../../lib/workflow-safe/ask-my-user.ts';

const ask = (id: string) => ({ toolCallId: id, toolName: ASK_MY_USER, input: { question: 'ok?' } });
const guarded = (id: string) => ({ toolCallId: id, toolName: 'deploy', input: {}, approval: { question: 'Deploy?' } });
const plain = { toolCallId: 'c_plain', toolName: 'lookup', input: {} };

describe('asksItsUser', () => {
  it('is ask_my_user or a tool whose policy asks first, with valid input', () => {
    expect(asksItsUser(ask('a'))).toBe(true);
    expect(asksItsUser(guarded('g'))).toBe(true);
    expect(asksItsUser(plain)).toBe(false);
    expect(asksItsUser({ ...ask('a'), inputError: 'question is required' })).toBe(false);
  });
});

describe('questionsWithin', () => {
  it('leaves every call alone while there is room', () => {
    const calls = [ask('a'), guarded('g'), plain];
    expect(questionsWithin(calls, 1, 3)).toEqual(calls);
  });

  it('turns the calls past the room, in order, into errors naming the limit; other calls run', () => {
    const [first, second, third, fourth] = questionsWithin([ask('a1'), plain, guarded('g1'), ask('a2')], 4, 5);
    expect(first).toEqual(ask('a1'));
    expect(second).toEqual(plain);
    expect(third).not.toHaveProperty('approval');
    expect(third?.inputError).toMatch(
      /runs only once your user approves it, .* 4 unanswered questions.*OPEN_APPROVALS_PER_USER is 5.*did not run/,
    );
    expect(fourth?.inputError).toMatch(/already has 4 unanswered questions.*this question was not sent/);
  });
});
