// How many tokens a request will be, before it is sent: what decides whether a step compacts first.
// No tokenizer is exact for every provider (each has its own, Anthropic's is not published), so this
// counts four characters to a token, the usual rule for English and code, and leans on what the
// provider itself reported: the input and output tokens of the conversation's last reply, plus an
// estimate of what came after it. A file counts FILE_TOKENS (an image is 85 to 1,600 tokens at OpenAI,
// up to about 1,600 at Anthropic); the files' text is not read here.
import type { MessagePart, MessageView } from '../../contract/events.ts';
import type { CompactedView } from './compaction-view.ts';
import { shownToolResult } from './tool-result-view.ts';

const CHARS_PER_TOKEN = 4;
/** What a message costs beyond its content (role, separators), in the providers' accounting. */
const MESSAGE_TOKENS = 4;
const FILE_TOKENS = 1_000;

export function textTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

function partTokens(part: MessagePart, toolResultMaxChars: number): number {
  switch (part.type) {
    case 'text':
      return textTokens(part.text);
    case 'tool-call':
      return textTokens(part.toolName) + textTokens(JSON.stringify(part.input ?? {}));
    case 'tool-result':
      return textTokens(part.toolName) + textTokens(shownToolResult(part.output, toolResultMaxChars).text);
    case 'file':
      return FILE_TOKENS;
    case 'json':
    case 'compaction':
      // A structured reply is sent as the text beside it; a compaction's data is not sent at all.
      return 0;
    case 'subtask':
      return 0;
  }
}

export function messageTokens(message: MessageView, toolResultMaxChars: number): number {
  return MESSAGE_TOKENS + message.parts.reduce((sum, part) => sum + partTokens(part, toolResultMaxChars), 0);
}

export interface RequestEstimate {
  view: CompactedView;
  /** The system prompt and the tools' definitions, as sent. */
  fixedText: string;
  toolResultMaxChars: number;
}

/**
 * The request's tokens: from the last reply that reports usage on a request with the current summary
 * (its input and output), plus the messages after it; else everything estimated.
 */
export function requestTokens({ view, fixedText, toolResultMaxChars }: RequestEstimate): number {
  const { messages, sinceSummary, summary } = view;
  const tokensOf = (message: MessageView) => messageTokens(message, toolResultMaxChars);
  for (let index = messages.length - 1; index >= sinceSummary; index--) {
    const usage = messages[index]!.role === 'assistant' ? messages[index]!.usage : undefined;
    if (usage && usage.inputTokens > 0) {
      const after = messages.slice(index + 1).reduce((sum, message) => sum + tokensOf(message), 0);
      return usage.inputTokens + usage.outputTokens + after;
    }
  }
  const all = messages.reduce((sum, message) => sum + tokensOf(message), 0);
  return textTokens(fixedText) + (summary ? MESSAGE_TOKENS + textTokens(summary.text) : 0) + all;
}
