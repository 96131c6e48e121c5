// One question waiting for an answer: what is asked, who asked (agent, session), how long is left,
// and a button per option with an optional note (or, for a sign-in asked for, a button that signs in). The first answer wins; a later one is refused
// (409) and an expired question answers 410: both are shown, then the inbox reloads. A question a team
// answers shows its votes (approval-team.tsx); the person's answer is then their vote, and one that does
// not decide (202) leaves the card up, saying it waits on the others.
import { useState } from 'preact/hooks';
import type { ApprovalView } from '@agent-service/sdk';
import { useClient } from '../auth/client-context.ts';
import { ProblemView } from '../ui/problem-view.tsx';
import { timeLeft } from '../ui/time.ts';
import { When } from '../ui/when.tsx';
import { AskedBy } from './asked-by.tsx';
import { mySeat, Seats, TeamFacts } from './approval-team.tsx';

interface Props {
  approval: ApprovalView;
  agentName: string | undefined;
  onAnswered(): void;
  /** On the approval's own page: a waiting approver's vote may be handed on (approval-hand-on.tsx), then this runs. */
  onHandedOn?: () => void;
}

export function ApprovalCard({ approval, agentName, onAnswered, onHandedOn }: Props) {
  const client = useClient();
  const [note, setNote] = useState('');
  const [freeChoice, setFreeChoice] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const noteId = `note-${approval.id}`;
  const questionId = `question-${approval.id}`;
  const mine = mySeat(approval);

  /**
   * A sign-in asked for is answered by signing in, never by a choice: the sign-in opens in a new tab (opened
   * at the click, so no pop-up blocker stops it), and its end answers this question (the inbox then reloads).
   */
  const signIn = async (serverId: string) => {
    const tab = window.open('', '_blank');
    if (tab) tab.opener = null;
    setBusy(true);
    setError(undefined);
    try {
      const started = await client.mcps.connect(serverId);
      if (tab) tab.location.assign(started.authorizationUrl);
      else window.location.assign(started.authorizationUrl);
    } catch (failure) {
      tab?.close();
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  const answer = async (choice: string) => {
    setBusy(true);
    setError(undefined);
    try {
      // A team's vote that does not decide (202) keeps the card: the reload shows the vote, and no buttons.
      await client.approvals.answer(approval.id, note.trim() ? { choice, note: note.trim() } : { choice });
      onAnswered();
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };

  return (
    <article class="card approval" aria-labelledby={questionId}>
      <p class="question" id={questionId}>
        {approval.question}
      </p>
      <dl class="facts">
        <dt>Asked by</dt>
        <dd>
          <AskedBy approval={approval} agentName={agentName} />
        </dd>
        <dt>Asked</dt>
        <dd>
          <When iso={approval.createdAt} />
        </dd>
        <dt>Time left</dt>
        <dd>{timeLeft(approval.expiresAt)}</dd>
        <TeamFacts approval={approval} />
      </dl>
      <Seats approval={approval} {...(onHandedOn ? { onHandedOn } : {})} />
      {approval.approvers && !mine ? (
        <p class="answer">Only its approvers answer this question, each with their own link.</p>
      ) : mine?.vote ? (
        <p class="answer" role="status">
          You voted <strong>{mine.vote.choice}</strong>; waiting on the others.
        </p>
      ) : approval.connect ? (
        <div class="answer">
          <p>
            Answered by signing in to the MCP server <code>{approval.connect.serverId}</code>, in a new tab.
          </p>
          <div class="options" role="group" aria-label={`Answers to: ${approval.question}`}>
            <button type="button" disabled={busy} onClick={() => void signIn(approval.connect!.serverId)}>
              Sign in to {approval.connect.serverId}
            </button>
          </div>
        </div>
      ) : (
        <div class="answer">
          <label for={noteId}>Note (optional)</label>
          <textarea id={noteId} rows={2} value={note} onInput={(event) => setNote(event.currentTarget.value)} />
          {approval.options.length > 0 ? (
            <div class="options" role="group" aria-label={`Answers to: ${approval.question}`}>
              {approval.options.map((option) => (
                <button key={option} type="button" disabled={busy} onClick={() => void answer(option)}>
                  {option}
                </button>
              ))}
            </div>
          ) : (
            <form
              class="options"
              onSubmit={(event) => {
                event.preventDefault();
                if (freeChoice.trim()) void answer(freeChoice.trim());
              }}
            >
              <label for={`choice-${approval.id}`}>Answer</label>
              <input id={`choice-${approval.id}`} value={freeChoice} onInput={(event) => setFreeChoice(event.currentTarget.value)} />
              <button type="submit" disabled={busy}>
                Send answer
              </button>
            </form>
          )}
        </div>
      )}
      {error !== undefined && <ProblemView error={error} />}
    </article>
  );
}
