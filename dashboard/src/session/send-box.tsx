// The next message, sent with the SDK (async: its events arrive on the page's live stream), with a
// file uploaded to the session first when one is attached, and a button that stops the running turn.
// A message sent while a turn runs waits its turn on the server.
import { useState } from 'preact/hooks';
import type { SendBody } from '@agent-service/sdk';
import { useClient } from '../auth/client-context.ts';
import { ProblemView } from '../ui/problem-view.tsx';

export function SendBox({ sessionId, running }: { sessionId: string; running: boolean }) {
  const client = useClient();
  const [text, setText] = useState('');
  const [file, setFile] = useState<File | undefined>(undefined);
  const [fileInput, setFileInput] = useState(0);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);

  const send = async () => {
    const message = text.trim();
    if (!message && !file) return;
    setBusy(true);
    setError(undefined);
    try {
      const parts: SendBody['parts'] = message ? [{ type: 'text', text: message }] : [];
      if (file) {
        const uploaded = await client.sessions.upload(sessionId, file);
        parts.push({ type: 'file', url: uploaded.url, mediaType: uploaded.mediaType, filename: uploaded.filename });
      }
      await client.sessions.sendAsync(sessionId, { parts });
      setText('');
      setFile(undefined);
      // A new input element: a file input's chosen file cannot be cleared otherwise.
      setFileInput((value) => value + 1);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  const abort = async () => {
    setError(undefined);
    try {
      await client.sessions.abort(sessionId);
    } catch (failure) {
      setError(failure);
    }
  };

  return (
    <form
      class="send-box"
      onSubmit={(event) => {
        event.preventDefault();
        void send();
      }}
    >
      <label for="message-text">Message</label>
      <textarea
        id="message-text"
        rows={3}
        value={text}
        aria-describedby="message-hint"
        onInput={(event) => setText(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
            event.preventDefault();
            void send();
          }
        }}
      />
      <p id="message-hint" class="hint">
        Ctrl+Enter sends.
      </p>
      <label for="message-file">Attach a file</label>
      <input key={fileInput} id="message-file" type="file" onChange={(event) => setFile(event.currentTarget.files?.[0])} />
      <div class="toolbar">
        <button type="submit" disabled={busy || (!text.trim() && !file)}>
          Send
        </button>
        {running && (
          <button type="button" class="danger" onClick={() => void abort()}>
            Stop the turn
          </button>
        )}
      </div>
      {error !== undefined && <ProblemView error={error} />}
    </form>
  );
}
