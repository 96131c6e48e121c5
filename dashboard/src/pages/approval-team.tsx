// An approval a team answers (asked with `approvers`): its rule (how many votes for one option decide it,
// and whether a refusal decides at once), the votes per option, each approver with their vote or that it
// is awaited (or to whom it was handed), and who decided. Everything shown comes from GET /approval/<id>; a
// listed approval has no `approvers`, so the inbox reads the waiting ones whole. The approval's own page also
// offers to hand a waiting approver's vote on (approval-hand-on.tsx).
import type { ApprovalView } from '@agent-service/sdk';
import { When } from '../ui/when.tsx';
import { HandOn, mayHandOn } from './approval-hand-on.tsx';

type Seat = NonNullable<ApprovalView['approvers']>[number];

/** How the page names an approver: "me" is the person looking at it. */
export function approverName(name: string): string {
  return name === 'me' ? 'you' : name;
}

/** How the page names an approver's vote: "your vote", "alice's vote". */
function whoseVote(name: string): string {
  return name === 'me' ? 'your' : `${name}'s`;
}

/** The approvers who vote: not those who handed their vote on (unless they had voted first). */
function sittingSeats(seats: readonly Seat[]): Seat[] {
  return seats.filter((seat) => !seat.delegatedTo || seat.vote !== null);
}

/** "approve 1, deny 0": the votes per option, in the options' order (any other counted option after). */
export function tallyText(options: string[], tally: Record<string, number>): string {
  const names = [...options, ...Object.keys(tally).filter((name) => !options.includes(name))];
  return names.map((name) => `${name} ${tally[name] ?? 0}`).join(', ');
}

/** The seat of "me", when the person looking at it is one of the approvers. */
export function mySeat(approval: ApprovalView): Seat | undefined {
  return approval.approvers?.find((seat) => seat.name === 'me');
}

/** The rule, the tally and who decided, as `<dt>`/`<dd>` pairs of the question's facts; nothing for another question. */
export function TeamFacts({ approval }: { approval: ApprovalView }) {
  if (approval.quorum === undefined) return null;
  const seats = approval.approvers && sittingSeats(approval.approvers);
  const refusal = approval.denyWins && approval.refusingOption ? `; a ${approval.refusingOption} decides at once` : '';
  return (
    <>
      <dt>Quorum</dt>
      <dd>
        {approval.quorum}
        {seats ? ` of ${seats.length}` : ''} votes for one option decide{refusal}
      </dd>
      {approval.tally && (
        <>
          <dt>Tally</dt>
          <dd>{tallyText(approval.options, approval.tally)}</dd>
        </>
      )}
      {approval.decidedBy && (
        <>
          <dt>Decided by</dt>
          <dd>{approverName(approval.decidedBy)}</dd>
        </>
      )}
    </>
  );
}

/**
 * One line per approver: their vote (how, when, the note), that it is awaited, or to whom it was handed.
 * `onHandedOn`: the page offers to hand a waiting approver's vote on, and reads the approval again after.
 */
export function Seats({ approval, onHandedOn }: { approval: ApprovalView; onHandedOn?: () => void }) {
  const seats = approval.approvers;
  if (!seats?.length) return null;
  return (
    <ul class="seats" aria-label={`Approvers of: ${approval.question}`}>
      {seats.map((seat) => (
        <li key={seat.name} aria-label={`Approver ${approverName(seat.name)}`}>
          <SeatVote seat={seat} approval={approval} />
          {onHandedOn && mayHandOn(approval, seat) && (
            <>
              {' '}
              <HandOn approval={approval} seat={seat} whose={whoseVote(seat.name)} onHandedOn={onHandedOn} />
            </>
          )}
        </li>
      ))}
    </ul>
  );
}

function SeatVote({ seat, approval }: { seat: Seat; approval: ApprovalView }) {
  const vote = seat.vote;
  return (
    <>
      <span class="seat-name">{approverName(seat.name)}</span>
      {seat.addedBy !== 'request' && <span class="muted-label"> (added by {seat.addedBy})</span>}{' '}
      {vote ? (
        <>
          <span class={`badge ${vote.choice === approval.refusingOption ? 'bad' : 'ok'}`}>{vote.choice}</span>
          <span class="muted-label">
            {' '}
            via {vote.via}, <When iso={vote.votedAt} />
          </span>
          {vote.note !== null && (
            <>
              {' '}
              <q class="seat-note">{vote.note}</q>
            </>
          )}
        </>
      ) : seat.delegatedTo ? (
        <span class="badge muted">handed to {approverName(seat.delegatedTo)}</span>
      ) : (
        <span class="badge muted">{approval.status === 'unanswered' ? 'waiting' : 'did not vote'}</span>
      )}
    </>
  );
}
