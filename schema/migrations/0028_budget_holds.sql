-- Money a model call may spend, held against the monthly budgets (store/budgets.ts) from the moment the
-- call is admitted until its cost is known: a step checks and holds in one transaction under its user's
-- and agent's locks, so steps running at once cannot all pass a budget that has room for one.
--   reserved_usd  counted while the call may still run: its input and the most output it may write;
--   input_usd     counted once the hold lapsed unsettled (its worker died with the call): the provider
--                 billed the prompt it was sent;
--   charged_usd   set when an attempt ended without a message to carry its cost (aborted, failed after
--                 the provider began to answer): what it is charged, counted from then on.
-- A call whose cost is stored on its message (assistant or summary) deletes its hold in that transaction.
CREATE TABLE budget_holds (
  hold_key      text PRIMARY KEY,
  user_id       text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  agent_id      text NOT NULL,
  reserved_usd  numeric NOT NULL,
  input_usd     numeric NOT NULL,
  charged_usd   numeric,
  created_at    timestamptz NOT NULL DEFAULT now(),
  expires_at    timestamptz NOT NULL
);
CREATE INDEX budget_holds_user_idx ON budget_holds (user_id, created_at);
CREATE INDEX budget_holds_agent_idx ON budget_holds (agent_id, created_at);
