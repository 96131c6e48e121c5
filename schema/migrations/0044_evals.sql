-- Evals (docs/evals.md): a run of a revision against cases, each case a session of that revision,
-- graded when its turn ends. A case from a recorded session replays it: the case's session answers a
-- service tool call with the recorded result of a matching call (eval_sessions names the recording;
-- eval_replayed_calls keeps which recorded call answered which call, so a retried tool call gets the
-- same answer and no recorded call answers twice).
-- Stored, versioned sets of written cases (PUT /eval-set/<name>): each PUT adds a version.
CREATE TABLE eval_sets (
  user_id     text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name        text NOT NULL,
  version     integer NOT NULL,
  cases       jsonb NOT NULL,
  key_id      text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, name, version)
);

CREATE TABLE eval_runs (
  id            text PRIMARY KEY,
  user_id       text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  agent_id      text NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  revision      integer NOT NULL,
  status        text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'completed', 'cancelled')),
  replay_tools  text NOT NULL CHECK (replay_tools IN ('recorded', 'live')),
  unmatched     text NOT NULL CHECK (unmatched IN ('error', 'live')),
  concurrency   integer NOT NULL,
  graders       jsonb NOT NULL DEFAULT '[]',
  -- The stored set its cases came from, if any: what a promote's requireEval looks for.
  set_name      text,
  set_version   integer,
  key_id        text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  -- Its workflow is known to run; the housekeeping pass starts a run recorded and never marked.
  started_at    timestamptz,
  ended_at      timestamptz
);
CREATE INDEX eval_runs_agent_idx ON eval_runs (agent_id, created_at DESC);
CREATE INDEX eval_runs_set_idx ON eval_runs (agent_id, revision, set_name) WHERE set_name IS NOT NULL;
CREATE INDEX eval_runs_unstarted_idx ON eval_runs (created_at) WHERE status = 'running' AND started_at IS NULL;
CREATE INDEX eval_runs_running_idx ON eval_runs (user_id) WHERE status = 'running';

CREATE TABLE eval_cases (
  run_id           text NOT NULL REFERENCES eval_runs(id) ON DELETE CASCADE,
  position         integer NOT NULL,
  input            text NOT NULL,
  expect           jsonb,
  from_session_id  text,
  baseline         jsonb,
  session_id       text,
  message_id       text,
  status           text NOT NULL DEFAULT 'pending'
                   CHECK (status IN ('pending', 'running', 'passed', 'failed', 'error', 'cancelled')),
  verdicts         jsonb NOT NULL DEFAULT '[]',
  transcript       jsonb,
  cost_usd         double precision,
  latency_ms       integer,
  error            text,
  ended_at         timestamptz,
  PRIMARY KEY (run_id, position)
);

CREATE TABLE eval_sessions (
  session_id   text PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
  run_id       text NOT NULL REFERENCES eval_runs(id) ON DELETE CASCADE,
  replay_of    text,
  unmatched    text NOT NULL CHECK (unmatched IN ('error', 'live'))
);

-- The service tool calls of the recorded sessions a run replays, with their results, copied when the run
-- is made: matching reads these (indexed by tool), not the recordings' whole event logs, and a recording
-- deleted meanwhile still replays.
CREATE TABLE eval_recorded_calls (
  run_id        text NOT NULL REFERENCES eval_runs(id) ON DELETE CASCADE,
  session_id    text NOT NULL,
  seq           bigint NOT NULL,
  tool_name     text NOT NULL,
  input         jsonb,
  output        jsonb,
  is_error      boolean NOT NULL DEFAULT false,
  PRIMARY KEY (run_id, session_id, seq)
);
CREATE INDEX eval_recorded_calls_tool_idx ON eval_recorded_calls (run_id, session_id, tool_name);

CREATE TABLE eval_replayed_calls (
  session_id    text NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  tool_call_id  text NOT NULL,
  recorded_seq  bigint,
  tool_name     text NOT NULL,
  PRIMARY KEY (session_id, tool_call_id)
);
