-- Approvals a team answers (docs/approvals.md, "Several approvers"): an approval may name its approvers
-- and how many must agree. Without them (quorum NULL) an approval is answered once by anyone holding it,
-- as before, and nothing here is written for it.
--
-- quorum: votes for one option that decide it; deny_wins: a vote for the refusing option decides at once;
-- refusing_option: the option that refuses (deny, no, reject or decline), if any. decided_by is the seat
-- whose vote decided, and tally the votes per option then: the answer handed to its workflow carries them.
ALTER TABLE approvals ADD COLUMN quorum integer CHECK (quorum IS NULL OR quorum >= 1);
ALTER TABLE approvals ADD COLUMN deny_wins boolean;
ALTER TABLE approvals ADD COLUMN refusing_option text;
ALTER TABLE approvals ADD COLUMN decided_by text;
ALTER TABLE approvals ADD COLUMN tally jsonb;

-- Who may answer: one seat per approver, "me" being the approval's user. The addresses are the
-- directory's (approvers) when the approval was asked: an approver edited later is asked where they were.
-- A seat is named in its signed links by its position, so positions are never reused.
CREATE TABLE approval_seats (
  approval_id       text NOT NULL REFERENCES approvals(id) ON DELETE CASCADE,
  position          integer NOT NULL CHECK (position >= 0),
  name              text NOT NULL,
  email             text,
  slack_user_id     text,
  telegram_chat_id  text,
  webhook_url       text,
  -- How the seat came: the request, an escalation or a delegation.
  added_by          text NOT NULL DEFAULT 'request' CHECK (added_by IN ('request', 'escalation', 'delegation')),
  added_at          timestamptz NOT NULL DEFAULT now(),
  -- The approver this seat handed its vote to (a seat of the same approval), once: then it votes no more.
  delegated_to      text,
  PRIMARY KEY (approval_id, position),
  UNIQUE (approval_id, name)
);

-- Every vote, once per seat: who, what, how, when. The approval's row is locked while one is cast, so
-- the tally a vote sees is every vote before it, and exactly one vote decides.
CREATE TABLE approval_votes (
  approval_id  text NOT NULL,
  position     integer NOT NULL,
  choice       text NOT NULL,
  note         text,
  via          text NOT NULL,
  voted_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (approval_id, position),
  FOREIGN KEY (approval_id, position) REFERENCES approval_seats (approval_id, position) ON DELETE CASCADE
);

-- Each approver is asked at every address the seat has (email, Slack, Telegram, webhook), with their own
-- links, over the asking agent's channel of that kind (its credentials). One row per seat and address,
-- as approval_dispatches has one per channel.
CREATE TABLE approval_seat_dispatches (
  approval_id  text NOT NULL,
  position     integer NOT NULL,
  provider     text NOT NULL,
  status       text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed', 'skipped')),
  attempts     integer NOT NULL DEFAULT 0,
  error        text,
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (approval_id, position, provider),
  FOREIGN KEY (approval_id, position) REFERENCES approval_seats (approval_id, position) ON DELETE CASCADE
);
