-- A2A push notifications (docs/a2a.md): a client asks to be told, at a URL of its own, when a task (a
-- turn) changes state. A config belongs to its task and session and goes with them. Its token and its
-- credentials are read back for every notification, so they are sealed under the master key, as a
-- webhook subscription's secret is (secret_* hold {token, credentials} as JSON).
CREATE TABLE a2a_push_configs (
  task_id            text NOT NULL,
  id                 text NOT NULL,
  session_id         text NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  user_id            text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  url                text NOT NULL,
  auth_scheme        text,
  secret_key_id      text NOT NULL,
  secret_nonce       bytea NOT NULL,
  secret_ciphertext  bytea NOT NULL,
  secret_auth_tag    bytea NOT NULL,
  created_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (task_id, id)
);
CREATE INDEX a2a_push_configs_session_idx ON a2a_push_configs (session_id);
CREATE INDEX a2a_push_configs_user_idx ON a2a_push_configs (user_id, created_at);

-- A notification is a delivery like a webhook event's, sent by the same workflow with the same retries:
-- it goes to a push config instead of a subscription, and goes with it.
ALTER TABLE webhook_deliveries ALTER COLUMN subscription_id DROP NOT NULL;
ALTER TABLE webhook_deliveries ADD COLUMN push_task_id text;
ALTER TABLE webhook_deliveries ADD COLUMN push_config_id text;
-- Added NOT VALID, then validated: the check of the rows already there does not block writes meanwhile.
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_push_fk
  FOREIGN KEY (push_task_id, push_config_id) REFERENCES a2a_push_configs (task_id, id) ON DELETE CASCADE NOT VALID;
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_one_target
  CHECK ((subscription_id IS NULL) <> (push_task_id IS NULL AND push_config_id IS NULL)) NOT VALID;
ALTER TABLE webhook_deliveries VALIDATE CONSTRAINT webhook_deliveries_push_fk;
ALTER TABLE webhook_deliveries VALIDATE CONSTRAINT webhook_deliveries_one_target;
CREATE UNIQUE INDEX webhook_deliveries_push_event_idx ON webhook_deliveries (push_task_id, push_config_id, event_key)
  WHERE push_task_id IS NOT NULL;
