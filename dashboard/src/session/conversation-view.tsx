// The conversation in order: messages, questions asked of the user, and turns that failed or were stopped.
import { Link } from '../router.tsx';
import { EmptyState } from '../ui/states.tsx';
import { timeLeft } from '../ui/time.ts';
import type { Conversation } from './conversation.ts';
import { MessageView } from './message-view.tsx';

interface Props {
  conversation: Conversation;
  sessionId: string;
  /** Given while no turn runs: revert and regenerate are refused (409) during a turn. */
  onRevert?(messageId: string): void;
  onRegenerate?(messageId: string): void;
}

export function ConversationView({ conversation, sessionId, onRevert, onRegenerate }: Props) {
  const lastReply = [...conversation.entries]
    .reverse()
    .find((entry) => entry.kind === 'message' && conversation.messages.get(entry.id)?.role === 'assistant');
  if (conversation.entries.length === 0) {
    return (
      <EmptyState title="No message yet.">
        <p>Write the first message below; the agent's reply streams in here as it is written.</p>
      </EmptyState>
    );
  }
  return (
    <ol class="conversation" aria-label="Conversation">
      {conversation.entries.map((entry) => {
        if (entry.kind === 'message') {
          const message = conversation.messages.get(entry.id);
          if (!message) return null;
          const actions = {
            revert: message.role === 'user' && onRevert ? () => onRevert(message.id) : undefined,
            regenerate: entry === lastReply && onRegenerate ? () => onRegenerate(message.id) : undefined,
          };
          return <MessageView key={entry.id} message={message} conversation={conversation} sessionId={sessionId} actions={actions} />;
        }
        if (entry.kind === 'approval') {
          const approval = conversation.approvals.get(entry.id)!;
          return (
            <li key={entry.id} class="message notice" aria-label="Question to you">
              <p class="message-role">Question to you</p>
              <p class="message-text">{approval.question}</p>
              <p>
                {approval.state === 'waiting' && (
                  <>
                    Waiting for an answer ({approval.options.join(' / ') || 'free text'}, {timeLeft(approval.expiresAt)}):{' '}
                    <Link to="/approvals">answer it in the inbox</Link>
                  </>
                )}
                {approval.state === 'answered' && (
                  <>
                    Answered <strong>{approval.choice}</strong>
                    {approval.note && ` — ${approval.note}`}
                  </>
                )}
                {approval.state === 'expired' && 'Expired unanswered'}
              </p>
            </li>
          );
        }
        if (entry.kind === 'turn-failed') {
          return (
            <li key={`failed-${entry.seq}`} class="message notice failed" role="alert">
              The turn failed: {entry.error}
            </li>
          );
        }
        return (
          <li key={`aborted-${entry.seq}`} class="message notice">
            The turn was stopped.
          </li>
        );
      })}
    </ol>
  );
}
