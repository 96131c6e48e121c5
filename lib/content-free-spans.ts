// Spans leave the process without error text unless the operator opted in to content
// (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT). An error's message is not ours to vouch for: a
// provider's refusal quotes the user's input, a tool server's error its arguments, and the Temporal SDK's
// interceptors put whatever an activity or workflow threw on their spans (status message, exception
// event). So every span, ours and the SDK's, from the API and the worker, is exported with its status
// code but no status message, and each exception event with its type and stack frames but no message.
import type { ReadableSpan, SpanExporter, TimedEvent } from '@opentelemetry/sdk-trace-base';
import type { Attributes } from '@opentelemetry/api';

/** `exporter` itself when content is captured, else one that sends its spans without error text. */
export function contentFreeExporter(exporter: SpanExporter, captureContent: boolean): SpanExporter {
  if (captureContent) return exporter;
  return {
    export: (spans, done) => exporter.export(spans.map(withoutErrorText), done),
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}

/** The span as it is, but for its status message and its exception events' messages. */
export function withoutErrorText(span: ReadableSpan): ReadableSpan {
  const hasText = span.status.message !== undefined || span.events.some((event) => event.name === 'exception');
  if (!hasText) return span;
  // Everything else (spanContext() included) is read through the prototype, from the span itself.
  return Object.create(span, {
    status: { value: { code: span.status.code }, enumerable: true },
    events: { value: span.events.map(eventWithoutText), enumerable: true },
  }) as ReadableSpan;
}

function eventWithoutText(event: TimedEvent): TimedEvent {
  if (event.name !== 'exception' || !event.attributes) return event;
  const { 'exception.message': _message, 'exception.stacktrace': stack, ...kept } = event.attributes;
  const attributes: Attributes = { ...kept };
  // A stack opens with `<name>: <message>` (its lines too, when the message has some); the frames say where, not what.
  const frames = typeof stack === 'string' ? stack.split('\n').filter((line) => /^\s+at /.test(line)) : [];
  if (frames.length > 0) attributes['exception.stacktrace'] = frames.join('\n');
  return { ...event, attributes };
}
