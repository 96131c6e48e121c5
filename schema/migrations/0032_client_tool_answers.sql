-- A client's results for its custom tools, taken by the API before any worker sees them (store/client-
-- tool-answers.ts): the first row for a call decides, whichever writes it, the API with the client's
-- answer or the turn that stopped waiting (its timeout: `answer` NULL). The API then wakes the session's
-- workflow with the signal it uses for sends (the engine takes it with no worker running); the workflow
-- reads the rows of turns not ended yet and hands them to its waiting turn, which writes each as its
-- `tool.result` (once, however often it is handed over).
--   message_id  the assistant message whose tool call this answers (the tool.call event's messageId);
--   answer      {"output": <any JSON>} or {"error": <text>}; NULL: the turn stopped waiting first;
--   woken       the session workflow has read the row: the sweep wakes workflows of rows not read;
--   settled     the call's turn has ended (store/events.ts, appendEvents): the row is handed over no more.
--               Not set when the answer is written: a workflow task that wrote it may be lost with its
--               worker, and the task run again must read the answer again.
CREATE TABLE client_tool_answers (
  session_id    text NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  message_id    text NOT NULL,
  tool_call_id  text NOT NULL,
  user_id       text NOT NULL,
  answer        jsonb,
  woken         boolean NOT NULL DEFAULT false,
  settled       boolean NOT NULL DEFAULT false,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (session_id, message_id, tool_call_id)
);
CREATE INDEX client_tool_answers_unwoken_idx ON client_tool_answers (created_at) WHERE NOT woken;
CREATE INDEX client_tool_answers_unsettled_idx ON client_tool_answers (session_id) WHERE NOT settled;
