-- A chat reply to an approver's own message votes as that approver (docs/approvals.md, "Several
-- approvers"): each message sent to them is named as a channel's is (Slack `<channel>:<ts>`, Telegram
-- `<chat>:<message id>`), so a reply in its thread finds the seat it was meant for. Every message is kept,
-- not only the last: a reply to the first message still counts after a reminder sent another.
CREATE TABLE approval_seat_messages (
  approval_id   text NOT NULL,
  position      integer NOT NULL,
  provider      text NOT NULL,
  external_ref  text NOT NULL,
  sent_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (approval_id, position, provider, external_ref),
  FOREIGN KEY (approval_id, position) REFERENCES approval_seats (approval_id, position) ON DELETE CASCADE
);
CREATE INDEX approval_seat_messages_ref ON approval_seat_messages (provider, external_ref);

-- The escalation step that added a seat: a step run again (its activity's result lost with its worker)
-- answers the same seats and addresses to ask, instead of none.
ALTER TABLE approval_seats ADD COLUMN escalation_step integer;
