// How many tokens a request will be: the provider's own count of the last reply's request where there
// is one (on a request that already had the current summary), plus an estimate of what came after.
import { describe, expect, it } from 'vitest';
import type { MessagePart, MessageRole, MessageView, TokenUsage } from '../../contract/events.ts';
import { compactedView } from '../../activities/model/compaction-view.ts';
import { messageTokens, requestTokens, textTokens } from '../../activities/model/token-estimate.ts';

let sequence = 0;
function message(role: MessageRole, parts: MessagePart[], usage?: TokenUsage): MessageView {
  sequence += 1;
  const view: MessageView = {
    id: `msg_${sequence}`,
    role,
    parts,
    status: 'complete',
    turnId: null,
    createdAt: new Date(sequence * 1000).toISOString(),
  };
  if (usage) view.usage = usage;
  return view;
}
/** A message of `chars` characters of text: 4 + ceil(chars / 4) tokens. */
const text = (role: MessageRole, chars: number, usage?: TokenUsage) => message(role, [{ type: 'text', text: 'a'.repeat(chars) }], usage);
function summary(throughMessageId: string, summaryText: string): MessageView {
  return message('summary', [
    { type: 'text', text: summaryText },
    { type: 'compaction', throughMessageId, tokensBefore: 9000, tokensAfter: 100 },
  ]);
}

const NOTE = (shown: number, total: number) =>
  `[Cut: this result has ${total} characters; you are shown the first ${shown}. The whole result is stored with the conversation. ` +
  'If you need more of it, call the tool again for a smaller part (a range of lines, a page, a narrower query).]';

describe('textTokens and messageTokens', () => {
  it('count four characters to a token, rounded up', () => {
    expect(textTokens('')).toBe(0);
    expect(textTokens('abc')).toBe(1);
    expect(textTokens('abcd')).toBe(1);
    expect(textTokens('abcde')).toBe(2);
    expect(textTokens('x'.repeat(4000))).toBe(1000);
  });

  it('count a message: 4 for the message, text, tool calls by name and input, 1000 per file, nothing for json or compaction data', () => {
    const parts: MessagePart[] = [
      { type: 'text', text: 'abcdefghi' }, // 3
      { type: 'tool-call', toolCallId: 'c', toolName: 'search', input: { q: 'x' } }, // 2 + 3 ({"q":"x"})
      { type: 'tool-call', toolCallId: 'd', toolName: 'now', input: undefined }, // 1 + 1 ({})
      { type: 'file', url: '/files/a.png', mediaType: 'image/png' }, // 1000
      { type: 'json', json: { a: 'long '.repeat(100) } }, // 0
      { type: 'compaction', throughMessageId: 'm', tokensBefore: 1, tokensAfter: 1 }, // 0
    ];
    expect(messageTokens(message('assistant', parts), 40_000)).toBe(4 + 3 + 2 + 3 + 1 + 1 + 1000);
    expect(messageTokens(message('user', []), 40_000)).toBe(4);
  });

  it('count a tool result as the model is shown it: cut past toolResultMaxChars', () => {
    const result = message('tool', [{ type: 'tool-result', toolCallId: 'c', toolName: 'http', output: 'z'.repeat(10_000) }]);
    // Whole: 4 + 1 (http) + 2500.
    expect(messageTokens(result, 100_000)).toBe(2505);
    const shownChars = 1000 + 2 + NOTE(1000, 10_000).length;
    expect(messageTokens(result, 1000)).toBe(4 + 1 + Math.ceil(shownChars / 4));
    expect(messageTokens(result, 1000)).toBeLessThan(400);
    // JSON is counted as serialised: {"n":1} is 7 characters.
    const json = message('tool', [{ type: 'tool-result', toolCallId: 'c', toolName: 'calc', output: { n: 1 } }]);
    expect(messageTokens(json, 1000)).toBe(4 + 1 + 2);
  });
});

describe('requestTokens', () => {
  it("uses the last reply's reported usage (input and output) plus estimates of the messages after it", () => {
    const messages = [
      text('user', 400), // 104
      text('assistant', 40, { inputTokens: 200, outputTokens: 10 }),
      text('user', 40),
      text('assistant', 40, { inputTokens: 500, outputTokens: 20 }),
      message('tool', [{ type: 'tool-result', toolCallId: 'c', toolName: 'http', output: 'z'.repeat(400) }]), // 4 + 1 + 100
      text('user', 8), // 4 + 2
    ];
    const estimate = requestTokens({ view: compactedView(messages), fixedText: 'f'.repeat(4000), toolResultMaxChars: 40_000 });
    expect(estimate).toBe(500 + 20 + 105 + 6);
  });

  it('counts what follows the reply as cut', () => {
    const messages = [
      text('user', 40),
      text('assistant', 40, { inputTokens: 500, outputTokens: 20 }),
      message('tool', [{ type: 'tool-result', toolCallId: 'c', toolName: 'http', output: 'z'.repeat(10_000) }]),
    ];
    const estimate = requestTokens({ view: compactedView(messages), fixedText: '', toolResultMaxChars: 1000 });
    expect(estimate).toBe(520 + 4 + 1 + Math.ceil((1002 + NOTE(1000, 10_000).length) / 4));
  });

  it('passes over a reply that reports no input tokens', () => {
    const messages = [
      text('user', 40),
      text('assistant', 40, { inputTokens: 300, outputTokens: 30 }),
      text('user', 40), // 14
      text('assistant', 40, { inputTokens: 0, outputTokens: 0 }), // 14
    ];
    expect(requestTokens({ view: compactedView(messages), fixedText: 'x'.repeat(400), toolResultMaxChars: 40_000 })).toBe(330 + 14 + 14);
  });

  it('without any usage, estimates everything plus the system prompt and tools', () => {
    const messages = [text('user', 40), text('assistant', 80), text('user', 4)];
    const estimate = requestTokens({ view: compactedView(messages), fixedText: 'f'.repeat(400), toolResultMaxChars: 40_000 });
    expect(estimate).toBe(100 + 14 + 24 + 5);
  });

  it('ignores usage reported before the summary, and then estimates everything, the summary included', () => {
    const u1 = text('user', 4000);
    const a2 = text('assistant', 4000, { inputTokens: 5000, outputTokens: 1000 });
    const u3 = text('user', 8); // 6
    const a4 = text('assistant', 12, { inputTokens: 9000, outputTokens: 100 }); // 7
    const s = summary(a2.id, 's'.repeat(40)); // 4 + 10
    const u5 = text('user', 5); // 6
    const view = compactedView([u1, a2, u3, a4, s, u5]);
    expect(view.sinceSummary).toBe(2);
    expect(requestTokens({ view, fixedText: 'f'.repeat(400), toolResultMaxChars: 40_000 })).toBe(100 + 14 + 6 + 7 + 6);
  });

  it('uses the usage of a reply after the summary', () => {
    const u1 = text('user', 4000);
    const a2 = text('assistant', 4000, { inputTokens: 5000, outputTokens: 1000 });
    const u3 = text('user', 8);
    const a4 = text('assistant', 12, { inputTokens: 9000, outputTokens: 100 });
    const s = summary(a2.id, 's'.repeat(40));
    const u5 = text('user', 5);
    const a6 = text('assistant', 40, { inputTokens: 3000, outputTokens: 50 });
    const u7 = text('user', 16); // 8
    const view = compactedView([u1, a2, u3, a4, s, u5, a6, u7]);
    expect(requestTokens({ view, fixedText: 'f'.repeat(400), toolResultMaxChars: 40_000 })).toBe(3050 + 8);
  });
});
