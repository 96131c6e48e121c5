-- Durable approvals: a question to the agent's user, answered once (or expired) days later. The row
-- is the record users read; the approval workflow (`approval:<id>`) decides, and writes here.
-- A row outlives the session that asked: the session reference is kept, never cascaded.
CREATE TABLE approvals (
  id            text PRIMARY KEY,
  user_id       text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  agent_id      text REFERENCES agents(id),
  revision      integer,
  session_id    text REFERENCES sessions(id) ON DELETE SET NULL,
  -- What asked: the ask_my_user tool (with its turn and tool call), a workflow node, or the API.
  source        text NOT NULL CHECK (source IN ('tool', 'workflow', 'api')),
  turn_id       text,
  tool_call_id  text,
  question      text NOT NULL,
  options       jsonb NOT NULL,
  status        text NOT NULL DEFAULT 'unanswered' CHECK (status IN ('unanswered', 'answered', 'expired')),
  choice        text,
  note          text,
  -- How the answer came: api, link, slack, telegram, email, webhook.
  answered_via  text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  expires_at    timestamptz NOT NULL,
  answered_at   timestamptz,
  expired_at    timestamptz
);
CREATE INDEX approvals_user_idx ON approvals (user_id, created_at DESC, id DESC);
CREATE INDEX approvals_user_status_idx ON approvals (user_id, status, created_at DESC, id DESC);
CREATE INDEX approvals_session_idx ON approvals (session_id) WHERE session_id IS NOT NULL;

-- One row per declared channel of the asking agent, in declared order. `external_ref` is what the
-- provider calls the message we sent (Slack `<channel>:<ts>`, Telegram `<chat>:<message_id>`, an
-- email Message-ID), so an inbound reply in that thread finds its approval.
CREATE TABLE approval_dispatches (
  approval_id   text NOT NULL REFERENCES approvals(id) ON DELETE CASCADE,
  position      integer NOT NULL,
  provider      text NOT NULL,
  answer_via    text NOT NULL CHECK (answer_via IN ('reply', 'signed-url')),
  status        text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
  attempts      integer NOT NULL DEFAULT 0,
  external_ref  text,
  error         text,
  updated_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (approval_id, position)
);
CREATE INDEX approval_dispatches_ref_idx ON approval_dispatches (provider, external_ref) WHERE external_ref IS NOT NULL;
