// What the model is sent of a conversation that has been compacted, and where the next compaction
// cuts it. A compaction (activities/turn/compaction.ts) stores a `summary` message naming the last
// message it summarises (`throughMessageId`); the stored conversation is never changed. So the
// model's view is computed here each time: the latest summary whose named message is still in the
// conversation, then everything after that message. A revert or fork to before the summary leaves no
// summary to find, and the conversation is sent as if it had never been compacted.
import type { MessagePart, MessageView } from '../../contract/events.ts';

type CompactionPart = Extract<MessagePart, { type: 'compaction' }>;

export interface CompactedView {
  /** The summary that applies: it stands for every message up to and including `throughMessageId`. */
  summary?: { messageId: string; text: string; throughMessageId: string };
  /** The messages the model is sent after the summary (all of them when there is none); summaries left out. */
  messages: MessageView[];
  /**
   * Index in `messages` of the first message stored after the summary itself: the usage an assistant
   * message from there on reports was measured on a request that already had the summary.
   */
  sinceSummary: number;
}

export function compactionOf(message: MessageView): CompactionPart | undefined {
  if (message.role !== 'summary' || message.status !== 'complete') return undefined;
  return message.parts.find((part): part is CompactionPart => part.type === 'compaction');
}

export function summaryText(message: MessageView): string {
  return message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
}

export function compactedView(history: readonly MessageView[]): CompactedView {
  for (let index = history.length - 1; index >= 0; index--) {
    const message = history[index]!;
    const compaction = compactionOf(message);
    if (!compaction) continue;
    // A fork's copy names the copy of the message (store/fork.ts).
    const through = history.findIndex((candidate) => candidate.id === compaction.throughMessageId);
    if (through < 0 || through >= index) continue;
    const kept = history.slice(through + 1).filter((candidate) => candidate.role !== 'summary');
    const before = history.slice(through + 1, index).filter((candidate) => candidate.role !== 'summary').length;
    return {
      summary: { messageId: message.id, text: summaryText(message), throughMessageId: compaction.throughMessageId },
      messages: kept,
      sinceSummary: before,
    };
  }
  return { messages: history.filter((message) => message.role !== 'summary'), sinceSummary: 0 };
}

/**
 * Where a compaction cuts `messages`: the index of the first message kept whole, so that the kept
 * messages are at most `keepTokens` (as `tokensOf` counts them) and start at a user message, or failing
 * that at an assistant message (a step's tool calls with their results after them). When everything
 * fits, the last turn is kept and the turns before it summarised. Undefined when there is nothing to
 * summarise (a single turn that fits, or no place to cut).
 */
export function compactionCut(
  messages: readonly MessageView[],
  keepTokens: number,
  tokensOf: (message: MessageView) => number,
): number | undefined {
  const startsHere = (index: number, roles: ReadonlyArray<MessageView['role']>) => index > 0 && roles.includes(messages[index]!.role);
  // All of it fits (a compaction asked for early): the turns before the last are summarised, if any.
  if (messages.reduce((sum, message) => sum + tokensOf(message), 0) <= keepTokens) {
    const lastTurn = messages.findLastIndex((message) => message.role === 'user');
    return lastTurn > 0 ? lastTurn : undefined;
  }
  // The earliest index whose suffix fits.
  let fits = messages.length;
  let kept = 0;
  for (let index = messages.length - 1; index > 0; index--) {
    kept += tokensOf(messages[index]!);
    if (kept > keepTokens) break;
    fits = index;
  }
  for (const roles of [['user'], ['user', 'assistant']] as const) {
    for (let index = fits; index < messages.length; index++) if (startsHere(index, roles)) return index;
  }
  // Even the last message is past the budget: cut right before it, at the last place allowed.
  for (let index = messages.length - 1; index > 0; index--) if (startsHere(index, ['user', 'assistant'])) return index;
  return undefined;
}
