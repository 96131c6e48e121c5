-- Spend budgets in USD per UTC calendar month: a user's (set by an admin) and an agent's (set by its
-- owner). NULL is no budget. Checked before each model step; a spent budget fails the turn.
ALTER TABLE users ADD COLUMN monthly_budget_usd numeric CHECK (monthly_budget_usd >= 0);
ALTER TABLE agents ADD COLUMN monthly_budget_usd numeric CHECK (monthly_budget_usd >= 0);
