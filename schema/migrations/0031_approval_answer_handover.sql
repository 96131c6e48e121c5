-- An answer the API stored itself (api/approvals/workflows.ts: the first answer is decided by
-- PostgreSQL, with no worker running) is handed to its approval workflow by a signal. Until the
-- workflow says it took it, `answer_pending` stays true, and the API's sweep signals it again
-- (api/approvals/handover.ts): so a signal lost with an API process, or refused while Temporal was
-- down, still reaches the workflow within seconds. Answers stored by the workflow itself never wait.
ALTER TABLE approvals ADD COLUMN answer_pending boolean NOT NULL DEFAULT false;
CREATE INDEX approvals_answer_pending_idx ON approvals (answered_at) WHERE answer_pending;
