// One session as a live conversation: every message with its parts, the reply streaming in as it is
// written, questions to the user, how turns ended; a box to send the next message (with a file) and
// a button to stop the running turn; fork, revert and regenerate; the raw event log; the sessions it
// opened (other agents' calls, subtasks) and the one that opened it, linked both ways.
import { useState } from 'preact/hooks';
import { useClient } from '../auth/client-context.ts';
import { Link, navigate } from '../router.tsx';
import { ConversationView } from '../session/conversation-view.tsx';
import { EventLog } from '../session/event-log.tsx';
import { SendBox } from '../session/send-box.tsx';
import { useConversation } from '../session/use-conversation.ts';
import { agentNames } from '../ui/agent-names.ts';
import { CopyButton } from '../ui/copy-button.tsx';
import { ProblemView } from '../ui/problem-view.tsx';
import { LoadedView } from '../ui/states.tsx';
import { usd } from '../ui/time.ts';
import { useLoad } from '../ui/use-load.ts';
import { useAction } from '../ui/use-action.ts';

const STATUS_TEXT = { idle: 'idle', running: 'running', waiting: 'waiting for an answer' } as const;

export function SessionPage({ id }: { id: string }) {
  const client = useClient();
  const followed = useConversation(id);
  const { conversation } = followed;
  const [showLog, setShowLog] = useState(false);
  /** History actions; their effects arrive on the live stream like everything else. */
  const { error: actionError, run: act } = useAction();
  // Totals are re-read when a turn ends (the status changes), not kept from the events.
  const session = useLoad(
    async (signal) => {
      const [view, names] = await Promise.all([client.sessions.retrieve(id, { signal }), agentNames(client, signal)]);
      return { view, agentName: names.get(view.agentId) };
    },
    // ... and when a call of another agent opens a child session (the tree below grows), or one of them
    // (or theirs) starts waiting on someone.
    [
      client,
      id,
      conversation.status === 'idle',
      followed.events.filter((event) => event.type === 'subagent.started' || event.type === 'subagent.waiting').length,
    ],
  );

  const idle = conversation.status === 'idle';

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
              {view.forkedFrom && (
                <>
                  <dt>Forked from</dt>
                  <dd>
                    <Link to={`/sessions/${view.forkedFrom}`}>{view.forkedFrom}</Link>
                  </dd>
                </>
              )}
              {view.parentSessionId && (
                <>
                  <dt>{view.parentToolCallId ? 'Called by' : 'Subtask of'}</dt>
                  <dd>
                    <Link to={`/sessions/${view.parentSessionId}`}>{view.parentSessionId}</Link>
                    {view.parentToolCallId && <span class="muted-label"> (call {view.parentToolCallId})</span>}
                  </dd>
                </>
              )}
              {view.childSessions && view.childSessions.length > 0 && (
                <>
                  <dt>Sessions it opened</dt>
                  <dd>
                    <ul class="child-sessions" aria-label="Sessions it opened">
                      {view.childSessions.map((child) => (
                        <li key={child.id}>
                          <Link to={`/sessions/${child.id}`}>{child.agent}</Link> <code>{child.id}</code>{' '}
                          <span class="muted-label">
                            {STATUS_TEXT[child.status]}
                            {child.parentToolCallId ? `, call ${child.parentToolCallId}` : ', subtask'}
                          </span>
                        </li>
                      ))}
                    </ul>
                  </dd>
                </>
              )}
              {view.waitingFor?.kind === 'agents' && !idle && (
                <>
                  <dt>Waiting on</dt>
                  <dd>
                    <ul class="child-sessions" aria-label="Agents it called that wait">
                      {view.waitingFor.sessions.map((waiting) => (
                        <li key={waiting.sessionId}>
                          <Link to={`/sessions/${waiting.sessionId}`}>{waiting.agent}</Link>{' '}
                          {waiting.approvals.map((approval) => (
                            <span key={approval.approvalId}>
                              asks "{approval.question}" (<Link to="/approvals">answer it in the inbox</Link>){' '}
                            </span>
                          ))}
                          {waiting.toolCalls.length > 0 && (
                            <span class="muted-label">
                              waits for {waiting.toolCalls.map((call) => call.toolName).join(', ')} from your client
                            </span>
                          )}
                        </li>
                      ))}
                    </ul>
                  </dd>
                </>
              )}
              <dt>Status</dt>
              <dd>
                <span class="status-line" role="status" aria-live="polite">
                  {STATUS_TEXT[conversation.status]}
                </span>
              </dd>
              <dt>Cost</dt>
              <dd>
                {usd(view.usage.costUsd)} ({view.usage.inputTokens ?? 0} tokens in
                {view.usage.cacheReadTokens ? `, ${view.usage.cacheReadTokens} of them from cache` : ''}, {view.usage.outputTokens ?? 0}{' '}
                out)
              </dd>
              <dt>Temporal</dt>
              <dd class="copy-row">
                {view.workflowsUrl ? (
                  <a href={view.workflowsUrl} target="_blank" rel="noopener noreferrer">
                    This session's workflows in the Temporal Web UI
                  </a>
                ) : (
                  // Without TEMPORAL_UI_URL the service does not know where the Web UI is; its search finds them by this.
                  <>
                    <code>{`SessionId="${view.id}"`}</code>
                    <CopyButton value={`SessionId="${view.id}"`} label="Copy the Temporal Web UI search for this session's workflows" />
                  </>
                )}
              </dd>
            </dl>
          </div>
        )}
      </LoadedView>
      <div class="toolbar">
        <button
          type="button"
          class="secondary"
          onClick={() => void act(async () => navigate(`/sessions/${(await client.sessions.fork(id)).id}`))}
        >
          Fork
        </button>
        <button type="button" class="secondary" aria-expanded={showLog} onClick={() => setShowLog(!showLog)}>
          {showLog ? 'Show the conversation' : 'Show the event log'}
        </button>
      </div>
      {followed.error !== undefined && (
        <div>
          <ProblemView error={followed.error} />
          <button type="button" onClick={followed.retry}>
            Reconnect
          </button>
        </div>
      )}
      {actionError !== undefined && <ProblemView error={actionError} />}
      {showLog ? (
        <EventLog events={followed.events} />
      ) : (
        <ConversationView
          conversation={conversation}
          sessionId={id}
          onRevert={idle ? (messageId) => void act(() => client.sessions.revert(id, messageId)) : undefined}
          onRegenerate={idle ? (messageId) => void act(() => client.sessions.regenerateAsync(id, messageId)) : undefined}
        />
      )}
      <SendBox sessionId={id} running={!idle} />
    </>
  );
}
