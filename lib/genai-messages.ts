// A model step's messages in the shape the OpenTelemetry GenAI conventions give `gen_ai.input.messages`
// and `gen_ai.output.messages`: `{role, parts: [...]}` with `text`, `reasoning`, `tool_call` and
// `tool_call_response` parts. Files and images are named by their media type only: their bytes would
// make a span megabytes large, and a trace backend is no place for a tenant's uploads.
import type { ModelMessage } from 'ai';

export interface GenAiMessageSource {
  instructions: string | undefined;
  messages: ModelMessage[];
}

type GenAiPart =
  | { type: 'text' | 'reasoning'; content: string }
  | { type: 'tool_call'; id: string; name: string; arguments: unknown }
  | { type: 'tool_call_response'; id: string; response: unknown }
  | { type: 'blob'; modality: 'image' | 'file'; mime_type: string | undefined };

export interface GenAiMessage {
  role: string;
  parts: GenAiPart[];
  finish_reason?: string;
}

/** One part of an AI SDK message as the conventions spell it; parts they have no shape for are left out. */
function partOf(part: { type: string } & Record<string, unknown>): GenAiPart | undefined {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return { type: part.type, content: String(part.text ?? '') };
    case 'tool-call':
      return { type: 'tool_call', id: String(part.toolCallId), name: String(part.toolName), arguments: part.input };
    case 'tool-result': {
      const output = part.output as { type?: string; value?: unknown } | undefined;
      return { type: 'tool_call_response', id: String(part.toolCallId), response: output && 'value' in output ? output.value : output };
    }
    case 'image':
    case 'file':
      return { type: 'blob', modality: part.type, mime_type: (part.mediaType as string | undefined) ?? undefined };
    default:
      return undefined;
  }
}

export function genAiInputMessages(messages: readonly ModelMessage[]): GenAiMessage[] {
  return messages.map((message) => ({
    role: message.role,
    parts:
      typeof message.content === 'string'
        ? [{ type: 'text' as const, content: message.content }]
        : message.content.flatMap((part) => partOf(part as { type: string } & Record<string, unknown>) ?? []),
  }));
}

export function genAiOutputMessages(
  text: string,
  toolCalls: ReadonlyArray<{ toolCallId: string; toolName: string; input: unknown }>,
  finishReason: string,
): GenAiMessage[] {
  const parts: GenAiPart[] = [
    ...(text ? [{ type: 'text' as const, content: text }] : []),
    ...toolCalls.map((call) => ({ type: 'tool_call' as const, id: call.toolCallId, name: call.toolName, arguments: call.input })),
  ];
  return [{ role: 'assistant', parts, finish_reason: finishReason }];
}
