// Grading an eval case: each check passes or fails with words that say why, bounds hold every case, and a
// turn that did not complete fails whatever its reply.
import { describe, expect, test } from 'vitest';
import { contains, grade, type CaseOutcome } from '../../activities/eval-graders.ts';
import { readScore } from '../../activities/eval-judge.ts';

const outcome = (over: Partial<CaseOutcome> = {}): CaseOutcome => ({
  ended: 'completed',
  reply: 'Order 42 shipped',
  toolCalls: [
    { name: 'lookup', input: { order: 42, verbose: true } },
    { name: 'ship', input: { order: 42 } },
  ],
  costUsd: 0.002,
  latencyMs: 900,
  ...over,
});

const byGrader = (verdicts: ReturnType<typeof grade>) => Object.fromEntries(verdicts.map((verdict) => [verdict.grader, verdict.passed]));

test('tool calls: in order, other calls between allowed, input contained; the reason names what was made', () => {
  expect(byGrader(grade(outcome(), { toolCalls: [{ name: 'lookup', input: { order: 42 } }, { name: 'ship' }] }, []))).toMatchObject({
    toolCalls: true,
  });
  const reversed = grade(outcome(), { toolCalls: [{ name: 'ship' }, { name: 'lookup' }] }, []);
  expect(reversed.find((verdict) => verdict.grader === 'toolCalls')).toMatchObject({
    passed: false,
    explanation: 'Expected call 2, lookup, was not made after the ones before it; the calls were: lookup, ship',
  });
  expect(byGrader(grade(outcome(), { toolCalls: [{ name: 'lookup', input: { order: 7 } }] }, []))).toMatchObject({ toolCalls: false });
});

test('a JSON reply is checked against the schema (the json part, else the text), with the schema error in the reason', () => {
  expect(byGrader(grade(outcome({ reply: 'x', json: { n: 1 } }), { jsonSchema: { type: 'object', required: ['n'] } }, []))).toMatchObject({
    jsonSchema: true,
  });
  const missing = grade(outcome({ reply: '{"m":1}' }), { jsonSchema: { type: 'object', required: ['n'] } }, []);
  expect(missing.find((verdict) => verdict.grader === 'jsonSchema')!.explanation).toMatch(/missing the required property "n"/);
});

test('regex runs on RE2: a pattern that would backtrack forever answers at once', () => {
  const long = `${'a'.repeat(40)}b`;
  expect(byGrader(grade(outcome({ reply: long }), { regex: '^(a+)+$' }, []))).toMatchObject({ regex: false });
});

test('bounds: an unpriced model cannot be held to a cost bound; latency over its bound fails', () => {
  const verdicts = grade(outcome({ costUsd: null, latencyMs: 1500 }), undefined, [
    { kind: 'maxCostUsd', max: 1 },
    { kind: 'maxLatencyMs', max: 1000 },
  ]);
  expect(verdicts.slice(1)).toEqual([
    { grader: 'maxCostUsd', passed: false, explanation: expect.stringMatching(/cost is unknown/) },
    { grader: 'maxLatencyMs', passed: false, explanation: 'It took 1500 ms, over the bound of 1000 ms' },
  ]);
});

test('a turn that failed or timed out fails the case, whatever else passes', () => {
  expect(grade(outcome({ ended: 'failed', error: 'the model refused' }), { contains: 'Order' }, [])[0]).toEqual({
    grader: 'completed',
    passed: false,
    explanation: 'The turn failed: the model refused',
  });
  expect(grade(outcome({ ended: 'timeout' }), undefined, [])[0]!.explanation).toMatch(/time limit/);
});

test('contains: objects by their members, recursively; everything else by value', () => {
  expect(contains({ a: { b: 1, c: 2 }, d: [1, 2] }, { a: { b: 1 } })).toBe(true);
  expect(contains({ d: [1, 2] }, { d: [1] })).toBe(false);
  expect(contains('x', { a: 1 })).toBe(false);
});

describe('the score a rubric judge answered', () => {
  test('is read from its JSON object, even with words around it, or from a "score: N" it wrote', () => {
    expect(readScore('{"score": 0.8, "reason": "Fine."}')).toEqual({ score: 0.8, reason: 'Fine.' });
    expect(readScore('Here: {"score": "1", "reason": "All of it."} done')).toEqual({ score: 1, reason: 'All of it.' });
    expect(readScore('My verdict, score: 0.25')).toEqual({ score: 0.25, reason: '' });
  });

  test('is none when the answer has no score from 0 to 1', () => {
    expect(readScore('It is fine')).toBeUndefined();
    expect(readScore('{"score": 8, "reason": "out of ten"}')).toBeUndefined();
    expect(readScore('{"reason": "no score"}')).toBeUndefined();
  });
});
