// The notes of the `memory` tool server: per agent, by key. A new note is refused once the agent holds
// its maximum; replacing a note is always allowed. The agent's row is locked while a note is added,
// so two tool calls at once cannot both take the last place.
import { inTransaction, type Db } from './db.ts';

export interface MemoryNote {
  key: string;
  value: string;
  updatedAt: Date;
}

interface NoteRow {
  key: string;
  value: string;
  updated_at: Date;
}

const note = (row: NoteRow): MemoryNote => ({ key: row.key, value: row.value, updatedAt: row.updated_at });

/** Stores or replaces a note; false (and nothing stored) when it is new and the agent has `maxNotes`. */
export async function rememberNote(db: Db, agentId: string, key: string, value: string, maxNotes: number): Promise<boolean> {
  return inTransaction(db, async (client) => {
    await client.query('SELECT 1 FROM agents WHERE id = $1 FOR UPDATE', [agentId]);
    const { rowCount } = await client.query(
      `INSERT INTO agent_memories (agent_id, key, value)
       SELECT $1, $2, $3
        WHERE EXISTS (SELECT 1 FROM agent_memories WHERE agent_id = $1 AND key = $2)
           OR (SELECT count(*) FROM agent_memories WHERE agent_id = $1) < $4
       ON CONFLICT (agent_id, key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
      [agentId, key, value, maxNotes],
    );
    return rowCount === 1;
  });
}

export async function recallNote(db: Db, agentId: string, key: string): Promise<MemoryNote | undefined> {
  const { rows } = await db.query<NoteRow>('SELECT key, value, updated_at FROM agent_memories WHERE agent_id = $1 AND key = $2', [
    agentId,
    key,
  ]);
  return rows[0] ? note(rows[0]) : undefined;
}

export async function forgetNote(db: Db, agentId: string, key: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM agent_memories WHERE agent_id = $1 AND key = $2', [agentId, key]);
  return rowCount === 1;
}

/** Newest first. */
export async function listNotes(db: Db, agentId: string): Promise<MemoryNote[]> {
  const { rows } = await db.query<NoteRow>(
    'SELECT key, value, updated_at FROM agent_memories WHERE agent_id = $1 ORDER BY updated_at DESC, key',
    [agentId],
  );
  return rows.map(note);
}
