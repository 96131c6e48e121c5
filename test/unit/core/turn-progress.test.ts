// A turn's loop rules (core/turn-progress.ts) driven alone: usage and cost add up (cost stays null
// until some step has a price), the verdict after each step comes in its order (turn.completed, then
// tools, then unread steering below maxSteps, then an answer or an invalid structured reply that counts
// its attempts), the outcome carries the reply and the steering read, and tool results keep call order.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { TokenUsage } from '../../../contract/events.ts';
import { addToTotals, inCallOrder, TurnProgress, type TurnTotals } from '../../../core/turn-progress.ts';
import type { StepResult, ToolCall, ToolResultPart } from '../../../core/turn-types.ts';

const ZERO: TurnTotals = { usage: { inputTokens: 0, outputTokens: 0 }, costUsd: null };

function usage(inputTokens: number, outputTokens: number): TokenUsage {
  return { inputTokens, outputTokens };
}

/** A final answer with no tools, no price and no usage unless given. */
function stepResult(fields: Partial<StepResult> = {}): StepResult {
  return { messageId: 'msg', text: 'answer', toolCalls: [], finishReason: 'stop', usage: usage(0, 0), costUsd: null, ...fields };
}

const CALL: ToolCall = { toolCallId: 'c1', toolName: 'search', input: {} };

describe('addToTotals', () => {
  test('tokens add up', () => {
    expect(addToTotals({ usage: usage(3, 4), costUsd: null }, usage(10, 20), null).usage).toEqual(usage(13, 24));
  });

  test('prompt cache counts add up once a step reported them, and stay absent while none did', () => {
    const plain = addToTotals({ usage: usage(3, 4), costUsd: null }, usage(10, 20), null).usage;
    expect(plain).not.toHaveProperty('cacheReadTokens');
    expect(plain).not.toHaveProperty('cacheWriteTokens');
    const first = addToTotals({ usage: usage(3, 4), costUsd: null }, { ...usage(100, 2), cacheReadTokens: 80 }, null).usage;
    expect(first).toEqual({ inputTokens: 103, outputTokens: 6, cacheReadTokens: 80 });
    const second = addToTotals({ usage: first, costUsd: null }, { ...usage(50, 1), cacheReadTokens: 30, cacheWriteTokens: 15 }, null).usage;
    expect(second).toEqual({ inputTokens: 153, outputTokens: 7, cacheReadTokens: 110, cacheWriteTokens: 15 });
  });

  test('missing usage counts as none', () => {
    expect(addToTotals({ usage: usage(3, 4), costUsd: 1 }, null, undefined)).toEqual({ usage: usage(3, 4), costUsd: 1 });
    expect(addToTotals({ usage: usage(3, 4), costUsd: 1 }, undefined, null)).toEqual({ usage: usage(3, 4), costUsd: 1 });
  });

  test('cost stays null while no step has a price', () => {
    expect(addToTotals(ZERO, usage(1, 1), null).costUsd).toBeNull();
    expect(addToTotals(ZERO, usage(1, 1), undefined).costUsd).toBeNull();
  });

  test('the first price starts the cost; later unpriced steps keep it', () => {
    const priced = addToTotals(ZERO, usage(1, 1), 0.25);
    expect(priced.costUsd).toBe(0.25);
    expect(addToTotals(priced, usage(1, 1), null).costUsd).toBe(0.25);
    expect(addToTotals(priced, usage(1, 1), 0.5).costUsd).toBe(0.75);
  });

  test('a price of zero is a known cost, not null', () => {
    expect(addToTotals(ZERO, usage(1, 1), 0).costUsd).toBe(0);
  });

  test('the totals given are not changed', () => {
    const totals: TurnTotals = { usage: usage(1, 2), costUsd: 3 };
    addToTotals(totals, usage(5, 5), 5);
    expect(totals).toEqual({ usage: usage(1, 2), costUsd: 3 });
  });

  test('any sequence of steps: tokens are the sums, cost is null iff no step had a price, else the sum of prices', () => {
    const stepArb = fc.record({
      usage: fc.option(fc.record({ inputTokens: fc.nat(10_000), outputTokens: fc.nat(10_000) }), { nil: null }),
      // Whole cents as integers so the sums are exact.
      costUsd: fc.oneof(fc.constant(null), fc.constant(undefined), fc.nat(1_000)),
    });
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 20 }), (steps) => {
        const totals = steps.reduce<TurnTotals>((acc, step) => addToTotals(acc, step.usage, step.costUsd), ZERO);
        const prices = steps.map((step) => step.costUsd).filter((cost): cost is number => typeof cost === 'number');
        expect(totals.usage.inputTokens).toBe(steps.reduce((sum, step) => sum + (step.usage?.inputTokens ?? 0), 0));
        expect(totals.usage.outputTokens).toBe(steps.reduce((sum, step) => sum + (step.usage?.outputTokens ?? 0), 0));
        expect(totals.costUsd).toBe(prices.length === 0 ? null : prices.reduce((sum, cost) => sum + cost, 0));
      }),
    );
  });
});

describe('TurnProgress totals', () => {
  test('a new turn has no usage and no cost', () => {
    expect(new TurnProgress(5).totalsSoFar()).toEqual(ZERO);
  });

  test('totalsSoFar adds each step; cost null until a priced step', () => {
    const progress = new TurnProgress(5);
    progress.afterStep(stepResult({ toolCalls: [CALL], usage: usage(10, 1) }), 1);
    expect(progress.totalsSoFar()).toEqual({ usage: usage(10, 1), costUsd: null });
    progress.afterStep(stepResult({ toolCalls: [CALL], usage: usage(20, 2), costUsd: 0.5 }), 2);
    progress.afterStep(stepResult({ usage: usage(30, 3), costUsd: null }), 3);
    expect(progress.totalsSoFar()).toEqual({ usage: usage(60, 6), costUsd: 0.5 });
    expect(progress.outcome('completed')).toMatchObject({ usage: usage(60, 6), costUsd: 0.5 });
  });

  test('totalsSoFar is a copy: changing it changes nothing', () => {
    const progress = new TurnProgress(5);
    progress.afterStep(stepResult({ toolCalls: [CALL], usage: usage(1, 1) }), 1);
    const copy = progress.totalsSoFar();
    copy.usage.inputTokens = 999;
    expect(progress.totalsSoFar().usage.inputTokens).toBe(1);
  });

  test('an unpriced turn ends with cost null, in every outcome', () => {
    const progress = new TurnProgress(5);
    progress.afterStep(stepResult({ usage: usage(4, 2) }), 1);
    for (const status of ['completed', 'failed', 'aborted'] as const) expect(progress.outcome(status).costUsd).toBeNull();
  });
});

describe('the verdict after a step', () => {
  test('a final answer without tools: answered', () => {
    expect(new TurnProgress(5).afterStep(stepResult(), 1)).toEqual({ next: 'answered' });
  });

  test('a step that wrote turn.completed wins over tools, steering and an invalid reply', () => {
    const progress = new TurnProgress(5);
    progress.steered('s1');
    const verdict = progress.afterStep(stepResult({ turnCompleted: true, toolCalls: [CALL], replyErrors: ['bad'] }), 1);
    expect(verdict).toEqual({ next: 'completed' });
  });

  test('a step that completed the turn with no webhook subscription says so in the outcome; any other step does not', () => {
    const unsubscribed = new TurnProgress(5);
    unsubscribed.afterStep(stepResult({ toolCalls: [CALL], completionUnsubscribed: true }), 1);
    expect(unsubscribed.outcome('completed').completionUnsubscribed).toBeUndefined();
    unsubscribed.afterStep(stepResult({ turnCompleted: true, completionUnsubscribed: true }), 2);
    expect(unsubscribed.outcome('completed').completionUnsubscribed).toBe(true);
    expect(unsubscribed.outcome('failed')).not.toHaveProperty('completionUnsubscribed');
    const subscribed = new TurnProgress(5);
    subscribed.afterStep(stepResult({ turnCompleted: true }), 1);
    expect(subscribed.outcome('completed')).not.toHaveProperty('completionUnsubscribed');
  });

  test('a step that completed the turn and handed its reply to the calling agent says so in the outcome (its workflow hands nothing back)', () => {
    const handed = new TurnProgress(5);
    handed.afterStep(stepResult({ turnCompleted: true, answerHandedBack: true }), 1);
    expect(handed.outcome('completed').answerHandedBack).toBe(true);
    expect(handed.outcome('failed')).not.toHaveProperty('answerHandedBack');
    const notHanded = new TurnProgress(5);
    notHanded.afterStep(stepResult({ turnCompleted: true }), 1);
    expect(notHanded.outcome('completed')).not.toHaveProperty('answerHandedBack');
  });

  test('tool calls come before unread steering', () => {
    const progress = new TurnProgress(5);
    progress.steered('s1');
    expect(progress.afterStep(stepResult({ toolCalls: [CALL] }), 1)).toEqual({ next: 'tools' });
  });

  test('unread steering below maxSteps: one more step', () => {
    const progress = new TurnProgress(3);
    progress.steered('s1');
    expect(progress.afterStep(stepResult({ turnUserMessageIds: ['u'] }), 2)).toEqual({ next: 'step' });
  });

  test('unread steering at maxSteps: no more steps, the answer stands', () => {
    const progress = new TurnProgress(3);
    progress.steered('s1');
    expect(progress.afterStep(stepResult(), 3)).toEqual({ next: 'answered' });
  });

  test('steering the step read: answered', () => {
    const progress = new TurnProgress(5);
    progress.steered('s1');
    expect(progress.afterStep(stepResult({ turnUserMessageIds: ['u', 's1'] }), 1)).toEqual({ next: 'answered' });
  });

  test('steering read by an earlier step stays read', () => {
    const progress = new TurnProgress(5);
    progress.steered('s1');
    progress.afterStep(stepResult({ toolCalls: [CALL], turnUserMessageIds: ['s1'] }), 1);
    expect(progress.afterStep(stepResult({ turnUserMessageIds: [] }), 2)).toEqual({ next: 'answered' });
  });

  test('a step reading one of two steering messages steps again for the other', () => {
    const progress = new TurnProgress(5);
    progress.steered('s1');
    progress.steered('s2');
    expect(progress.afterStep(stepResult({ turnUserMessageIds: ['s1'] }), 1)).toEqual({ next: 'step' });
    expect(progress.afterStep(stepResult({ turnUserMessageIds: ['s2'] }), 2)).toEqual({ next: 'answered' });
  });

  test('a message read before it steered the turn (the signal came late) is not read steering', () => {
    const progress = new TurnProgress(5);
    progress.afterStep(stepResult({ toolCalls: [CALL], turnUserMessageIds: ['s1'] }), 1);
    progress.steered('s1');
    expect(progress.afterStep(stepResult(), 2)).toEqual({ next: 'step' });
  });

  test('unread steering comes before an invalid reply', () => {
    const progress = new TurnProgress(5);
    progress.steered('s1');
    expect(progress.afterStep(stepResult({ replyErrors: ['bad'], replyRetries: 2 }), 1)).toEqual({ next: 'step' });
  });

  test('an invalid reply with no retries fails at once, with the errors in the message', () => {
    const verdict = new TurnProgress(5).afterStep(stepResult({ replyErrors: ['missing "a"', 'extra "b"'] }), 1);
    expect(verdict).toEqual({
      next: 'invalid-reply',
      attempt: 1,
      attemptsLeft: 0,
      errors: ['missing "a"', 'extra "b"'],
      message: 'The reply did not match jsonReply.schema after 1 attempt: missing "a"; extra "b"',
    });
  });

  test('invalid replies count their attempts; with retries 2 the third one has none left', () => {
    const progress = new TurnProgress(10);
    const invalid = stepResult({ replyErrors: ['bad'], replyRetries: 2 });
    expect(progress.afterStep(invalid, 1)).toMatchObject({ next: 'invalid-reply', attempt: 1, attemptsLeft: 2 });
    expect(progress.afterStep(invalid, 2)).toMatchObject({ next: 'invalid-reply', attempt: 2, attemptsLeft: 1 });
    expect(progress.afterStep(invalid, 3)).toEqual({
      next: 'invalid-reply',
      attempt: 3,
      attemptsLeft: 0,
      errors: ['bad'],
      message: 'The reply did not match jsonReply.schema after 3 attempts: bad',
    });
  });

  test('a valid reply after an invalid one is answered; tool steps between do not count as attempts', () => {
    const progress = new TurnProgress(10);
    const invalid = stepResult({ replyErrors: ['bad'], replyRetries: 1 });
    expect(progress.afterStep(invalid, 1)).toMatchObject({ attempt: 1, attemptsLeft: 1 });
    expect(progress.afterStep(stepResult({ toolCalls: [CALL], replyErrors: ['bad'], replyRetries: 1 }), 2)).toEqual({ next: 'tools' });
    expect(progress.afterStep(invalid, 3)).toMatchObject({ attempt: 2, attemptsLeft: 0 });
    expect(new TurnProgress(10).afterStep(stepResult({ replyRetries: 1 }), 1)).toEqual({ next: 'answered' });
  });

  test('any step: completed, else tools, else unread steering below maxSteps, else answered or invalid-reply', () => {
    const arb = fc.record({
      turnCompleted: fc.boolean(),
      tools: fc.boolean(),
      steeringUnread: fc.boolean(),
      step: fc.integer({ min: 1, max: 4 }),
      replyErrors: fc.boolean(),
    });
    fc.assert(
      fc.property(arb, ({ turnCompleted, tools, steeringUnread, step, replyErrors }) => {
        const progress = new TurnProgress(3);
        progress.steered('s1');
        const result = stepResult({
          toolCalls: tools ? [CALL] : [],
          turnUserMessageIds: steeringUnread ? [] : ['s1'],
          ...(turnCompleted ? { turnCompleted: true as const } : {}),
          ...(replyErrors ? { replyErrors: ['bad'] } : {}),
        });
        const expected = turnCompleted
          ? 'completed'
          : tools
            ? 'tools'
            : steeringUnread && step < 3
              ? 'step'
              : replyErrors
                ? 'invalid-reply'
                : 'answered';
        expect(progress.afterStep(result, step).next).toBe(expected);
      }),
    );
  });
});

describe('outcome', () => {
  test('completed carries the last step text as the reply, and no steered key when none was read', () => {
    const progress = new TurnProgress(5);
    progress.afterStep(stepResult({ text: 'first', toolCalls: [CALL] }), 1);
    progress.afterStep(stepResult({ text: 'last' }), 2);
    expect(progress.outcome('completed')).toStrictEqual({ status: 'completed', usage: usage(0, 0), costUsd: null, reply: 'last' });
  });

  test('completed lists the steering read, in the order read, each once', () => {
    const progress = new TurnProgress(5);
    progress.steered('s1');
    progress.steered('s2');
    progress.steered('s1');
    progress.steered('s3');
    progress.afterStep(stepResult({ toolCalls: [CALL], turnUserMessageIds: ['u', 's2'] }), 1);
    progress.afterStep(stepResult({ turnUserMessageIds: ['u', 's2', 's1'] }), 2);
    expect(progress.outcome('completed').steered).toEqual(['s2', 's1']);
  });

  test('steering that was never read is not in the outcome', () => {
    const progress = new TurnProgress(1);
    progress.steered('s1');
    progress.afterStep(stepResult({ turnUserMessageIds: ['u'] }), 1);
    expect(progress.outcome('completed')).not.toHaveProperty('steered');
  });

  test('failed and aborted carry totals only: no reply, no steered', () => {
    const progress = new TurnProgress(5);
    progress.steered('s1');
    progress.afterStep(stepResult({ text: 'partial', usage: usage(2, 3), costUsd: 0.1, turnUserMessageIds: ['s1'] }), 1);
    expect(progress.outcome('failed')).toStrictEqual({ status: 'failed', usage: usage(2, 3), costUsd: 0.1 });
    expect(progress.outcome('aborted')).toStrictEqual({ status: 'aborted', usage: usage(2, 3), costUsd: 0.1 });
  });
});

describe('inCallOrder', () => {
  function result(toolCallId: string): ToolResultPart {
    return { type: 'tool-result', toolCallId, toolName: 't', output: toolCallId };
  }

  test('client results that came in last and out of order are put back in call order', () => {
    const calls = [{ toolCallId: 'a' }, { toolCallId: 'b' }, { toolCallId: 'c' }, { toolCallId: 'd' }];
    const results = [result('b'), result('d'), result('c'), result('a')];
    expect(inCallOrder(results, calls).map((r) => r.toolCallId)).toEqual(['a', 'b', 'c', 'd']);
    expect(results.map((r) => r.toolCallId)).toEqual(['b', 'd', 'c', 'a']);
  });

  test('any order of results comes back in the order of the calls', () => {
    fc.assert(
      fc.property(
        fc
          .uniqueArray(fc.string({ minLength: 1, maxLength: 6 }), { minLength: 0, maxLength: 12 })
          .chain((ids) => fc.tuple(fc.constant(ids), fc.shuffledSubarray(ids, { minLength: ids.length, maxLength: ids.length }))),
        ([ids, shuffled]) => {
          const ordered = inCallOrder(
            shuffled.map((id) => result(id)),
            ids.map((toolCallId) => ({ toolCallId })),
          );
          expect(ordered.map((r) => r.toolCallId)).toEqual(ids);
        },
      ),
    );
  });
});
