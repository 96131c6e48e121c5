-- Skills given by URL are fetched once, at deploy, and frozen into the revision: the prompt of a
-- revision never depends on what a URL says today. By the skill's index in the bundle's `skills`.
ALTER TABLE agent_revisions ADD COLUMN fetched_skills jsonb NOT NULL DEFAULT '{}'::jsonb;
