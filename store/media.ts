// The media a session may use: one row per uploaded file (or per file inherited by a fork). Keys
// are looked up here, for one session, before anything is read from storage.
import type { Db, DbClient } from './db.ts';

export interface Media {
  sessionId: string;
  /** What clients name it by: `media/<uuid>-<name>`. */
  key: string;
  /** Where the bytes are in storage. */
  objectKey: string;
  contentType: string;
  size: number;
  filename: string;
  createdAt: Date;
}

interface MediaRow {
  session_id: string;
  key: string;
  object_key: string;
  content_type: string;
  size_bytes: number;
  filename: string;
  created_at: Date;
}

function toMedia(row: MediaRow): Media {
  return {
    sessionId: row.session_id,
    key: row.key,
    objectKey: row.object_key,
    contentType: row.content_type,
    size: row.size_bytes,
    filename: row.filename,
    createdAt: row.created_at,
  };
}

export async function insertMedia(db: Db, media: Omit<Media, 'createdAt'>): Promise<Media> {
  const { rows } = await db.query<MediaRow>(
    `INSERT INTO media (session_id, key, object_key, content_type, size_bytes, filename)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
    [media.sessionId, media.key, media.objectKey, media.contentType, media.size, media.filename],
  );
  return toMedia(rows[0]!);
}

export async function findMedia(db: Db | DbClient, sessionId: string, key: string): Promise<Media | undefined> {
  const { rows } = await db.query<MediaRow>('SELECT * FROM media WHERE session_id = $1 AND key = $2', [sessionId, key]);
  return rows[0] && toMedia(rows[0]);
}

export async function findMediaByKeys(db: Db | DbClient, sessionId: string, keys: readonly string[]): Promise<Media[]> {
  if (keys.length === 0) return [];
  const { rows } = await db.query<MediaRow>('SELECT * FROM media WHERE session_id = $1 AND key = ANY($2::text[])', [sessionId, keys]);
  return rows.map(toMedia);
}

/** Gives a fork the media of its origin: the same keys and objects, rows of its own. */
export async function copyMedia(client: DbClient, fromSessionId: string, toSessionId: string): Promise<void> {
  await client.query(
    `INSERT INTO media (session_id, key, object_key, content_type, size_bytes, filename, created_at)
     SELECT $2, key, object_key, content_type, size_bytes, filename, created_at FROM media WHERE session_id = $1`,
    [fromSessionId, toSessionId],
  );
}

/** Which of these objects some media row still names (an object may be deleted only once none does). */
export async function objectKeysInUse(db: Db | DbClient, objectKeys: readonly string[]): Promise<Set<string>> {
  if (objectKeys.length === 0) return new Set();
  const { rows } = await db.query<{ object_key: string }>('SELECT DISTINCT object_key FROM media WHERE object_key = ANY($1::text[])', [
    objectKeys,
  ]);
  return new Set(rows.map((row) => row.object_key));
}

/**
 * The media named by file parts of the session's conversation (user messages not reverted, queued
 * ones included): what every model step of the session's next turns is sent, each file once.
 */
export async function conversationMedia(db: Db | DbClient, sessionId: string): Promise<Media[]> {
  const { rows } = await db.query<MediaRow>(
    `SELECT * FROM media WHERE session_id = $1 AND key IN (
       SELECT part->>'url' FROM messages m CROSS JOIN LATERAL jsonb_array_elements(m.parts) AS part
        WHERE m.session_id = $1 AND m.role = 'user' AND NOT m.reverted AND part->>'type' = 'file')`,
    [sessionId],
  );
  return rows.map(toMedia);
}
