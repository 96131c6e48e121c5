// The conversation in order: messages, questions asked of the user, and turns that failed or were stopped.
import { Link } from '../router.tsx';
import { EmptyState } from '../ui/states.tsx';
import { timeLeft } from '../ui/time.ts';
import type { Conversation } from './conversation.ts';
import { MessageView } from './message-view.tsx';

export function ConversationView({ conversation }: { conversation: Conversation }) {
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
          return message ? <MessageView key={entry.id} message={message} conversation={conversation} /> : null;
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
