// Our stored messages (lib/events.ts) as AI SDK v7 model messages, shaped so that every provider
// accepts them: no empty text blocks, and every tool call answered by exactly one tool result in
// the tool message that follows it.
//
// - A message still `streaming` is skipped: it is the unfinished reply of a step, perhaps this very
//   step's own earlier attempt, and must not be fed back to the model.
// - Aborted and failed assistant messages keep the text they got (what the user saw).
// - A tool call whose result never came (the turn was aborted while the tool ran) gets an error
//   result saying so, and a result whose call is not in the assistant message before it is
//   dropped: providers reject either imbalance.
// - File parts become file content only when `resolveFile` gives their bytes (the caller reads
//   them from storage first; `fileUrls` lists what to read). Otherwise they become a text note
//   `[file: <filename>]`, so the model knows something was attached. Text files (text/*, JSON)
//   become text after that note: not every provider takes text as a file part.
// - A compacted conversation (compaction-view.ts) is sent as its summary, as a user message that says
//   what it is, then the messages after the last one it summarises.
// - A tool result past `toolResultMaxChars` is cut, with a note (tool-result-view.ts).
import type { FilePart, JSONValue, ModelMessage, TextPart, ToolCallPart, ToolModelMessage, ToolResultPart } from 'ai';
import type { MessagePart, MessageView } from '../../contract/events.ts';
import { isTextMediaType } from '../../lib/media-types.ts';
import { compactedView } from './compaction-view.ts';
import { shownToolResult } from './tool-result-view.ts';

export interface ResolvedFile {
  data: Uint8Array;
  mediaType: string;
}

export interface HistoryOptions {
  /** The bytes of an uploaded file, or undefined to send the text note instead. */
  resolveFile?: (url: string) => ResolvedFile | undefined;
  /** Longest tool result the model is shown whole (TOOL_RESULT_MAX_CHARS); unlimited when absent. */
  toolResultMaxChars?: number;
}

/** How a compaction's summary is introduced to the model. */
export function summaryMessageText(summary: string): string {
  return `[Summary of the earlier part of this conversation, which no longer fits in the context window]\n\n${summary}`;
}

export const MISSING_TOOL_RESULT = 'No result: the turn ended before this tool call completed.';

type FilePartView = Extract<MessagePart, { type: 'file' }>;

export function toModelMessages(history: readonly MessageView[], options: HistoryOptions = {}): ModelMessage[] {
  const { summary, messages } = compactedView(history);
  const out: ModelMessage[] = summary ? [{ role: 'user', content: [{ type: 'text', text: summaryMessageText(summary.text) }] }] : [];
  const maxChars = options.toolResultMaxChars ?? Infinity;
  // Tool calls of the last assistant message still waiting for a result, and where results go.
  let pending = new Map<string, string>();
  let results: ToolModelMessage | undefined;

  const answer = (part: ToolResultPart) => {
    if (!results) out.push((results = { role: 'tool', content: [] }));
    results.content.push(part);
    pending.delete(part.toolCallId);
  };
  const closePending = () => {
    for (const [toolCallId, toolName] of pending) {
      answer({ type: 'tool-result', toolCallId, toolName, output: { type: 'error-text', value: MISSING_TOOL_RESULT } });
    }
    pending = new Map();
    results = undefined;
  };

  for (const message of messages) {
    if (message.status === 'streaming') continue;
    if (message.role === 'tool') {
      for (const part of message.parts) {
        if (part.type === 'tool-result' && pending.has(part.toolCallId)) answer(toolResult(part, maxChars));
      }
      continue;
    }
    closePending();
    if (message.role === 'user') {
      const content = message.parts.flatMap((part) => userPart(part, options));
      if (content.length > 0) out.push({ role: 'user', content });
    } else {
      const content = message.parts.flatMap((part) => assistantPart(part));
      if (content.length === 0) continue;
      out.push({ role: 'assistant', content });
      for (const part of content) if (part.type === 'tool-call') pending.set(part.toolCallId, part.toolName);
    }
  }
  closePending();
  return out;
}

/** The urls of every file part, for the caller to read before calling `toModelMessages`. */
export function fileUrls(messages: readonly MessageView[]): string[] {
  const urls = messages.flatMap((message) => message.parts.flatMap((part) => (part.type === 'file' ? [part.url] : [])));
  return [...new Set(urls)];
}

function userPart(part: MessagePart, options: HistoryOptions): Array<TextPart | FilePart> {
  if (part.type === 'text') return part.text.trim() ? [{ type: 'text', text: part.text }] : [];
  if (part.type !== 'file') return [];
  const file = options.resolveFile?.(part.url);
  if (!file) return [fileNote(part)];
  if (isTextMediaType(file.mediaType)) return [{ type: 'text', text: `${fileNote(part).text}\n${new TextDecoder().decode(file.data)}` }];
  const filePart: FilePart = { type: 'file', data: { type: 'data', data: file.data }, mediaType: file.mediaType };
  if (part.filename) filePart.filename = part.filename;
  return [filePart];
}

function assistantPart(part: MessagePart): Array<TextPart | ToolCallPart> {
  switch (part.type) {
    case 'text':
      return part.text.trim() ? [{ type: 'text', text: part.text }] : [];
    case 'tool-call':
      return [{ type: 'tool-call', toolCallId: part.toolCallId, toolName: part.toolName, input: part.input ?? {} }];
    case 'file':
      return [fileNote(part)];
    default:
      return [];
  }
}

function toolResult(part: Extract<MessagePart, { type: 'tool-result' }>, maxChars: number): ToolResultPart {
  const { toolCallId, toolName, isError } = part;
  const output = shownToolResult(part.output, maxChars).value;
  let converted: ToolResultPart['output'];
  if (typeof output === 'string') converted = { type: isError ? 'error-text' : 'text', value: output };
  else converted = { type: isError ? 'error-json' : 'json', value: (output ?? null) as JSONValue };
  return { type: 'tool-result', toolCallId, toolName, output: converted };
}

function fileNote(part: FilePartView): TextPart {
  const name = part.filename ?? part.url.split('/').pop() ?? part.url;
  return { type: 'text', text: `[file: ${name}]` };
}
