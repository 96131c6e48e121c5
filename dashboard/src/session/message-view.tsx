// One message of the conversation with its parts: text (streaming in while the reply is written),
// tool calls with their results, files, a JSON reply, a subtask's outcome; and a compaction's marker.
import type { Conversation, ShownMessage } from './conversation.ts';
import { messageText } from './conversation.ts';
import { ToolCallView } from './tool-call-view.tsx';
import { usd } from '../ui/time.ts';
import { Link } from '../router.tsx';
import { DownloadButton } from './download-button.tsx';

/** What can be done with a message: given only while no turn runs (the server answers 409 otherwise). */
export interface MessageActions {
  /** This message and all after it leave the conversation. */
  revert?(): void;
  /** This reply and all after it leave, and the turn runs again. */
  regenerate?(): void;
}

const ROLE_NAMES = { user: 'You', assistant: 'Agent', tool: 'Tools', summary: 'Compacted' } as const;
// How assistive technology names each message (and how the tests find them).
const LABELS = { user: 'Your message', assistant: 'Agent reply', tool: 'Tool results', summary: 'Compaction' } as const;

interface Props {
  message: ShownMessage;
  conversation: Conversation;
  sessionId: string;
  actions: MessageActions;
}

export function MessageView({ message, conversation, sessionId, actions }: Props) {
  if (message.role === 'summary') return <CompactionMarker message={message} />;
  const text = messageText(message);
  const calls = message.parts.flatMap((part) => (part.type === 'tool-call' ? [conversation.tools.get(part.toolCallId)] : []));
  // Results are drawn under their calls; a tool message holding only those has nothing else to show.
  const others = message.parts.filter((part) => part.type === 'file' || part.type === 'json' || part.type === 'subtask');
  if (message.role === 'tool' && !text && others.length === 0) return null;
  return (
    <li class={`message ${message.role}`} aria-label={LABELS[message.role]}>
      <p class="message-role">
        {ROLE_NAMES[message.role]}
        {message.status === 'streaming' && <span class="badge warn">writing…</span>}
        {message.status === 'aborted' && <span class="badge muted">stopped</span>}
        {message.status === 'failed' && <span class="badge bad">failed</span>}
        {message.costUsd !== null && message.role === 'assistant' && <span class="cost">{usd(message.costUsd)}</span>}
      </p>
      {text && <p class="message-text">{text}</p>}
      {calls.map((call) => call && <ToolCallView key={call.toolCallId} call={call} sessionId={sessionId} />)}
      {others.map((part, index) => {
        if (part.type === 'file') {
          return (
            <p key={index} class="part-file">
              File <code>{part.filename ?? part.url}</code>
              {part.mediaType && ` (${part.mediaType}) `}
              <DownloadButton sessionId={sessionId} url={part.url} filename={part.filename ?? part.url.split('/').pop()!} />
            </p>
          );
        }
        if (part.type === 'json') {
          return (
            <details key={index} open>
              <summary>JSON reply</summary>
              <pre>{JSON.stringify(part.json, null, 2)}</pre>
            </details>
          );
        }
        if (part.type === 'subtask') {
          return (
            <p key={index}>
              Subtask {part.command && <code>/{part.command}</code>} {part.status}:{' '}
              <Link to={`/sessions/${part.sessionId}`}>its session</Link>
              {part.error && ` (${part.error})`}
            </p>
          );
        }
        return null;
      })}
      {(actions.revert || actions.regenerate) && (
        <div class="toolbar message-actions">
          {actions.revert && (
            <button type="button" class="secondary small" onClick={actions.revert}>
              Revert from here
            </button>
          )}
          {actions.regenerate && (
            <button type="button" class="secondary small" onClick={actions.regenerate}>
              Regenerate
            </button>
          )}
        </div>
      )}
    </li>
  );
}

/**
 * Where the conversation was compacted: from here on the model reads the summary in place of the
 * messages above it (which stay listed). The summary itself is folded away.
 */
function CompactionMarker({ message }: { message: ShownMessage }) {
  const compaction = message.parts.find((part) => part.type === 'compaction');
  return (
    <li class="message summary" aria-label={LABELS.summary}>
      <p class="message-role">
        {ROLE_NAMES.summary}
        {message.costUsd !== null && message.costUsd !== undefined && <span class="cost">{usd(message.costUsd)}</span>}
      </p>
      <p class="compaction-note">
        The conversation above was summarised
        {compaction?.type === 'compaction' && ` (about ${compaction.tokensBefore} tokens down to ${compaction.tokensAfter})`}: the model
        reads the summary in its place from here on.
      </p>
      <details>
        <summary>The summary</summary>
        <p class="message-text">{messageText(message)}</p>
      </details>
    </li>
  );
}
