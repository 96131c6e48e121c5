-- A session's running totals of the input its provider's prompt cache served: read from the cache and
-- written to it (both counted in input_tokens too), as each reply's usage reports them.
ALTER TABLE sessions
  ADD COLUMN cache_read_tokens bigint NOT NULL DEFAULT 0,
  ADD COLUMN cache_write_tokens bigint NOT NULL DEFAULT 0;
