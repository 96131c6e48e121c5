-- OAuth tokens used twice end their grant (OAuth 2.1, RFC 6819 §5.2.2.3): a code exchanged once already, or
-- a refresh token already rotated, means someone else may hold it, so the grant it made or belongs to goes.
ALTER TABLE oauth_authorizations ADD COLUMN spent_code_hash text;
ALTER TABLE oauth_authorizations ADD COLUMN grant_key_id text;
CREATE INDEX oauth_authorizations_spent_idx ON oauth_authorizations (spent_code_hash) WHERE spent_code_hash IS NOT NULL;
ALTER TABLE api_keys ADD COLUMN previous_refresh_hash text;
CREATE INDEX api_keys_previous_refresh_idx ON api_keys (previous_refresh_hash) WHERE previous_refresh_hash IS NOT NULL;
