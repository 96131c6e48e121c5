-- Users own every resource; API keys authenticate them. Keys are stored only as SHA-256 hashes,
-- with a short display prefix so a user can tell them apart in a listing.
CREATE TABLE users (
  id          text PRIMARY KEY,
  name        text NOT NULL,
  is_admin    boolean NOT NULL DEFAULT false,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  id            text PRIMARY KEY,
  user_id       text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name          text NOT NULL,
  prefix        text NOT NULL,
  key_hash      text NOT NULL UNIQUE,
  scopes        text[] NOT NULL,
  source        text NOT NULL DEFAULT 'user' CHECK (source IN ('user', 'env')),
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_used_at  timestamptz
);
CREATE INDEX api_keys_user_idx ON api_keys (user_id, created_at);

-- Shared by every API process: rate-limiter-flexible's PostgreSQL store (its own column layout).
CREATE TABLE rate_limits (
  key     varchar(255) PRIMARY KEY,
  points  integer NOT NULL DEFAULT 0,
  expire  bigint
);
