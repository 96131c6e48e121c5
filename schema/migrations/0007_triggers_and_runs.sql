-- Cron triggers run as Temporal Schedules. This table is the reconciler's memory of which schedules
-- an agent may have: a row is written before its schedule is created and removed after its schedule
-- is deleted, so a reconcile cut short anywhere is finished by the next one and nothing is orphaned.
CREATE TABLE agent_schedules (
  agent_id     text NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  schedule_id  text NOT NULL,
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (agent_id, schedule_id)
);

-- Runs of workflow graphs. Each run drives its own session; `outputs` holds what each node gave
-- (an agent node's reply, an approval node's choice and note), which later prompts may use.
CREATE TABLE workflow_runs (
  id            text PRIMARY KEY,
  user_id       text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  agent_id      text NOT NULL REFERENCES agents(id),
  revision      integer NOT NULL,
  workflow      text NOT NULL,
  session_id    text NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  status        text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'completed', 'failed')),
  current_node  text,
  input         text,
  outputs       jsonb NOT NULL DEFAULT '{}',
  error         text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  ended_at      timestamptz
);
CREATE INDEX workflow_runs_session_idx ON workflow_runs (session_id);
CREATE INDEX workflow_runs_user_idx ON workflow_runs (user_id, created_at DESC);
