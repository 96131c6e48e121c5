-- Device logins (RFC 8628 in shape): a device asks for a code, a user approves its short user code,
-- and the device's next poll mints a key of that user. The device code is stored only as its SHA-256
-- hash (it is 256 random bits, so unsalted is safe, as for API keys). No key is stored either: it is
-- minted by the poll that hands it out, which sets key_id so it is handed out once.
CREATE TABLE device_authorizations (
  device_code_hash  text PRIMARY KEY,
  -- Normalised: the eight letters without the dash.
  user_code         text NOT NULL UNIQUE,
  client_name       text NOT NULL,
  -- The scopes asked for; NULL: those of the approving key.
  requested_scopes  text[],
  status            text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'denied')),
  interval_seconds  integer NOT NULL,
  last_polled_at    timestamptz,
  approved_by       text REFERENCES users(id) ON DELETE CASCADE,
  granted_scopes    text[],
  key_id            text,
  created_at        timestamptz NOT NULL DEFAULT now(),
  expires_at        timestamptz NOT NULL
);
-- The sweep of expired requests (api/housekeeping.ts).
CREATE INDEX device_authorizations_expires_idx ON device_authorizations (expires_at);
