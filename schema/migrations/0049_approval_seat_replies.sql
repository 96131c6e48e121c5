-- A chat reply to an approver's own message votes as that approver (docs/approvals.md, "Several
-- approvers"): the message sent to them is named as a channel's is (Slack `<channel>:<ts>`, Telegram
-- `<chat>:<message id>`), so a reply in its thread finds the seat it was meant for.
ALTER TABLE approval_seat_dispatches ADD COLUMN external_ref text;
CREATE INDEX approval_seat_dispatches_ref ON approval_seat_dispatches (provider, external_ref) WHERE external_ref IS NOT NULL;

-- The escalation step that added a seat: a step run again (its activity's result lost with its worker)
-- answers the same seats and addresses to ask, instead of none.
ALTER TABLE approval_seats ADD COLUMN escalation_step integer;
