// What a model step sends: the conversation read from PostgreSQL up to its turn, the agent's
// instructions and tools, and the files its messages name; or, past the compaction threshold of the
// model's window, nothing but the size that says the turn must compact first.
import type { ModelMessage, ToolSet } from 'ai';
import type { ModelStepInput } from '../../core/turn-types.ts';
import { readUserMessageIds } from '../../core/step-answer.ts';
import { conversation } from '../../store/messages.ts';
import type { Bundle } from '../../contract/bundle.ts';
import type { ModelRef } from '../../contract/bundle.ts';
import { systemPrompt } from '../model/system-prompt.ts';
import { toModelMessages } from '../model/history.ts';
import { compactedView } from '../model/compaction-view.ts';
import { requestTokens } from '../model/token-estimate.ts';
import { modelToolSet } from '../tools/index.ts';
import { checkContext, fixedRequestText, type ContextCheck } from './context-check.ts';
import { jsonReplyInstructions } from './json-reply.ts';
import { conversationFiles } from './media-files.ts';
import type { CachedRevision } from './revision-cache.ts';
import type { ModelStepDeps } from './step-deps.ts';
import type { TurnFiles } from './turn-files.ts';

export interface StepRequest {
  instructions: string | undefined;
  messages: ModelMessage[];
  tools: ToolSet;
  /** The user messages of the turn the step read (core/step-answer.ts). */
  turnUserMessageIds: string[];
  /** The request's size, estimated, for the budget's hold. */
  inputTokens: number;
  /** The size checked against the model's window, when the step may compact. */
  checked: ContextCheck | undefined;
}

export interface StepRequestScope {
  input: ModelStepInput;
  revision: CachedRevision;
  ref: ModelRef;
  /** The credentials' scope, for the context window learned on them. */
  scope: string;
  /** The turn the step's messages belong to (core/step-answer.ts, messagesTurnOf). */
  messagesTurnId: string;
  turnFiles: TurnFiles;
  turnKey: string;
}

/** The request, or `{ over }` when the conversation is past the compaction threshold. */
export async function stepRequest(deps: ModelStepDeps, scope: StepRequestScope): Promise<StepRequest | { over: ContextCheck }> {
  const { input, revision, ref } = scope;
  const { bundle, skills, remoteTools, callableAgents } = revision;
  const { context: contextSettings, limits } = deps.config;
  const history = await conversation(deps.db, input.sessionId, scope.messagesTurnId);
  const instructions = withReplyFormat(systemPrompt(bundle, skills), bundle);
  // A turn that must end in a structured reply may be told to do it without tools (allowSubtasks: false).
  const tools = bundle.jsonReply && !bundle.jsonReply.allowSubtasks ? {} : modelToolSet(bundle, skills, remoteTools, callableAgents);
  const fixedText = fixedRequestText(instructions, tools);
  // Past the compaction threshold, the turn compacts the conversation first and runs this step again.
  const checked =
    input.mayCompact && !input.compacted
      ? checkContext(history, fixedText, await deps.contextWindows.of(ref, scope.scope), contextSettings)
      : undefined;
  if (checked?.over) return { over: checked };
  const view = compactedView(history);
  const resolveFile = await conversationFiles(deps, input.sessionId, view.messages, {
    limitBytes: limits.turnFileBytes,
    files: scope.turnFiles,
    turnKey: scope.turnKey,
  });
  return {
    instructions,
    tools,
    messages: toModelMessages(history, { resolveFile, toolResultMaxChars: contextSettings.toolResultMaxChars }),
    turnUserMessageIds: readUserMessageIds(history, scope.messagesTurnId),
    inputTokens: checked?.tokens ?? requestTokens({ view, fixedText, toolResultMaxChars: contextSettings.toolResultMaxChars }),
    checked,
  };
}

function withReplyFormat(prompt: string | undefined, bundle: Bundle): string | undefined {
  if (!bundle.jsonReply) return prompt;
  return [prompt, jsonReplyInstructions(bundle.jsonReply)].filter(Boolean).join('\n\n');
}
