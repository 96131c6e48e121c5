// One session as a live conversation: every message with its parts, the reply streaming in as it is
// written, questions to the user, how turns ended; a box to send the next message and a button to
// stop the running turn.
import { useClient } from '../auth/client-context.ts';
import { Link } from '../router.tsx';
import { ConversationView } from '../session/conversation-view.tsx';
import { SendBox } from '../session/send-box.tsx';
import { useConversation } from '../session/use-conversation.ts';
import { agentNames } from '../ui/agent-names.ts';
import { ProblemView } from '../ui/problem-view.tsx';
import { LoadedView } from '../ui/states.tsx';
import { usd } from '../ui/time.ts';
import { useLoad } from '../ui/use-load.ts';

const STATUS_TEXT = { idle: 'idle', running: 'running', waiting: 'waiting for an answer' } as const;

export function SessionPage({ id }: { id: string }) {
  const client = useClient();
  const followed = useConversation(id);
  const { conversation } = followed;
  // Totals are re-read when a turn ends (the status changes), not kept from the events.
  const session = useLoad(
    async (signal) => {
      const [view, names] = await Promise.all([client.sessions.retrieve(id, { signal }), agentNames(client, signal)]);
      return { view, agentName: names.get(view.agentId) };
    },
    [client, id, conversation.status === 'idle'],
  );

  return (
    <>
      <LoadedView loaded={session} what="the session">
        {({ view, agentName }) => (
          <div class="page-head">
            <h1>Session {view.id}</h1>
            <dl class="facts">
              <dt>Agent</dt>
              <dd>
                {agentName ? (
                  <Link to={`/agents/${encodeURIComponent(agentName)}/sessions`}>{agentName}</Link>
                ) : (
                  <code>{view.agentId}</code>
                )}
              </dd>
              <dt>Status</dt>
              <dd>
                <span class="status-line" role="status" aria-live="polite">
                  {STATUS_TEXT[conversation.status]}
                </span>
              </dd>
              <dt>Cost</dt>
              <dd>
                {usd(view.usage.costUsd)} ({view.usage.inputTokens ?? 0} tokens in, {view.usage.outputTokens ?? 0} out)
              </dd>
            </dl>
          </div>
        )}
      </LoadedView>
      {followed.error !== undefined && (
        <div>
          <ProblemView error={followed.error} />
          <button type="button" onClick={followed.retry}>
            Reconnect
          </button>
        </div>
      )}
      <ConversationView conversation={conversation} />
      <SendBox sessionId={id} running={conversation.status !== 'idle'} />
    </>
  );
}
