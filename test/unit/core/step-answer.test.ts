// What a model step makes of its streamed answer, decided alone: the parts it stores, when the answer
// ends the turn (and the turn's end written with it), what it reports of a stored message, and the
// result that asks the turn to compact first.
import { describe, expect, it } from 'vitest';
import {
  answerParts,
  compactFirst,
  isFinalAnswer,
  messagesTurnOf,
  readUserMessageIds,
  stepResultOf,
  turnCompletionOf,
  type ReplyCheck,
} from '../../../core/step-answer.ts';

const call = { toolCallId: 'call_1', toolName: 'lookup', input: { q: 'x' } };
const valid: ReplyCheck = { ok: true, json: { answer: 42 } };
const invalid: ReplyCheck = { ok: false, errors: ['/answer must be number'] };

describe('answerParts', () => {
  it('stores the text, then the tool calls, then a valid reply’s JSON beside its text', () => {
    expect(answerParts({ text: 'hi', toolCalls: [call] }, undefined)).toEqual([
      { type: 'text', text: 'hi' },
      { type: 'tool-call', ...call },
    ]);
    expect(answerParts({ text: '{"answer":42}', toolCalls: [] }, valid)).toEqual([
      { type: 'text', text: '{"answer":42}' },
      { type: 'json', json: { answer: 42 } },
    ]);
  });

  it('stores no empty text part and no JSON of an invalid reply', () => {
    expect(answerParts({ text: '', toolCalls: [call] }, undefined)).toEqual([{ type: 'tool-call', ...call }]);
    expect(answerParts({ text: 'oops', toolCalls: [] }, invalid)).toEqual([{ type: 'text', text: 'oops' }]);
  });
});

describe('isFinalAnswer and turnCompletionOf', () => {
  const input = { turnId: 'msg_u', turnTotals: { usage: { inputTokens: 10, outputTokens: 2 }, costUsd: 0.01 } };

  it('ends the turn on an answer without tool calls whose structured reply, if asked for, is valid', () => {
    expect(isFinalAnswer({ text: 'done', toolCalls: [] }, undefined)).toBe(true);
    expect(isFinalAnswer({ text: '{}', toolCalls: [] }, valid)).toBe(true);
    expect(isFinalAnswer({ text: 'oops', toolCalls: [] }, invalid)).toBe(false);
    expect(isFinalAnswer({ text: '', toolCalls: [call] }, undefined)).toBe(false);
  });

  it('writes the turn’s end with a final answer only when the workflow asked the step to end its turn', () => {
    expect(turnCompletionOf(input, 'msg_u', ['msg_u', 'msg_s'], true)).toEqual({
      turnId: 'msg_u',
      messagesTurnId: 'msg_u',
      readUserMessageIds: ['msg_u', 'msg_s'],
      priorUsage: { inputTokens: 10, outputTokens: 2 },
      priorCostUsd: 0.01,
    });
    expect(turnCompletionOf(input, 'msg_u', ['msg_u'], false)).toBeUndefined();
    expect(turnCompletionOf({ turnId: 'msg_u' }, 'msg_u', ['msg_u'], true)).toBeUndefined();
  });
});

describe('the turn a step reads', () => {
  it('is its user message’s for a regenerated turn, else the turn’s own', () => {
    expect(messagesTurnOf({ turnId: 'msg_u' })).toBe('msg_u');
    expect(messagesTurnOf({ turnId: 'turn_regen', userMessageId: 'msg_u' })).toBe('msg_u');
  });

  it('names the user messages of its turn it read, steering ones included, and no other', () => {
    const history = [
      { id: 'msg_0', role: 'user', turnId: 'msg_0' },
      { id: 'msg_a0', role: 'assistant', turnId: 'msg_0' },
      { id: 'msg_u', role: 'user', turnId: 'msg_u' },
      { id: 'msg_a', role: 'assistant', turnId: 'msg_u' },
      { id: 'msg_s', role: 'user', turnId: 'msg_u' },
    ];
    expect(readUserMessageIds(history, 'msg_u')).toEqual(['msg_u', 'msg_s']);
  });
});

describe('stepResultOf and compactFirst', () => {
  it('reads a stored message’s text and tool calls back, and reports tool calls as its finish', () => {
    const parts = [
      { type: 'text' as const, text: 'Let me ' },
      { type: 'tool-call' as const, ...call },
      { type: 'text' as const, text: 'look.' },
    ];
    expect(stepResultOf('msg_a', parts, { inputTokens: 5, outputTokens: 3 }, 0.002)).toEqual({
      messageId: 'msg_a',
      text: 'Let me look.',
      toolCalls: [call],
      finishReason: 'tool-calls',
      usage: { inputTokens: 5, outputTokens: 3 },
      costUsd: 0.002,
    });
    expect(stepResultOf('msg_a', [], null, null)).toMatchObject({ finishReason: 'stop', usage: { inputTokens: 0, outputTokens: 0 } });
  });

  it('asks the turn to compact first with nothing answered, counting the attempts made', () => {
    expect(compactFirst('msg_a', 'context-length', 9_000, 4_096, 2)).toEqual({
      messageId: 'msg_a',
      text: '',
      toolCalls: [],
      finishReason: 'compact',
      usage: { inputTokens: 0, outputTokens: 0 },
      costUsd: null,
      compact: { reason: 'context-length', tokensBefore: 9_000, windowTokens: 4_096, attempts: 2 },
    });
  });
});
