// Spans in the OpenTelemetry GenAI semantic conventions (`gen_ai.*`), so that a backend built for LLM
// apps (Langfuse, Arize Phoenix, or any OTLP backend) reads each turn as a trace: a `chat <model>` span
// per model step, an `execute_tool <name>` span per tool the service runs, and an `approval <id>` span
// from a question to its answer. Each is a child of the activity span that runs it, which descends from
// the request that started the turn (lib/tracing.ts). While tracing is off the API's no-op tracer makes
// every call here cost nothing, and no content is ever built.
//
// Content (prompts, replies, tool arguments and results, questions and answers) goes on the spans only
// when the operator opts in (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT, config.tracing
// .captureContent). Without it a span carries names, models, ids, token counts and sizes, and a failure
// its type but not its message: a provider's error quotes the user's input, a tool's its arguments.
// (The exporter drops the error text of every other span too: lib/content-free-spans.ts.)
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import type { TokenUsage } from '../contract/events.ts';
import { genAiInputMessages, genAiOutputMessages, type GenAiMessageSource } from './genai-messages.ts';

const tracer = trace.getTracer('agent-service');

/** A content attribute is cut here: backends refuse or drop much larger values, and a span is no archive. */
export const CONTENT_ATTRIBUTE_MAX_CHARS = 32 * 1024;

/** `text`, cut to the bound with a note of how much was left out. */
export function boundedContent(text: string): string {
  if (text.length <= CONTENT_ATTRIBUTE_MAX_CHARS) return text;
  const kept = text.slice(0, CONTENT_ATTRIBUTE_MAX_CHARS);
  return `${kept}… [${text.length - kept.length} more characters not recorded]`;
}

function contentJson(value: unknown): string {
  return boundedContent(typeof value === 'string' ? value : JSON.stringify(value ?? null));
}

/** What every span of a turn says about where it belongs. */
export interface TurnSpanContext {
  sessionId: string;
  agentId: string;
  agentName?: string;
}

function turnAttributes(turn: TurnSpanContext): Attributes {
  return {
    'gen_ai.conversation.id': turn.sessionId,
    'gen_ai.agent.id': turn.agentId,
    ...(turn.agentName ? { 'gen_ai.agent.name': turn.agentName } : {}),
  };
}

/** The AI SDK's finish reasons in the providers' spelling (`tool-calls` -> `tool_calls`), as GenAI backends expect. */
export function finishReasonName(reason: string): string {
  return reason.replace(/-/g, '_');
}

/** `message` only when it may hold content (`captureContent`), or is the service's own words. */
function failed(span: Span, errorType: string, message: string | undefined): void {
  span.setAttribute('error.type', errorType);
  span.setStatus({ code: SpanStatusCode.ERROR, ...(message !== undefined ? { message } : {}) });
}

export interface ChatSpanStart extends TurnSpanContext {
  /** The bundle's provider id (`openai`, `anthropic`, `openrouter`, `openai-compatible`). */
  providerId: string;
  modelId: string;
  /** The step's number in its turn, and its attempt (Temporal's, counted across compaction reruns). */
  step: number;
  attempt: number;
  maxOutputTokens?: number;
  /** The step asks for a structured (JSON) reply. */
  jsonReply: boolean;
}

export interface ChatSpanEnd {
  finishReason: string;
  usage: TokenUsage;
  costUsd: number | null;
  text: string;
  toolCalls: Array<{ toolCallId: string; toolName: string; input: unknown }>;
}

/** One model step's call: started before the request, ended once with its outcome. */
export interface ChatSpan {
  readonly recording: boolean;
  /** What the provider said about its response (the model that answered, its id). */
  responseMetadata(metadata: { id?: string; modelId?: string }): void;
  end(outcome: ChatSpanEnd): void;
  /** `message` is the provider's words (it may quote the input): recorded only with content capture on. */
  fail(errorType: string, message: string): void;
  /** Ends the span if nothing else did (a cancelled step, an error thrown past the step's own handling). */
  close(): void;
}

export function startChatSpan(start: ChatSpanStart, captureContent: boolean, input: () => GenAiMessageSource): ChatSpan {
  const span = tracer.startSpan(`chat ${start.modelId}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': start.providerId,
      // The name before semantic conventions 1.37, which some backends still read.
      'gen_ai.system': start.providerId,
      'gen_ai.request.model': start.modelId,
      'gen_ai.output.type': start.jsonReply ? 'json' : 'text',
      ...(start.maxOutputTokens !== undefined ? { 'gen_ai.request.max_tokens': start.maxOutputTokens } : {}),
      'agent_service.step': start.step,
      'agent_service.attempt': start.attempt,
      ...turnAttributes(start),
    },
  });
  const recording = span.isRecording();
  if (recording && captureContent) {
    const { instructions, messages } = input();
    if (instructions) span.setAttribute('gen_ai.system_instructions', contentJson([{ type: 'text', content: instructions }]));
    span.setAttribute('gen_ai.input.messages', contentJson(genAiInputMessages(messages)));
  }
  let ended = false;
  const once = (finish: () => void) => {
    if (ended) return;
    ended = true;
    finish();
    span.end();
  };
  return {
    recording,
    responseMetadata({ id, modelId }) {
      if (id) span.setAttribute('gen_ai.response.id', id);
      if (modelId) span.setAttribute('gen_ai.response.model', modelId);
    },
    end(outcome) {
      once(() => {
        const reason = finishReasonName(outcome.finishReason);
        span.setAttributes({
          'gen_ai.response.finish_reasons': [reason],
          'gen_ai.usage.input_tokens': outcome.usage.inputTokens,
          'gen_ai.usage.output_tokens': outcome.usage.outputTokens,
          ...(outcome.usage.cacheReadTokens ? { 'gen_ai.usage.cache_read.input_tokens': outcome.usage.cacheReadTokens } : {}),
          ...(outcome.usage.cacheWriteTokens ? { 'gen_ai.usage.cache_creation.input_tokens': outcome.usage.cacheWriteTokens } : {}),
          ...(outcome.costUsd !== null ? { 'agent_service.cost_usd': outcome.costUsd } : {}),
          'agent_service.output.chars': outcome.text.length,
          'agent_service.tool_calls': outcome.toolCalls.length,
        });
        if (recording && captureContent) {
          span.setAttribute('gen_ai.output.messages', contentJson(genAiOutputMessages(outcome.text, outcome.toolCalls, reason)));
        }
      });
    },
    fail(errorType, message) {
      once(() => failed(span, errorType, captureContent ? message : undefined));
    },
    close() {
      once(() => failed(span, 'cancelled', 'the step ended before its model call finished'));
    },
  };
}

export interface ToolSpanStart extends TurnSpanContext {
  toolName: string;
  toolCallId: string;
  description?: string;
  /** Where the tool runs: `builtin` (in the worker) or `mcp` (a remote MCP server). */
  runsOn: 'builtin' | 'mcp';
  idempotencyKey?: string;
}

/** One tool call the service runs. */
export interface ToolSpan {
  end(result: { output: unknown; isError?: boolean }): void;
  fail(error: unknown): void;
}

export function startToolSpan(start: ToolSpanStart, captureContent: boolean, args: unknown): ToolSpan {
  const span = tracer.startSpan(`execute_tool ${start.toolName}`, {
    kind: SpanKind.INTERNAL,
    attributes: {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': start.toolName,
      'gen_ai.tool.call.id': start.toolCallId,
      // Run by the service on the agent's behalf, not by the caller's code ("function").
      'gen_ai.tool.type': 'extension',
      ...(start.description ? { 'gen_ai.tool.description': start.description } : {}),
      'agent_service.tool.runs_on': start.runsOn,
      ...(start.idempotencyKey ? { 'agent_service.tool.idempotency_key': start.idempotencyKey } : {}),
      ...turnAttributes(start),
    },
  });
  const recording = span.isRecording();
  if (recording && captureContent) span.setAttribute('gen_ai.tool.call.arguments', contentJson(args));
  return {
    end({ output, isError }) {
      if (isError) failed(span, 'tool_error', 'the tool answered with an error');
      if (recording && captureContent) span.setAttribute('gen_ai.tool.call.result', contentJson(output));
      span.end();
    },
    fail(error) {
      const message = error instanceof Error ? error.message : String(error);
      failed(span, error instanceof Error ? error.name : '_OTHER', captureContent ? message : undefined);
      span.end();
    },
  };
}

/** The W3C traceparent of the active span, to continue its trace later elsewhere; null while tracing is off. */
export function currentTraceParent(): string | null {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? null;
}

export interface ApprovalSpan {
  approvalId: string;
  /** Where it was asked (currentTraceParent() then); without one the span is not recorded. */
  traceParent: string | null;
  source: string;
  sessionId: string | null;
  agentId: string | null;
  toolCallId: string | null;
  createdAt: Date;
  question: string;
  options: string[];
  /** The options are the service's own (a tool policy's approve/deny), not words of a model: the choice is no content. */
  serviceOptions: boolean;
}

export type ApprovalEnd =
  { status: 'answered'; at: Date; via: string | null; choice: string; note: string | null } | { status: 'expired'; at: Date };

/**
 * The span of an approval, from its question to its answer or expiry, written once it ends (in the
 * process and trace that record the end) under the trace where it was asked: hours may lie between.
 */
export function recordApprovalSpan(approval: ApprovalSpan, end: ApprovalEnd, captureContent: boolean): void {
  if (!approval.traceParent) return;
  const asked = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, { traceparent: approval.traceParent }));
  if (!asked) return;
  const span = tracer.startSpan(
    `approval ${approval.approvalId}`,
    {
      kind: SpanKind.INTERNAL,
      startTime: approval.createdAt,
      attributes: {
        'agent_service.approval.id': approval.approvalId,
        'agent_service.approval.source': approval.source,
        'agent_service.approval.outcome': end.status,
        'agent_service.approval.options': approval.options.length,
        ...(end.status === 'answered' && end.via ? { 'agent_service.approval.via': end.via } : {}),
        ...(end.status === 'answered' && approval.serviceOptions ? { 'agent_service.approval.choice': end.choice } : {}),
        ...(approval.toolCallId ? { 'gen_ai.tool.call.id': approval.toolCallId } : {}),
        ...(approval.sessionId ? { 'gen_ai.conversation.id': approval.sessionId } : {}),
        ...(approval.agentId ? { 'gen_ai.agent.id': approval.agentId } : {}),
      },
    },
    trace.setSpanContext(ROOT_CONTEXT, asked),
  );
  if (span.isRecording() && captureContent) {
    span.setAttribute('agent_service.approval.question', boundedContent(approval.question));
    if (end.status === 'answered') {
      span.setAttribute('agent_service.approval.choice', boundedContent(end.choice));
      if (end.note !== null) span.setAttribute('agent_service.approval.note', boundedContent(end.note));
    }
  }
  span.end(end.at);
}
