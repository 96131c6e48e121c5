// Which client tool answers a turn takes (core/client-tool-calls.ts), driven alone: answers for another
// turn's step, with both or neither of output and error, or for a closed call are refused with their
// reason; an awaited call's answer is taken once and a second refused; closing the wait gives every
// call its result, NO_CLIENT_RESULT for one nobody answered, and refuses any answer after.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { ClientToolCalls, NO_CLIENT_RESULT, type ToolResultInput } from '../../../core/client-tool-calls.ts';
import type { ToolCall } from '../../../core/turn-types.ts';

const STEP = 'msg_step1';
const CALLS: ToolCall[] = [
  { toolCallId: 'c1', toolName: 'pick_file', input: {}, executor: 'client' },
  { toolCallId: 'c2', toolName: 'confirm', input: { q: 1 }, executor: 'client' },
];

/** A turn whose step STEP is done and asked for CALLS. */
function awaiting(): ClientToolCalls {
  const calls = new ClientToolCalls();
  calls.stepStarted(STEP);
  calls.stepDone(STEP, CALLS);
  return calls;
}

function answer(toolCallId: string, fields: Partial<ToolResultInput> = { output: { ok: true } }): ToolResultInput {
  return { messageId: STEP, toolCallId, ...fields };
}

describe('refusal (before an answer is accepted)', () => {
  test("an answer naming a step this turn never started is not one of this turn's", () => {
    const calls = awaiting();
    expect(calls.refusal({ messageId: 'msg_other', toolCallId: 'c1', output: 1 })).toBe("is not one of this turn's");
  });

  test('an answer for a started step is accepted before its result is in', () => {
    const calls = new ClientToolCalls();
    calls.stepStarted(STEP);
    expect(calls.isStepDone(STEP)).toBe(false);
    expect(calls.refusal(answer('c1'))).toBeUndefined();
  });

  test('needs exactly one of output and error', () => {
    const calls = awaiting();
    expect(calls.refusal(answer('c1', { output: 1, error: 'failed' }))).toBe('needs exactly one of output and error');
    expect(calls.refusal(answer('c1', {}))).toBe('needs exactly one of output and error');
    expect(calls.refusal(answer('c1', { error: 'failed' }))).toBeUndefined();
  });

  test('falsy outputs (null, 0, false, empty text) are outputs', () => {
    const calls = awaiting();
    for (const output of [null, 0, false, '']) expect(calls.refusal(answer('c1', { output }))).toBeUndefined();
  });

  test('a call answered already is refused', () => {
    const calls = awaiting();
    calls.take(answer('c1'));
    expect(calls.refusal(answer('c1'))).toBe('is answered already, or no longer awaited');
    expect(calls.refusal(answer('c2'))).toBeUndefined();
  });

  test('a call whose wait was closed unanswered is refused', () => {
    const calls = awaiting();
    calls.close(STEP, CALLS);
    expect(calls.refusal(answer('c1'))).toBe('is answered already, or no longer awaited');
  });

  test("a step's own check comes first: an unknown step is refused as such, even with a bad answer", () => {
    const calls = awaiting();
    expect(calls.refusal({ messageId: 'msg_other', toolCallId: 'c1' })).toBe("is not one of this turn's");
  });
});

describe('take', () => {
  test('the step is done once its result is in, with or without client calls', () => {
    const calls = new ClientToolCalls();
    calls.stepStarted(STEP);
    calls.stepStarted('msg_step2');
    calls.stepDone(STEP, CALLS);
    calls.stepDone('msg_step2', []);
    expect(calls.isStepDone(STEP)).toBe(true);
    expect(calls.isStepDone('msg_step2')).toBe(true);
    expect(calls.isStepDone('msg_step3')).toBe(false);
  });

  test("an output becomes the call's result, named after the call's tool", () => {
    const calls = awaiting();
    expect(calls.take(answer('c2', { output: { chosen: 'x' } }))).toStrictEqual({
      result: { type: 'tool-result', toolCallId: 'c2', toolName: 'confirm', output: { chosen: 'x' } },
    });
  });

  test('an error becomes a failed result the model reads', () => {
    const calls = awaiting();
    expect(calls.take(answer('c1', { error: 'user cancelled' }))).toStrictEqual({
      result: { type: 'tool-result', toolCallId: 'c1', toolName: 'pick_file', output: 'user cancelled', isError: true },
    });
  });

  test('a second answer to the same call is refused, and the first result stands', () => {
    const calls = awaiting();
    calls.take(answer('c1', { output: 'first' }));
    expect(calls.take(answer('c1', { output: 'second' }))).toEqual({ refused: 'is not awaited from the client' });
    calls.take(answer('c2'));
    expect(calls.close(STEP, CALLS)[0]?.output).toBe('first');
  });

  test('a call the step did not ask the client for is refused', () => {
    const calls = awaiting();
    expect(calls.take(answer('c9'))).toEqual({ refused: 'is not awaited from the client' });
  });

  test("an answer before the step's result is in is not taken", () => {
    const calls = new ClientToolCalls();
    calls.stepStarted(STEP);
    expect(calls.take(answer('c1'))).toEqual({ refused: 'is not awaited from the client' });
  });

  test('an answer after the wait closed is refused', () => {
    const calls = awaiting();
    calls.close(STEP, CALLS);
    expect(calls.take(answer('c1'))).toEqual({ refused: 'is not awaited from the client' });
  });

  test('the same call id in two steps is two calls', () => {
    const calls = awaiting();
    calls.stepStarted('msg_step2');
    calls.stepDone('msg_step2', [CALLS[0]!]);
    expect(calls.take(answer('c1', { output: 'one' }))).toHaveProperty('result');
    expect(calls.take({ messageId: 'msg_step2', toolCallId: 'c1', output: 'two' })).toHaveProperty('result.output', 'two');
    expect(calls.refusal({ messageId: 'msg_step2', toolCallId: 'c1', output: 'three' })).toBe('is answered already, or no longer awaited');
  });
});

describe('allAnswered and close', () => {
  test('all answered only once every call has its answer', () => {
    const calls = awaiting();
    expect(calls.allAnswered(STEP, CALLS)).toBe(false);
    calls.take(answer('c2'));
    expect(calls.allAnswered(STEP, CALLS)).toBe(false);
    calls.take(answer('c1'));
    expect(calls.allAnswered(STEP, CALLS)).toBe(true);
  });

  test('a refused answer does not count as answered', () => {
    const calls = awaiting();
    calls.take(answer('c9'));
    calls.take(answer('c1'));
    expect(calls.allAnswered(STEP, CALLS)).toBe(false);
  });

  test('no calls: all answered', () => {
    expect(awaiting().allAnswered(STEP, [])).toBe(true);
  });

  test('closing gives the answers taken, in call order, and NO_CLIENT_RESULT as a failure for one unanswered', () => {
    const calls = awaiting();
    calls.take(answer('c2', { output: 42 }));
    expect(calls.close(STEP, CALLS)).toStrictEqual([
      { type: 'tool-result', toolCallId: 'c1', toolName: 'pick_file', output: NO_CLIENT_RESULT, isError: true },
      { type: 'tool-result', toolCallId: 'c2', toolName: 'confirm', output: 42 },
    ]);
  });

  test('NO_CLIENT_RESULT tells the model the client did not answer', () => {
    expect(NO_CLIENT_RESULT).toMatch(/not answered/);
  });

  test('any answers, in any order, some twice: each call taken once, close gives the first answer or NO_CLIENT_RESULT', () => {
    const ids = ['c1', 'c2', 'c3', 'c4'];
    const stepCalls: ToolCall[] = ids.map((toolCallId) => ({ toolCallId, toolName: `tool_${toolCallId}`, input: {}, executor: 'client' }));
    const answerArb = fc.record({ toolCallId: fc.constantFrom(...ids), output: fc.nat(), asError: fc.boolean() });
    fc.assert(
      fc.property(fc.array(answerArb, { maxLength: 12 }), (answers) => {
        const calls = new ClientToolCalls();
        calls.stepStarted(STEP);
        calls.stepDone(STEP, stepCalls);
        const first = new Map<string, { output: unknown; isError: boolean }>();
        for (const { toolCallId, output, asError } of answers) {
          const input = answer(toolCallId, asError ? { error: `e${output}` } : { output });
          const refusedBefore = calls.refusal(input);
          const taken = calls.take(input);
          if (first.has(toolCallId)) {
            expect(refusedBefore).toBe('is answered already, or no longer awaited');
            expect(taken).toEqual({ refused: 'is not awaited from the client' });
          } else {
            expect(refusedBefore).toBeUndefined();
            expect(taken).toHaveProperty('result');
            first.set(toolCallId, { output: asError ? `e${output}` : output, isError: asError });
          }
        }
        expect(calls.allAnswered(STEP, stepCalls)).toBe(first.size === ids.length);
        const closed = calls.close(STEP, stepCalls);
        expect(closed.map((r) => r.toolCallId)).toEqual(ids);
        for (const result of closed) {
          const taken = first.get(result.toolCallId);
          expect(result.toolName).toBe(`tool_${result.toolCallId}`);
          expect(result.output).toEqual(taken ? taken.output : NO_CLIENT_RESULT);
          expect(result.isError ?? false).toBe(taken ? taken.isError : true);
          expect(calls.refusal(answer(result.toolCallId))).toBe('is answered already, or no longer awaited');
        }
      }),
    );
  });
});
