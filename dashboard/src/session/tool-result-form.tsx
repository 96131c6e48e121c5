// Answers a custom tool call the session waits for (a tool run by the client, `executor: 'client'`)
// by hand: its output as JSON (or plain text), or an error the model reads. Handy while the program
// that should answer is being written; the first answer wins (409 after).
import { useState } from 'preact/hooks';
import { useClient } from '../auth/client-context.ts';
import { ProblemView } from '../ui/problem-view.tsx';

/** JSON when it parses, the text itself otherwise: a tool's output may be either. */
function outputOf(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export function ToolResultForm({ sessionId, toolCallId, toolName }: { sessionId: string; toolCallId: string; toolName: string }) {
  const client = useClient();
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const fieldId = `tool-output-${toolCallId}`;

  const answer = async (asError: boolean) => {
    setBusy(true);
    setError(undefined);
    try {
      await client.toolResults.submit(sessionId, asError ? { toolCallId, error: text.trim() } : { toolCallId, output: outputOf(text) });
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };

  return (
    <div class="tool-answer">
      <label for={fieldId}>Result of {toolName} (JSON or text)</label>
      <textarea id={fieldId} class="code" rows={3} value={text} onInput={(event) => setText(event.currentTarget.value)} />
      <div class="toolbar">
        <button type="button" disabled={busy || !text.trim()} onClick={() => void answer(false)}>
          Send result
        </button>
        <button type="button" class="danger" disabled={busy || !text.trim()} onClick={() => void answer(true)}>
          Send as error
        </button>
      </div>
      {error !== undefined && <ProblemView error={error} />}
    </div>
  );
}
