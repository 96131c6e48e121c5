// A tool call in the conversation: the tool, its input, and its result once there is one; a call
// the session waits for the client to answer can be answered here.
import type { ToolActivity } from './conversation.ts';
import { ToolResultForm } from './tool-result-form.tsx';

function pretty(value: unknown): string {
  if (value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

export function ToolCallView({ call, sessionId }: { call: ToolActivity; sessionId: string }) {
  return (
    <div class="part-tool">
      <p>
        Tool <code>{call.toolName}</code>
        {call.executor === 'client' && ' (run by the client)'}
        {call.result ? (
          call.result.isError ? (
            <span class="badge bad">error</span>
          ) : (
            <span class="badge ok">done</span>
          )
        ) : (
          <span class="badge warn">{call.executor === 'client' ? 'waiting for its result' : 'running'}</span>
        )}
      </p>
      {call.input !== undefined && (
        <details>
          <summary>Input</summary>
          <pre>{pretty(call.input)}</pre>
        </details>
      )}
      {call.result && (
        <details>
          <summary>Result</summary>
          <pre>{pretty(call.result.output)}</pre>
        </details>
      )}
      {call.executor === 'client' && !call.result && (
        <ToolResultForm sessionId={sessionId} toolCallId={call.toolCallId} toolName={call.toolName} />
      )}
    </div>
  );
}
