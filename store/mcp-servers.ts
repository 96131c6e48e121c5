// Remote MCP servers, per user: registered by PUT /mcp/<id>, named by id in bundles' `mcps`. Another
// user's server of the same id is simply not found.
import { inTransaction, type Db } from './db.ts';
import type { McpOAuthSettings } from '../lib/mcp/oauth/types.ts';

export interface McpServerRecord {
  id: string;
  url: string;
  /** As written: values may name the user's secrets as {{secrets.KEY}}, filled in only when connecting. */
  headers: Record<string, string>;
  description: string | null;
  /** Signed in to with OAuth (its secret a {{secrets.KEY}} reference), or null for headers only. */
  auth: McpOAuthSettings | null;
  createdAt: Date;
  updatedAt: Date;
}

interface Row {
  id: string;
  url: string;
  headers: Record<string, string>;
  description: string | null;
  auth: McpOAuthSettings | null;
  created_at: Date;
  updated_at: Date;
}

const toRecord = (row: Row): McpServerRecord => ({
  id: row.id,
  url: row.url,
  headers: row.headers,
  description: row.description,
  auth: row.auth,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/**
 * Registers or replaces a server; `created` tells which. Past `maxServers` a new id is not stored
 * (`undefined`), replacing one always is. The user's row is locked first: one statement alone does not
 * do (under READ COMMITTED concurrent inserts each count the rows committed before them, so 25 at once
 * would all see room), while registrations of one user taking turns count each other's.
 */
export async function putMcpServer(
  db: Db,
  userId: string,
  server: { id: string; url: string; headers: Record<string, string>; description?: string; auth?: McpOAuthSettings },
  maxServers: number,
): Promise<(McpServerRecord & { created: boolean }) | undefined> {
  return inTransaction(db, async (client) => {
    await client.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
    const { rows } = await client.query<Row & { inserted: boolean }>(
      `INSERT INTO mcp_servers (user_id, id, url, headers, description, auth)
       SELECT $1, $2, $3, $4, $5, $7
        WHERE EXISTS (SELECT 1 FROM mcp_servers WHERE user_id = $1 AND id = $2)
           OR (SELECT count(*) FROM mcp_servers WHERE user_id = $1) < $6
       ON CONFLICT (user_id, id) DO UPDATE
         SET url = EXCLUDED.url, headers = EXCLUDED.headers, description = EXCLUDED.description, auth = EXCLUDED.auth,
             updated_at = now()
       RETURNING *, (xmax = 0) AS inserted`,
      [
        userId,
        server.id,
        server.url,
        JSON.stringify(server.headers),
        server.description ?? null,
        maxServers,
        server.auth ? JSON.stringify(server.auth) : null,
      ],
    );
    const row = rows[0];
    return row && { ...toRecord(row), created: row.inserted };
  });
}

export async function listMcpServers(db: Db, userId: string): Promise<McpServerRecord[]> {
  const { rows } = await db.query<Row>('SELECT * FROM mcp_servers WHERE user_id = $1 ORDER BY id', [userId]);
  return rows.map(toRecord);
}

export async function getMcpServer(db: Db, userId: string, id: string): Promise<McpServerRecord | undefined> {
  const { rows } = await db.query<Row>('SELECT * FROM mcp_servers WHERE user_id = $1 AND id = $2', [userId, id]);
  return rows[0] && toRecord(rows[0]);
}

export async function deleteMcpServer(db: Db, userId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM mcp_servers WHERE user_id = $1 AND id = $2', [userId, id]);
  return (rowCount ?? 0) > 0;
}
