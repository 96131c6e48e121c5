-- Agents and their revisions. A redeploy of the same name adds a revision and keeps the id. A
-- deleted agent keeps its rows (its sessions stay readable) but frees its name.
CREATE TABLE agents (
  id                text PRIMARY KEY,
  user_id           text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name              text NOT NULL,
  current_revision  integer NOT NULL,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  deleted_at        timestamptz
);
CREATE UNIQUE INDEX agents_user_name_live ON agents (user_id, name) WHERE deleted_at IS NULL;

CREATE TABLE agent_revisions (
  agent_id    text NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  revision    integer NOT NULL,
  bundle      jsonb NOT NULL,
  warnings    jsonb NOT NULL DEFAULT '[]',
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (agent_id, revision)
);

-- Secrets are AES-256-GCM ciphertexts; key_id names the master key that sealed them, so the
-- master key can be rotated (old values stay readable with the previous key, then get resealed).
CREATE TABLE secrets (
  user_id     text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  key         text NOT NULL,
  key_id      text NOT NULL,
  nonce       bytea NOT NULL,
  ciphertext  bytea NOT NULL,
  auth_tag    bytea NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, key)
);
