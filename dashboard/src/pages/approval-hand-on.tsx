// "Hand on…" beside an approver who has not voted, on an approval's own page while it waits: another approver
// of the directory votes in their place (POST /approval/<id>/delegate, which needs `agents:write`). The page
// offers it only where the service showed the approvers' links, which it does for such a key alone; a
// refusal (a name the directory lacks, a vote cast meanwhile) is shown as the service words it.
import { useState } from 'preact/hooks';
import type { ApprovalView } from '@agent-service/sdk';
import { useClient } from '../auth/client-context.ts';
import { ProblemView } from '../ui/problem-view.tsx';

type Seat = NonNullable<ApprovalView['approvers']>[number];

/** Whether this approver's vote may still be handed on, by the key reading the approval. */
export function mayHandOn(approval: ApprovalView, seat: Seat): boolean {
  return approval.status === 'unanswered' && seat.vote === null && !seat.delegatedTo && seat.links !== undefined;
}

interface Props {
  approval: ApprovalView;
  seat: Seat;
  /** How the page names the seat's vote: "your" for "me", "alice's". */
  whose: string;
  onHandedOn(): void;
}

export function HandOn({ approval, seat, whose, onHandedOn }: Props) {
  const client = useClient();
  const [open, setOpen] = useState(false);
  const [to, setTo] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);

  if (!open) {
    return (
      <button type="button" class="secondary small hand-on-open" onClick={() => setOpen(true)}>
        Hand on…<span class="visually-hidden"> {whose} vote</span>
      </button>
    );
  }

  const inputId = `hand-on-${approval.id}-${seat.name}`;
  const handOn = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await client.approvals.delegate(approval.id, { from: seat.name, to: to.trim() });
      setOpen(false);
      setTo('');
      onHandedOn();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      class="hand-on"
      aria-label={`Hand on ${whose} vote`}
      onSubmit={(event) => {
        event.preventDefault();
        if (to.trim()) void handOn();
      }}
    >
      <div class="row">
        <div>
          <label for={inputId}>Hand {whose} vote to</label>
          <input
            id={inputId}
            value={to}
            required
            autoComplete="off"
            spellcheck={false}
            placeholder="an approver's name"
            onInput={(event) => setTo(event.currentTarget.value)}
          />
        </div>
        <button type="submit" disabled={busy}>
          Hand on
        </button>
        <button
          type="button"
          class="secondary"
          onClick={() => {
            setOpen(false);
            setError(undefined);
          }}
        >
          Cancel
        </button>
      </div>
      {error !== undefined && <ProblemView error={error} />}
    </form>
  );
}
