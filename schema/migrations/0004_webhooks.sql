-- Outbound webhooks. A subscription's signing secret must be read back to sign every attempt, so it
-- is sealed (AES-256-GCM under the master key, like secrets) rather than hashed; key_id names the
-- master key that sealed it. A 410 from the receiver disables the subscription (status, reason).
CREATE TABLE webhook_subscriptions (
  id                 text PRIMARY KEY,
  user_id            text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  url                text NOT NULL,
  events             text[] NOT NULL,
  secret_key_id      text NOT NULL,
  secret_nonce       bytea NOT NULL,
  secret_ciphertext  bytea NOT NULL,
  secret_auth_tag    bytea NOT NULL,
  status             text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
  disabled_reason    text,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_subscriptions_user_idx ON webhook_subscriptions (user_id, created_at);

-- One event for one subscription. `body` is the exact JSON sent, byte for byte the same on every
-- attempt. `event_key` names the event that caused it (e.g. session.completed of one turn), so a
-- publishing activity that runs again after a crash finds its deliveries instead of adding more.
CREATE TABLE webhook_deliveries (
  id               text PRIMARY KEY,
  subscription_id  text NOT NULL REFERENCES webhook_subscriptions(id) ON DELETE CASCADE,
  event_type       text NOT NULL,
  event_key        text NOT NULL,
  body             text NOT NULL,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed', 'cancelled')),
  attempts         integer NOT NULL DEFAULT 0,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (subscription_id, event_key)
);
CREATE INDEX webhook_deliveries_subscription_idx ON webhook_deliveries (subscription_id, created_at DESC, id DESC);

-- Every attempt, as the delivery log shows it: an HTTP status, or the network error that stood in
-- for one (refused address, timeout, connection reset), and how long it took.
CREATE TABLE webhook_delivery_attempts (
  delivery_id  text NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
  attempt      integer NOT NULL,
  started_at   timestamptz NOT NULL,
  status_code  integer,
  error        text,
  duration_ms  integer NOT NULL,
  PRIMARY KEY (delivery_id, attempt)
);
