// The `memory` tool server: notes an agent keeps across all its sessions (stored per agent in
// PostgreSQL), bounded in number and size so a model in a loop cannot fill the database.
import { MEMORY_LIMITS } from '../../contract/tool-servers.ts';
import { defineBuiltinTool, toolError } from './define.ts';
import type { AgentToolServices, ToolContext } from './types.ts';

/** How much of each note `list_memories` shows. */
const PREVIEW_CHARS = 80;

function services(context: ToolContext): AgentToolServices {
  if (!context.agent) throw new Error('the memory server needs the agent it runs for');
  return context.agent;
}

export const remember = defineBuiltinTool<{ key: string; value: string }>('memory', 'remember', async ({ key, value }, context) => {
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > MEMORY_LIMITS.valueBytes) {
    return toolError(`The note has ${bytes} bytes; at most ${MEMORY_LIMITS.valueBytes} fit. Store a shorter note.`);
  }
  const stored = await services(context).memory.remember(key, value, MEMORY_LIMITS.notes);
  if (!stored) {
    return toolError(`Memory is full (${MEMORY_LIMITS.notes} notes). Forget a note you no longer need, or replace one by its key.`);
  }
  return { output: { remembered: key }, isError: false };
});

export const recall = defineBuiltinTool<{ key: string }>('memory', 'recall', async ({ key }, context) => {
  const found = await services(context).memory.recall(key);
  if (!found) return toolError(`No note under "${key}". list_memories shows the keys there are.`);
  return { output: { key, value: found.value, updatedAt: found.updatedAt.toISOString() }, isError: false };
});

export const forget = defineBuiltinTool<{ key: string }>('memory', 'forget', async ({ key }, context) => {
  const forgotten = await services(context).memory.forget(key);
  return { output: { key, forgotten }, isError: false };
});

export const listMemories = defineBuiltinTool<Record<string, never>>('memory', 'list_memories', async (_input, context) => {
  const notes = await services(context).memory.list();
  return {
    output: {
      notes: notes.map(({ key, value, updatedAt }) => ({
        key,
        preview: value.length > PREVIEW_CHARS ? `${value.slice(0, PREVIEW_CHARS - 1)}…` : value,
        updatedAt: updatedAt.toISOString(),
      })),
    },
    isError: false,
  };
});
