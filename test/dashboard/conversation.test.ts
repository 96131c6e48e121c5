// The session page's conversation, folded from events: what a reader of the live stream must see
// whatever the order and overlap of what arrives.
import { expect, test } from 'vitest';
import type { MessageView, SessionEvent } from '../../sdk/src/index.ts';
import { applyEvent, emptyConversation, messageText, type Conversation } from '../../dashboard/src/session/conversation.ts';

const AT = '2026-11-25T10:00:00.000Z';
const base = { at: AT, sessionId: 'ses_1' };

function message(id: string, role: MessageView['role'], text: string, status: MessageView['status'] = 'complete'): MessageView {
  return { id, role, parts: text ? [{ type: 'text', text }] : [], status, turnId: 'msg_u', createdAt: AT };
}

function fold(events: SessionEvent[], start: Conversation = emptyConversation()): Conversation {
  return events.reduce(applyEvent, start);
}

const turn: SessionEvent[] = [
  { ...base, seq: 1, type: 'message.created', message: message('msg_u', 'user', 'hi') },
  { ...base, seq: 2, type: 'turn.started', turnId: 'msg_u' },
  { ...base, seq: 3, type: 'message.part.delta', messageId: 'msg_a', delta: 'Hel' },
  { ...base, seq: 4, type: 'step.retry', messageId: 'msg_a', attempt: 2 },
  { ...base, seq: 5, type: 'message.part.delta', messageId: 'msg_a', delta: 'Hello' },
  { ...base, seq: 6, type: 'message.part.delta', messageId: 'msg_a', delta: ' there' },
];

test('deltas stream into the reply, a retried step drops its text, and the running status shows', () => {
  const state = fold(turn);
  expect(state.status).toBe('running');
  expect(state.entries.map((entry) => entry.kind)).toEqual(['message', 'message']);
  expect(messageText(state.messages.get('msg_a')!)).toBe('Hello there');
});

test('an event at or below the last seq applied (a replay overlapping the live stream) changes nothing', () => {
  const once = fold(turn);
  expect(fold(turn.slice(2), once)).toBe(once);
});

test('the completed message replaces the streamed text; the turn ends idle', () => {
  const state = fold([
    ...turn,
    { ...base, seq: 7, type: 'message.completed', message: message('msg_a', 'assistant', 'Hello there') },
    { ...base, seq: 8, type: 'turn.completed', turnId: 'msg_u', usage: { inputTokens: 3, outputTokens: 2 }, costUsd: null },
  ]);
  expect(state.status).toBe('idle');
  expect(state.messages.get('msg_a')).toMatchObject({ streamed: '', status: 'complete' });
  expect(messageText(state.messages.get('msg_a')!)).toBe('Hello there');
});

test('a tool call shows with its result; a question waits, then is answered', () => {
  const state = fold([
    ...turn.slice(0, 2),
    { ...base, seq: 3, type: 'tool.call', messageId: 'msg_a', toolCallId: 'c1', toolName: 'ask_my_user', input: { question: 'Go?' } },
    {
      ...base,
      seq: 4,
      type: 'approval.requested',
      approvalId: 'apr_1',
      question: 'Go?',
      options: ['yes', 'no'],
      expiresAt: AT,
      source: 'tool',
    },
  ]);
  expect(state.status).toBe('waiting');
  expect(state.approvals.get('apr_1')?.state).toBe('waiting');
  const answered = fold(
    [
      { ...base, seq: 5, type: 'approval.answered', approvalId: 'apr_1', choice: 'yes', note: 'ok', via: 'api', answeredAt: AT },
      { ...base, seq: 6, type: 'tool.result', messageId: 'msg_a', toolCallId: 'c1', toolName: 'ask_my_user', output: 'yes' },
    ],
    state,
  );
  expect(answered.status).toBe('running');
  expect(answered.approvals.get('apr_1')).toMatchObject({ state: 'answered', choice: 'yes', note: 'ok' });
  expect(answered.tools.get('c1')?.result).toEqual({ output: 'yes', isError: false });
  expect(answered.messages.get('msg_a')?.parts).toEqual([
    { type: 'tool-call', toolCallId: 'c1', toolName: 'ask_my_user', input: { question: 'Go?' } },
  ]);
});

test('reverted messages leave the conversation; failed and stopped turns are told', () => {
  const state = fold([
    ...turn,
    { ...base, seq: 7, type: 'turn.aborted', turnId: 'msg_u' },
    { ...base, seq: 8, type: 'messages.reverted', messageIds: ['msg_u', 'msg_a'] },
    { ...base, seq: 9, type: 'message.created', message: message('msg_v', 'user', 'again') },
    { ...base, seq: 10, type: 'turn.failed', turnId: 'msg_v', error: 'the model is unreachable' },
  ]);
  expect(state.entries).toEqual([
    { kind: 'turn-aborted', seq: 7 },
    { kind: 'message', id: 'msg_v' },
    { kind: 'turn-failed', error: 'the model is unreachable', seq: 10 },
  ]);
  expect(state.status).toBe('idle');
});
