-- Uploaded files. A row says that a session may use (and serve) the object under `key`, the url
-- clients see (`media/<uuid>-<name>`). `object_key` is where the bytes are in storage: a fork gets
-- rows of its own pointing at its origin's objects, which are never modified once written.
CREATE TABLE media (
  session_id    text NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  key           text NOT NULL,
  object_key    text NOT NULL,
  content_type  text NOT NULL,
  size_bytes    bigint NOT NULL CHECK (size_bytes > 0),
  filename      text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (session_id, key)
);
-- Whether any session still uses an object, before it is deleted.
CREATE INDEX media_object_idx ON media (object_key);

-- A message copied into a fork names the message it copies. Its usage and cost stay on it for
-- reading; the fork's own totals count only what the fork spent.
ALTER TABLE messages ADD COLUMN copied_from text;
