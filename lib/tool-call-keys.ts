// The idempotency key of one tool call: what a tool with a side effect uses to do it once. Every attempt
// of the call (an activity retried after a worker died, an approval answered twice) carries the same key,
// and no other call has it: the http tool sends it as `Idempotency-Key`, remote MCP servers get it in the
// request's `_meta`, and a client tool's `tool.call` event names it.
//
// Model-made call ids repeat across turns (many providers count from call_0), so the key also names the
// assistant message that made the call; the session makes it differ between a session and its fork.
import { createHash } from 'node:crypto';

/** 32 hex characters: safe in any header, short in logs, and says nothing of the ids it came from. */
export function toolCallIdempotencyKey(sessionId: string, messageId: string, toolCallId: string): string {
  return createHash('sha256').update(`${sessionId}\n${messageId}\n${toolCallId}`).digest('hex').slice(0, 32);
}
