// One model call, streamed: the prompt and tools converted by the AI SDK exactly as `streamText`
// converts them, the provider's stream parsed by the SDK (tool calls checked against their schemas),
// and nothing else. `streamText` runs each part through a multi-step agent loop of its own (several
// web-stream stages, callbacks, result promises) that our loop does not use. That loop costs several
// times this call's CPU per token, which at 50 concurrent streams is the difference between a worker
// that keeps up with the model and one that falls behind it (docs/benchmarks.md, "Figures behind
// choices in the code").
//
// A call that fails before it streams (a refused request, a connection error, a prompt the SDK
// cannot convert) or while it streams (a dropped connection, an abort) ends with one `error` part,
// as `streamText` would, so the step handles every failure in one place.
import {
  experimental_streamLanguageModelCall as streamLanguageModelCall,
  type Experimental_LanguageModelStreamPart as LanguageModelStreamPart,
  type LanguageModel,
  type ModelMessage,
  type SystemModelMessage,
  type OutputInterface,
  type ToolSet,
} from 'ai';

export type ModelCallPart = LanguageModelStreamPart<ToolSet>;

export interface ModelCallOptions {
  model: LanguageModel;
  /** The system prompt; a system message when it carries provider options (a cache mark). */
  instructions: string | SystemModelMessage | undefined;
  messages: ModelMessage[];
  tools: ToolSet;
  maxOutputTokens?: number;
  /** A structured reply: its response format goes to the provider (its structured-output mode, where it has one). */
  output?: OutputInterface;
  abortSignal: AbortSignal;
}

export async function* streamModelCall(options: ModelCallOptions): AsyncGenerator<ModelCallPart> {
  try {
    const { stream } = await streamLanguageModelCall(options);
    for await (const part of stream) yield part;
  } catch (error) {
    yield { type: 'error', error };
  }
}
