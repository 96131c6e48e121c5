-- Sessions hold a conversation pinned to one agent revision. Events are numbered per session with
-- no gap and no repeat: each append takes the next value of sessions.last_seq in the same
-- transaction as the change it describes, then NOTIFYs (delivered at commit).
CREATE TABLE sessions (
  id             text PRIMARY KEY,
  user_id        text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  agent_id       text NOT NULL REFERENCES agents(id),
  revision       integer NOT NULL,
  status         text NOT NULL DEFAULT 'idle' CHECK (status IN ('idle', 'running', 'waiting')),
  last_seq       bigint NOT NULL DEFAULT 0,
  input_tokens   bigint NOT NULL DEFAULT 0,
  output_tokens  bigint NOT NULL DEFAULT 0,
  cost_usd       numeric(16, 8) NOT NULL DEFAULT 0,
  forked_from    text REFERENCES sessions(id),
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sessions_agent_idx ON sessions (agent_id, created_at DESC);
CREATE INDEX sessions_user_idx ON sessions (user_id, created_at DESC);

-- Messages in conversation order (`position` is the seq of the message's message.created event).
-- One assistant message per model step; `attempt` names the step attempt allowed to write it, so a
-- timed-out attempt that still runs somewhere cannot interleave with its retry.
CREATE TABLE messages (
  id            text PRIMARY KEY,
  session_id    text NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  position      bigint NOT NULL,
  turn_id       text,
  role          text NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
  parts         jsonb NOT NULL DEFAULT '[]',
  status        text NOT NULL DEFAULT 'complete' CHECK (status IN ('streaming', 'complete', 'aborted', 'failed')),
  attempt       integer NOT NULL DEFAULT 1,
  model         jsonb,
  usage         jsonb,
  cost_usd      numeric(16, 8),
  reverted      boolean NOT NULL DEFAULT false,
  created_at    timestamptz NOT NULL DEFAULT now(),
  completed_at  timestamptz
);
CREATE UNIQUE INDEX messages_session_position_idx ON messages (session_id, position);

CREATE TABLE events (
  session_id  text NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  seq         bigint NOT NULL,
  type        text NOT NULL,
  at          timestamptz NOT NULL DEFAULT now(),
  data        jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (session_id, seq)
);
