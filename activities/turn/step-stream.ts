// One model call of a step: started with its chat span, then its stream read. Its text goes to the
// delta writer as it comes, its tool calls, finish and error are collected, and the output limit stops
// the call once passed. The step (model-step.ts) then decides from what was read (core/step-ending.ts,
// core/step-answer.ts).
import { jsonSchema, Output, type JSONSchema7, type LanguageModel } from 'ai';
import type { ModelStepInput, ToolCall } from '../../core/turn-types.ts';
import type { ModelRef } from '../../contract/bundle.ts';
import type { Config } from '../../lib/config.ts';
import { storableText } from '../../lib/storable-text.ts';
import { startChatSpan, type ChatSpan } from '../../lib/genai-spans.ts';
import { cachesByBreakpoints, withCacheBreakpoints } from '../model/cache-breakpoints.ts';
import { streamModelCall, type ModelCallPart } from '../model/stream-call.ts';
import type { CachedRevision } from './revision-cache.ts';
import type { StepRequest } from './step-request.ts';
import type { DeltaWriter } from './delta-writer.ts';
import type { OutputMeter } from '../../core/output-limit.ts';

export interface ReadStream {
  text: string;
  toolCalls: ToolCall[];
  /** The finish part, with the call's usage; absent when a provider just closed the connection. */
  end?: Extract<ModelCallPart, { type: 'model-call-end' }>;
  /** The provider's error, as the stream reported it. */
  error?: unknown;
  /** What the output limit said when it stopped the call. */
  limitError?: string;
  /** The provider began to answer: its prompt is billed. */
  answered: boolean;
}

export interface StreamSinks {
  writer: DeltaWriter;
  meter: OutputMeter;
  chat: ChatSpan;
  /** Stops the model call (the output limit's). */
  stop: () => void;
  /** Called at the first text of the stream, when the turn's first token is this step's to record. */
  firstText?: () => void;
}

export interface ModelCall {
  stream: AsyncIterable<ModelCallPart>;
  chat: ChatSpan;
}

/** Starts the call and its span (lib/genai-spans.ts); nothing is sent until the stream is read. */
export function callModel(
  config: Pick<Config, 'limits' | 'tracing'>,
  call: { input: ModelStepInput; revision: CachedRevision; ref: ModelRef; attempt: number; model: LanguageModel; signal: AbortSignal },
  request: StepRequest,
): ModelCall {
  const { input, ref } = call;
  const { bundle } = call.revision;
  const { instructions, messages } = request;
  const maxOutput = config.limits.sendStepOutputTokens ? { maxOutputTokens: config.limits.stepOutputTokens } : {};
  const chat = startChatSpan(
    {
      providerId: ref.providerId,
      modelId: ref.modelId,
      sessionId: input.sessionId,
      agentId: input.agentId,
      agentName: bundle.name,
      step: input.step,
      attempt: call.attempt,
      jsonReply: bundle.jsonReply !== undefined,
      ...maxOutput,
    },
    config.tracing.captureContent,
    () => ({ instructions, messages }),
  );
  const stream = streamModelCall({
    model: call.model,
    // Anthropic's models cache a prompt's prefix only up to marked blocks (activities/model/cache-breakpoints.ts).
    ...(cachesByBreakpoints(ref) ? withCacheBreakpoints(instructions, messages) : { instructions, messages }),
    tools: request.tools,
    ...(bundle.jsonReply ? { output: Output.object({ schema: jsonSchema(bundle.jsonReply.schema as JSONSchema7), name: 'reply' }) } : {}),
    ...maxOutput,
    abortSignal: call.signal,
  });
  return { stream, chat };
}

export async function readModelStream(stream: AsyncIterable<ModelCallPart>, sinks: StreamSinks): Promise<ReadStream> {
  const read: ReadStream = { text: '', toolCalls: [], answered: false };
  let firstText = sinks.firstText;
  for await (const part of stream) {
    if (part.type !== 'error' && part.type !== 'model-call-start') read.answered = true;
    const limitError = sinks.meter.count(part);
    if (limitError) {
      read.limitError = limitError;
      sinks.stop();
      break;
    }
    if (part.type === 'text-delta') {
      // A NUL in a model's output would fail every write of this step, and of the steps sharing its
      // delta transaction; the same replacement keeps deltas and final text equal.
      const piece = storableText(part.text);
      read.text += piece;
      sinks.writer.push(piece);
      firstText?.();
      firstText = undefined;
    } else if (part.type === 'tool-call') {
      read.toolCalls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
    } else if (part.type === 'model-call-end') {
      read.end = part;
    } else if (part.type === 'model-call-response-metadata') {
      sinks.chat.responseMetadata(part);
    } else if (part.type === 'error') {
      read.error = part.error;
    }
  }
  // Whatever was streamed before an abort or error stays readable: flushed before anything else.
  await sinks.writer.flush();
  return read;
}
