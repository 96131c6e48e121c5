// A tool call in the conversation: the tool, its input, and its result once there is one.
import type { ToolActivity } from './conversation.ts';

function pretty(value: unknown): string {
  if (value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

export function ToolCallView({ call }: { call: ToolActivity }) {
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
          <span class="badge warn">running</span>
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
    </div>
  );
}
