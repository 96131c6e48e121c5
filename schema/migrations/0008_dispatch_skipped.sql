-- A dispatch not sent because the approval was settled first (answered or expired before its turn
-- came) is `skipped`, so no dispatch stays `pending` once its approval is decided.
ALTER TABLE approval_dispatches DROP CONSTRAINT approval_dispatches_status_check;
ALTER TABLE approval_dispatches ADD CONSTRAINT approval_dispatches_status_check CHECK (status IN ('pending', 'sent', 'failed', 'skipped'));
