// The model's view of a compacted conversation (the latest summary whose summarised message is still
// there, then what follows that message), where a compaction cuts, and what toModelMessages sends of
// a compacted conversation and of long tool results.
import { describe, expect, it } from 'vitest';
import type { ModelMessage } from 'ai';
import type { MessagePart, MessageRole, MessageStatus, MessageView } from '../../contract/events.ts';
import { compactedView, compactionCut, compactionOf, summaryText } from '../../activities/model/compaction-view.ts';
import { summaryMessageText, toModelMessages } from '../../activities/model/history.ts';

let sequence = 0;
function message(role: MessageRole, parts: MessagePart[], status: MessageStatus = 'complete'): MessageView {
  sequence += 1;
  return { id: `msg_${sequence}`, role, parts, status, turnId: null, createdAt: new Date(sequence * 1000).toISOString() };
}
const user = (text: string) => message('user', [{ type: 'text', text }]);
const assistant = (text: string) => message('assistant', [{ type: 'text', text }]);
const tool = (toolCallId = 'call') => message('tool', [{ type: 'tool-result', toolCallId, toolName: 't', output: 'ok' }]);
function summary(through: MessageView | string, text = 'What happened so far.', status: MessageStatus = 'complete'): MessageView {
  const throughMessageId = typeof through === 'string' ? through : through.id;
  return message(
    'summary',
    [
      { type: 'text', text },
      { type: 'compaction', throughMessageId, tokensBefore: 1000, tokensAfter: 100 },
    ],
    status,
  );
}
const ids = (messages: readonly MessageView[]) => messages.map((each) => each.id);

describe('compactionOf and summaryText', () => {
  it('read the compaction part of a complete summary, and join its text parts', () => {
    const a = assistant('a');
    const done = message('summary', [
      { type: 'text', text: 'First half, ' },
      { type: 'compaction', throughMessageId: a.id, tokensBefore: 5000, tokensAfter: 700 },
      { type: 'text', text: 'second half.' },
    ]);
    expect(compactionOf(done)).toEqual({ type: 'compaction', throughMessageId: a.id, tokensBefore: 5000, tokensAfter: 700 });
    expect(summaryText(done)).toBe('First half, second half.');
    // Not complete, not a summary, or no compaction part: nothing.
    expect(compactionOf(summary(a, 'x', 'streaming'))).toBeUndefined();
    expect(compactionOf(summary(a, 'x', 'failed'))).toBeUndefined();
    expect(compactionOf({ ...done, role: 'assistant' })).toBeUndefined();
    expect(compactionOf(message('summary', [{ type: 'text', text: 'no data' }]))).toBeUndefined();
  });
});

describe('compactedView', () => {
  it('without a summary, is the whole conversation', () => {
    const history = [user('hi'), assistant('hello'), tool(), user('bye')];
    const view = compactedView(history);
    expect(view.summary).toBeUndefined();
    expect(ids(view.messages)).toEqual(ids(history));
    expect(view.sinceSummary).toBe(0);
  });

  it('with a summary, is the summary and the messages after the one it names, summaries left out', () => {
    const u1 = user('one');
    const a2 = assistant('two');
    const u3 = user('three');
    const a4 = assistant('four');
    const s = summary(a2, 'The user counted to two.');
    const u5 = user('five');
    const a6 = assistant('six');
    const view = compactedView([u1, a2, u3, a4, s, u5, a6]);
    expect(view.summary).toEqual({ messageId: s.id, text: 'The user counted to two.', throughMessageId: a2.id });
    expect(ids(view.messages)).toEqual(ids([u3, a4, u5, a6]));
    // u3 and a4 were stored before the summary: usage they report was measured without it.
    expect(view.sinceSummary).toBe(2);
  });

  it('with a summary written right after the message it names, counts nothing before it', () => {
    const u1 = user('one');
    const a2 = assistant('two');
    const s = summary(a2);
    const u3 = user('three');
    const view = compactedView([u1, a2, s, u3]);
    expect(view.summary?.messageId).toBe(s.id);
    expect(ids(view.messages)).toEqual([u3.id]);
    expect(view.sinceSummary).toBe(0);
  });

  it('ignores a summary whose message is no longer in the conversation (reverted)', () => {
    const u1 = user('one');
    const a2 = assistant('two');
    const s = summary('msg_reverted');
    const u3 = user('three');
    const view = compactedView([u1, a2, s, u3]);
    expect(view.summary).toBeUndefined();
    expect(ids(view.messages)).toEqual(ids([u1, a2, u3]));
    expect(view.sinceSummary).toBe(0);
  });

  it('ignores a summary that is not complete', () => {
    const u1 = user('one');
    const a2 = assistant('two');
    const s = summary(a2, 'half written', 'streaming');
    const u3 = user('three');
    const view = compactedView([u1, a2, s, u3]);
    expect(view.summary).toBeUndefined();
    expect(ids(view.messages)).toEqual(ids([u1, a2, u3]));
  });

  it('applies the latest of two summaries', () => {
    const u1 = user('one');
    const a2 = assistant('two');
    const s1 = summary(a2, 'first summary');
    const u3 = user('three');
    const a4 = assistant('four');
    const u5 = user('five');
    const a6 = assistant('six');
    const s2 = summary(a4, 'second summary');
    const u7 = user('seven');
    const view = compactedView([u1, a2, s1, u3, a4, u5, a6, s2, u7]);
    expect(view.summary).toEqual({ messageId: s2.id, text: 'second summary', throughMessageId: a4.id });
    expect(ids(view.messages)).toEqual(ids([u5, a6, u7]));
    expect(view.sinceSummary).toBe(2);
  });

  it('falls back to the earlier summary when the latest names a message that is gone', () => {
    const u1 = user('one');
    const a2 = assistant('two');
    const s1 = summary(a2, 'first summary');
    const u3 = user('three');
    const s2 = summary('msg_gone', 'second summary');
    const u4 = user('four');
    const view = compactedView([u1, a2, s1, u3, s2, u4]);
    expect(view.summary).toEqual({ messageId: s1.id, text: 'first summary', throughMessageId: a2.id });
    expect(ids(view.messages)).toEqual(ids([u3, u4]));
    expect(view.sinceSummary).toBe(0);
  });

  it('ignores a summary placed before the message it names', () => {
    const u1 = user('one');
    const a2 = assistant('two');
    const u3 = user('three');
    const s = summary(u3);
    const history = [u1, a2, s, u3, assistant('four')];
    const view = compactedView(history);
    expect(view.summary).toBeUndefined();
    expect(ids(view.messages)).toEqual(ids([u1, a2, u3, history[4]!]));
    expect(view.sinceSummary).toBe(0);
  });
});

describe('compactionCut', () => {
  const tenEach = () => 10;
  const roles = (...list: MessageRole[]) => list.map((role) => message(role, [{ type: 'text', text: role }]));

  it('keeps the longest suffix within the budget that starts at a user message', () => {
    const messages = roles('user', 'assistant', 'tool', 'assistant', 'user', 'assistant');
    // 20 tokens fit: the last two, starting at the user message.
    expect(compactionCut(messages, 25, tenEach)).toBe(4);
    // 30 would fit from the assistant message at 3, but a user message is preferred.
    expect(compactionCut(messages, 35, tenEach)).toBe(4);
  });

  it('counts each message as tokensOf says', () => {
    const messages = roles('user', 'assistant', 'user', 'assistant', 'user', 'assistant');
    const sizes = [40, 0, 5, 5, 50, 5];
    const tokensOf = (each: MessageView) => sizes[messages.indexOf(each)]!;
    expect(compactionCut(messages, 100, tokensOf)).toBe(2);
    // 65 is exactly what index 1 on takes; one less and the suffix starts at 3, so at the user message 4.
    expect(compactionCut(messages, 65, tokensOf)).toBe(2);
    expect(compactionCut(messages, 64, tokensOf)).toBe(4);
    // 54: only the last message fits, an assistant message.
    expect(compactionCut(messages, 54, tokensOf)).toBe(5);
  });

  it('falls back to an assistant message when no user message starts a suffix that fits', () => {
    const messages = roles('user', 'assistant', 'tool', 'assistant', 'tool', 'assistant');
    expect(compactionCut(messages, 35, tenEach)).toBe(3);
    // Never at a tool message: its call would be summarised away.
    expect(compactionCut(messages, 25, tenEach)).toBe(5);
  });

  it('always summarises something: never 0', () => {
    const big = (each: MessageView, first: MessageView) => (each === first ? 1_000_000 : 10);
    const startsBig = roles('user', 'assistant', 'tool');
    expect(compactionCut(startsBig, 30, (each) => big(each, startsBig[0]!))).toBe(1);
    const twoUsers = roles('user', 'user');
    expect(compactionCut(twoUsers, 30, (each) => big(each, twoUsers[0]!))).toBe(1);
  });

  it('when everything fits, keeps the last turn and summarises the turns before it', () => {
    expect(compactionCut(roles('user', 'user', 'assistant'), 1_000_000, tenEach)).toBe(1);
    expect(compactionCut(roles('user', 'assistant', 'user', 'assistant', 'tool', 'assistant'), 1_000_000, tenEach)).toBe(2);
    expect(compactionCut(roles('user', 'assistant', 'user', 'assistant', 'user', 'assistant'), 60, tenEach)).toBe(4);
    // A single turn that fits: nothing to summarise.
    expect(compactionCut(roles('user', 'assistant', 'tool', 'assistant'), 1_000_000, tenEach)).toBeUndefined();
    expect(compactionCut(roles('assistant', 'tool', 'assistant', 'tool'), 1_000_000, tenEach)).toBeUndefined();
  });

  it('is undefined when there is nothing to summarise or no place to cut', () => {
    expect(compactionCut([], 1000, tenEach)).toBeUndefined();
    expect(compactionCut(roles('user'), 1000, tenEach)).toBeUndefined();
    expect(compactionCut(roles('assistant', 'tool', 'tool'), 1000, tenEach)).toBeUndefined();
    expect(compactionCut(roles('user', 'tool'), 0, tenEach)).toBeUndefined();
    // Not all of it fits, and still no user or assistant message after the first.
    expect(compactionCut(roles('assistant', 'tool', 'tool'), 15, tenEach)).toBeUndefined();
  });

  it('when even the last message is past the budget, cuts before the last message it may start at', () => {
    const messages = roles('user', 'assistant', 'tool', 'user', 'assistant', 'tool');
    const tokensOf = (each: MessageView) => (each === messages[5] ? 100 : 10);
    expect(compactionCut(messages, 50, tokensOf)).toBe(4);
    const endsWithUser = roles('user', 'assistant', 'user');
    expect(compactionCut(endsWithUser, 5, tenEach)).toBe(2);
  });
});

const NOTE = (shown: number, total: number) =>
  `[Cut: this result has ${total} characters; you are shown the first ${shown}. The whole result is stored with the conversation. ` +
  'If you need more of it, call the tool again for a smaller part (a range of lines, a page, a narrower query).]';

describe('toModelMessages of a compacted conversation', () => {
  it('sends the summary as a user message, then only the messages after the one it names', () => {
    const u1 = user('What is the capital of France?');
    const a2 = assistant('Paris.');
    const s = summary(a2, 'The user asked about France; the answer was Paris.');
    const u3 = user('And of Spain?');
    const a4 = assistant('Madrid.');
    const messages = toModelMessages([u1, a2, s, u3, a4]);
    expect(summaryMessageText('The user asked about France; the answer was Paris.')).toBe(
      '[Summary of the earlier part of this conversation, which no longer fits in the context window]\n\n' +
        'The user asked about France; the answer was Paris.',
    );
    expect(messages).toEqual<ModelMessage[]>([
      {
        role: 'user',
        content: [{ type: 'text', text: summaryMessageText('The user asked about France; the answer was Paris.') }],
      },
      { role: 'user', content: [{ type: 'text', text: 'And of Spain?' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Madrid.' }] },
    ]);
  });

  it('sends the whole conversation, and no summary, when the summary does not apply', () => {
    const u1 = user('one');
    const a2 = assistant('two');
    const s = summary('msg_reverted', 'stale');
    const u3 = user('three');
    expect(toModelMessages([u1, a2, s, u3])).toEqual<ModelMessage[]>([
      { role: 'user', content: [{ type: 'text', text: 'one' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'two' }] },
      { role: 'user', content: [{ type: 'text', text: 'three' }] },
    ]);
  });

  it('cuts tool results past toolResultMaxChars, with the note, and leaves shorter ones alone', () => {
    const long = 'x'.repeat(50);
    const json = { data: 'y'.repeat(30) }; // 41 characters as JSON
    const calls = ['long', 'short', 'exact', 'json', 'small-json', 'error'].map((id) => ({
      type: 'tool-call' as const,
      toolCallId: id,
      toolName: 't',
      input: {},
    }));
    const messages = toModelMessages(
      [
        user('go'),
        message('assistant', calls),
        message('tool', [
          { type: 'tool-result', toolCallId: 'long', toolName: 't', output: long },
          { type: 'tool-result', toolCallId: 'short', toolName: 't', output: 'short' },
          { type: 'tool-result', toolCallId: 'exact', toolName: 't', output: 'e'.repeat(20) },
          { type: 'tool-result', toolCallId: 'json', toolName: 't', output: json },
          { type: 'tool-result', toolCallId: 'small-json', toolName: 't', output: { a: 1 } },
          { type: 'tool-result', toolCallId: 'error', toolName: 't', output: 'E'.repeat(25), isError: true },
        ]),
      ],
      { toolResultMaxChars: 20 },
    );
    expect(messages[2]).toEqual<ModelMessage>({
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'long', toolName: 't', output: { type: 'text', value: `${'x'.repeat(20)}\n\n${NOTE(20, 50)}` } },
        { type: 'tool-result', toolCallId: 'short', toolName: 't', output: { type: 'text', value: 'short' } },
        { type: 'tool-result', toolCallId: 'exact', toolName: 't', output: { type: 'text', value: 'e'.repeat(20) } },
        {
          type: 'tool-result',
          toolCallId: 'json',
          toolName: 't',
          output: { type: 'text', value: `{"data":"yyyyyyyyyyy\n\n${NOTE(20, 41)}` },
        },
        { type: 'tool-result', toolCallId: 'small-json', toolName: 't', output: { type: 'json', value: { a: 1 } } },
        {
          type: 'tool-result',
          toolCallId: 'error',
          toolName: 't',
          output: { type: 'error-text', value: `${'E'.repeat(20)}\n\n${NOTE(20, 25)}` },
        },
      ],
    });
  });

  it('cuts nothing without toolResultMaxChars', () => {
    const long = 'x'.repeat(100_000);
    const messages = toModelMessages([
      message('assistant', [{ type: 'tool-call', toolCallId: 'c', toolName: 't', input: {} }]),
      message('tool', [{ type: 'tool-result', toolCallId: 'c', toolName: 't', output: long }]),
    ]);
    expect(messages[1]!.content).toEqual([{ type: 'tool-result', toolCallId: 'c', toolName: 't', output: { type: 'text', value: long } }]);
  });

  it('keeps a tool round trip after the summary whole', () => {
    const u1 = user('old');
    const a2 = assistant('old answer');
    const s = summary(a2, 'Earlier: small talk.');
    const u3 = user('time?');
    const a4 = message('assistant', [{ type: 'tool-call', toolCallId: 'now', toolName: 'current_time', input: {} }]);
    const t5 = message('tool', [{ type: 'tool-result', toolCallId: 'now', toolName: 'current_time', output: 'noon' }]);
    const a6 = assistant('It is noon.');
    expect(toModelMessages([u1, a2, s, u3, a4, t5, a6], { toolResultMaxChars: 1000 })).toEqual<ModelMessage[]>([
      { role: 'user', content: [{ type: 'text', text: summaryMessageText('Earlier: small talk.') }] },
      { role: 'user', content: [{ type: 'text', text: 'time?' }] },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'now', toolName: 'current_time', input: {} }] },
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'now', toolName: 'current_time', output: { type: 'text', value: 'noon' } }],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'It is noon.' }] },
    ]);
  });
});
