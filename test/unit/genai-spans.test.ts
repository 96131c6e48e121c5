// The GenAI spans' rules that a real turn rarely shows (test/e2e/genai-traces.test.ts shows the rest):
// how failures and cancellations end a span, that content is built only on opt-in and cut to a bound,
// that files never put their bytes on a span, and that an approval's span joins the trace where it
// was asked, with the times it was asked and answered.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { ApplicationFailure } from '@temporalio/common';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import {
  CONTENT_ATTRIBUTE_MAX_CHARS,
  boundedContent,
  currentTraceParent,
  recordApprovalSpan,
  startChatSpan,
  startToolSpan,
  type ApprovalSpan,
} from '../../lib/genai-spans.ts';
import { genAiInputMessages } from '../../lib/genai-messages.ts';
import { contentFreeExporter } from '../../lib/content-free-spans.ts';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
beforeAll(() => provider.register());
afterAll(() => provider.shutdown());
beforeEach(() => exporter.reset());

const finished = () => exporter.getFinishedSpans();
const turn = { sessionId: 'ses_1', agentId: 'agt_1', agentName: 'clock' };
const chatStart = { ...turn, providerId: 'anthropic', modelId: 'claude-x', step: 1, attempt: 1, jsonReply: false };

describe('chat spans', () => {
  it('build no content unless asked, and end once: the first ending wins', () => {
    let built = 0;
    const chat = startChatSpan(chatStart, false, () => {
      built++;
      return { instructions: 'secret instructions', messages: [] };
    });
    chat.fail('ModelRequestRejected', 'the provider refused the request');
    chat.close();
    chat.end({ finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 }, costUsd: null, text: 'x', toolCalls: [] });
    expect(built).toBe(0);
    const [span] = finished();
    expect(finished()).toHaveLength(1);
    expect(span!.name).toBe('chat claude-x');
    expect(span!.attributes['error.type']).toBe('ModelRequestRejected');
    // The provider's words are content: without the opt-in, the span has the failure's type only.
    expect(span!.status).toEqual({ code: SpanStatusCode.ERROR });
    expect(span!.attributes).not.toHaveProperty('gen_ai.usage.input_tokens');
  });

  it('a step that ends before its call finished (an abort) ends its span as cancelled', () => {
    startChatSpan(chatStart, true, () => ({ instructions: undefined, messages: [] })).close();
    expect(finished()[0]!.attributes['error.type']).toBe('cancelled');
  });

  it('records cache tokens and cost, and cuts content to its bound', () => {
    const long = 'y'.repeat(CONTENT_ATTRIBUTE_MAX_CHARS + 10);
    const chat = startChatSpan(chatStart, true, () => ({ instructions: 'be brief', messages: [{ role: 'user', content: long }] }));
    chat.end({
      finishReason: 'tool-calls',
      usage: { inputTokens: 900, outputTokens: 20, cacheReadTokens: 800, cacheWriteTokens: 50 },
      costUsd: 0.0123,
      text: '',
      toolCalls: [{ toolCallId: 'c1', toolName: 'current_time', input: {} }],
    });
    const attributes = finished()[0]!.attributes;
    expect(attributes).toMatchObject({
      'gen_ai.response.finish_reasons': ['tool_calls'],
      'gen_ai.usage.input_tokens': 900,
      'gen_ai.usage.cache_read.input_tokens': 800,
      'gen_ai.usage.cache_creation.input_tokens': 50,
      'agent_service.cost_usd': 0.0123,
    });
    const input = String(attributes['gen_ai.input.messages']);
    expect(input.length).toBeLessThan(CONTENT_ATTRIBUTE_MAX_CHARS + 100);
    expect(input).toMatch(/more characters not recorded\]$/);
  });
});

describe('tool spans', () => {
  it("mark the tool's own error result, and a thrown error with its name", () => {
    startToolSpan({ ...turn, toolName: 'http_request', toolCallId: 'c1', runsOn: 'builtin' }, false, { url: 'x' }).end({
      output: { error: 'refused' },
      isError: true,
    });
    startToolSpan({ ...turn, toolName: 'lookup', toolCallId: 'c2', runsOn: 'mcp' }, false, {}).fail(new TypeError('boom'));
    const [own, thrown] = finished();
    expect(own!.attributes).toMatchObject({ 'error.type': 'tool_error', 'gen_ai.tool.call.id': 'c1' });
    expect(own!.attributes).not.toHaveProperty('gen_ai.tool.call.arguments');
    expect(own!.attributes).not.toHaveProperty('gen_ai.tool.call.result');
    expect(thrown!.attributes).toMatchObject({ 'error.type': 'TypeError', 'agent_service.tool.runs_on': 'mcp' });
    expect(thrown!.status.code).toBe(SpanStatusCode.ERROR);
  });
});

describe("a provider's error that quotes the user's words", () => {
  const words = 'my card number is 4111 1111 1111 1111';
  const providerError = `The openai provider rejected the request (400): Invalid content: "${words}"`;
  /** Everything a backend would be sent of a span: its name, attributes, status, events and links. */
  const sent = (span: ReadableSpan) => JSON.stringify([span.name, span.attributes, span.status, span.events, span.links]);

  /** The model's and the tool's spans, and an activity's span as the Temporal SDK's interceptor ends it. */
  function failedSpans(captureContent: boolean): ReadableSpan[] {
    startChatSpan(chatStart, captureContent, () => ({ instructions: undefined, messages: [] })).fail('ModelRequestRejected', providerError);
    startToolSpan({ ...turn, toolName: 'lookup', toolCallId: 'c1', runsOn: 'mcp' }, captureContent, {}).fail(new Error(providerError));
    const activity = trace.getTracer('temporal').startSpan('RunActivity:runModelStep');
    const thrown = ApplicationFailure.nonRetryable(providerError, 'ModelRequestRejected');
    activity.setStatus({ code: SpanStatusCode.ERROR, message: thrown.message });
    activity.recordException(thrown);
    activity.end();
    return finished();
  }

  /** The spans as the exporter of tracing.ts sends them. */
  function exported(spans: ReadableSpan[], captureContent: boolean): ReadableSpan[] {
    const out = new InMemorySpanExporter();
    contentFreeExporter(out, captureContent).export(spans, () => undefined);
    return out.getFinishedSpans();
  }

  it('appears nowhere in what is exported with content capture off', () => {
    const spans = exported(failedSpans(false), false);
    expect(spans).toHaveLength(3);
    for (const span of spans) expect(sent(span)).not.toContain(words);
    // What is kept: the status code, the failure's type, where the exception was thrown.
    for (const span of spans) expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(spans[0]!.attributes['error.type']).toBe('ModelRequestRejected');
    expect(spans[1]!.attributes['error.type']).toBe('Error');
    const exception = spans[2]!.events.find((event) => event.name === 'exception')!;
    expect(exception.attributes).toMatchObject({ 'exception.type': 'ApplicationFailure' });
    expect(String(exception.attributes!['exception.stacktrace'])).toMatch(/^\s+at /);
    expect(spans[2]!.spanContext().spanId).toBe(finished()[2]!.spanContext().spanId);
  });

  it('is on the spans with content capture on', () => {
    const spans = exported(failedSpans(true), true);
    for (const span of spans) expect(sent(span)).toContain(words);
  });
});

describe('approval spans', () => {
  const asked = (traceParent: string | null, serviceOptions: boolean): ApprovalSpan => ({
    approvalId: 'apr_1',
    traceParent,
    source: 'tool',
    sessionId: 'ses_1',
    agentId: 'agt_1',
    toolCallId: 'c1',
    createdAt: new Date('2026-11-28T10:00:00Z'),
    question: 'May I refund order 7?',
    options: serviceOptions ? ['approve', 'deny'] : ['yes', 'no'],
    serviceOptions,
  });
  const answer = { status: 'answered' as const, at: new Date('2026-11-29T09:30:00Z'), via: 'slack', choice: 'yes', note: 'ok' };

  it('join the trace where the approval was asked, from the question to the answer, days later', () => {
    const traceParent = trace.getTracer('test').startActiveSpan('asking', (span) => {
      const written = currentTraceParent();
      span.end();
      return { written, context: span.spanContext() };
    });
    recordApprovalSpan(asked(traceParent.written, false), answer, false);
    const span = finished().find((candidate) => candidate.name === 'approval apr_1')!;
    expect(span.spanContext().traceId).toBe(traceParent.context.traceId);
    expect(span.parentSpanId).toBe(traceParent.context.spanId);
    expect(span.startTime).toEqual([Date.parse('2026-11-28T10:00:00Z') / 1000, 0]);
    expect(span.endTime).toEqual([Date.parse('2026-11-29T09:30:00Z') / 1000, 0]);
    expect(span.attributes).toMatchObject({ 'agent_service.approval.outcome': 'answered', 'agent_service.approval.via': 'slack' });
    // The model wrote these options: without content capture neither question nor choice is recorded.
    expect(span.attributes).not.toHaveProperty('agent_service.approval.question');
    expect(span.attributes).not.toHaveProperty('agent_service.approval.choice');
  });

  it("record a tool policy's decision always, and the question, choice and note only on opt-in", () => {
    const traceParent = trace.getTracer('test').startActiveSpan('asking', (span) => {
      span.end();
      return currentTraceParent();
    });
    recordApprovalSpan(asked(traceParent, true), { ...answer, choice: 'approve' }, false);
    recordApprovalSpan({ ...asked(traceParent, false), approvalId: 'apr_2' }, answer, true);
    const spans = finished().filter((span) => span.name.startsWith('approval '));
    expect(spans[0]!.attributes['agent_service.approval.choice']).toBe('approve');
    expect(spans[0]!.attributes).not.toHaveProperty('agent_service.approval.question');
    expect(spans[1]!.attributes).toMatchObject({
      'agent_service.approval.question': 'May I refund order 7?',
      'agent_service.approval.choice': 'yes',
      'agent_service.approval.note': 'ok',
    });
  });

  it('are not recorded for an approval asked while tracing was off', () => {
    recordApprovalSpan(asked(null, false), { status: 'expired', at: new Date() }, true);
    expect(finished()).toEqual([]);
  });
});

describe('content', () => {
  it('names files and images by media type, never by their bytes, and unwraps tool results', () => {
    const messages = genAiInputMessages([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is this?' },
          { type: 'image', image: new Uint8Array([1, 2, 3]), mediaType: 'image/png' },
          { type: 'file', data: 'JVBERi0xLjQK', mediaType: 'application/pdf' },
        ],
      },
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'current_time', output: { type: 'json', value: { h: 9 } } }],
      },
    ]);
    expect(messages).toEqual([
      {
        role: 'user',
        parts: [
          { type: 'text', content: 'what is this?' },
          { type: 'blob', modality: 'image', mime_type: 'image/png' },
          { type: 'blob', modality: 'file', mime_type: 'application/pdf' },
        ],
      },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c1', response: { h: 9 } }] },
    ]);
    expect(JSON.stringify(messages)).not.toContain('JVBERi0');
  });

  it('a value within the bound is kept whole', () => {
    expect(boundedContent('short')).toBe('short');
  });
});
