// How a model step's attempt ends once its stream stopped without an answer to store, decided alone:
// a cancellation before an abort before the output limit before the provider's error, a context-length
// refusal compacting (once the step may compact), and a provider's error retried or failing the turn.
import { describe, expect, it } from 'vitest';
import { providerAnswered, stepEnding, type StreamStop } from '../../../core/step-ending.ts';
import { FAILURE } from '../../../lib/workflow-safe/failures.ts';

const calm: StreamStop = { cancelled: false, aborted: false };
const transient = { retryable: true, message: 'The openai provider is overloaded' };

describe('stepEnding', () => {
  it('stores the answer of a stream that ended without error, abort or limit', () => {
    expect(stepEnding(calm)).toEqual({ kind: 'answer' });
  });

  it('takes a cancellation first, then an abort notice, then the output limit, then the error', () => {
    const everything: StreamStop = { cancelled: true, aborted: true, limitError: 'past 10 bytes', error: transient };
    expect(stepEnding(everything)).toEqual({ kind: 'cancelled' });
    expect(stepEnding({ ...everything, cancelled: false })).toEqual({ kind: 'aborted' });
    expect(stepEnding({ ...everything, cancelled: false, aborted: false })).toEqual({
      kind: 'failed',
      type: FAILURE.modelOutputLimit,
      message: 'past 10 bytes',
      spanError: FAILURE.modelOutputLimit,
    });
    expect(stepEnding({ ...calm, error: transient })).toMatchObject({ kind: 'retry' });
  });

  it('retries a retryable error, after the delay the provider asked for when it named one', () => {
    expect(stepEnding({ ...calm, error: transient })).toEqual({
      kind: 'retry',
      type: FAILURE.modelTransient,
      message: transient.message,
      spanError: FAILURE.modelTransient,
    });
    expect(stepEnding({ ...calm, error: { ...transient, retryAfterMs: 3_000 } })).toMatchObject({ kind: 'retry', retryAfterMs: 3_000 });
  });

  it('fails the turn on an error another attempt would meet again', () => {
    expect(stepEnding({ ...calm, error: { retryable: false, message: 'invalid key' } })).toEqual({
      kind: 'failed',
      type: FAILURE.modelRejected,
      message: 'invalid key',
      spanError: FAILURE.modelRejected,
    });
  });

  it('compacts a conversation the provider refused as too long, to the window it named, else the one checked', () => {
    const checked = { tokens: 9_000, windowTokens: 8_192 };
    const named = { retryable: false, message: 'too long', contextLength: { windowTokens: 4_096 } };
    expect(stepEnding({ ...calm, error: named, checked })).toEqual({
      kind: 'compact',
      message: 'too long',
      tokensBefore: 9_000,
      windowTokens: 4_096,
      learnedWindow: 4_096,
      spanError: 'context_length_exceeded',
    });
    const unnamed = stepEnding({ ...calm, error: { ...named, contextLength: {} }, checked });
    expect(unnamed).toMatchObject({ kind: 'compact', windowTokens: 8_192 });
    expect(unnamed).not.toHaveProperty('learnedWindow');
  });

  it('fails a too-long conversation it may not compact (already compacted, or compaction off), as the error says', () => {
    const tooLong = { retryable: false, message: 'too long', contextLength: { windowTokens: 4_096 } };
    expect(stepEnding({ ...calm, error: tooLong })).toMatchObject({
      kind: 'failed',
      type: FAILURE.modelRejected,
      spanError: 'context_length_exceeded',
    });
    expect(stepEnding({ ...calm, error: { ...tooLong, retryable: true } })).toMatchObject({ kind: 'retry' });
  });
});

describe('providerAnswered', () => {
  it('bills an attempt whose provider began to answer, or whose call was cut after it was sent', () => {
    expect(providerAnswered(false, calm)).toBe(false);
    expect(providerAnswered(true, calm)).toBe(true);
    expect(providerAnswered(false, { ...calm, cancelled: true })).toBe(true);
    expect(providerAnswered(false, { ...calm, aborted: true })).toBe(true);
    expect(providerAnswered(false, { ...calm, limitError: 'past 10 bytes' })).toBe(true);
  });
});
