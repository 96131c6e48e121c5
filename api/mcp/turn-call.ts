// An MCP tool call that runs a turn (send_message, a command): the message taken as any send is
// (api/sessions/send.ts: same events, usage, budgets, limits, webhooks and traces), then the turn
// followed as a waiting send follows it (api/streaming/turn-answer.ts), with progress notifications
// for a client that asked for them. A turn that waits on a person or a client answers at once, saying
// what it waits for and how that is answered, rather than holding the call for days. The call is
// recorded while it runs, so the client's `notifications/cancelled`, on whichever API process it
// lands, aborts its turn (api/mcp/cancellations.ts).
import type { Request } from 'express';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { SessionEvent } from '../../contract/events.ts';
import type { Received } from '../../contract/operations/operation.ts';
import type { TURN_REPLY_SCHEMA } from '../../contract/operations/turn-answers.ts';
import type { Principal } from '../../store/api-keys.ts';
import type { Session } from '../../store/sessions.ts';
import { forgetMcpToolCall, recordMcpToolCall } from '../../store/mcp-tool-calls.ts';
import type { ApiDeps } from '../context.ts';
import { publicBaseUrl } from '../public-url.ts';
import { takeMessage, type SendRequest } from '../sessions/send.ts';
import { turnResult } from '../streaming/turn-answer.ts';
import { describeWait } from '../sessions/waiting-text.ts';

/** What a tool handler knows of the request that called it. */
export interface McpCall {
  deps: ApiDeps;
  /** The HTTP request that carried the call: its log, its address (its Idempotency-Key is not the send's). */
  req: Request;
  principal: Principal;
  /** The client's Mcp-Session-Id (from its initialize answer); without one, its calls cannot be cancelled. */
  clientSession: string | undefined;
  requestId: string | number;
  /** Ends the follow: the client went away. The turn goes on (a dropped connection is not a cancellation). */
  signal: AbortSignal;
  /** Whether the call carries a progressToken: its client hears progress, and resets its timeout on it. */
  wantsProgress: boolean;
  /** Sends a progress notification when the client asked for them, else nothing. */
  progress(message: string): void;
}

export type TurnSend = Omit<SendRequest, 'req' | 'res' | 'async' | 'extra'>;

type TurnReply = Received<typeof TURN_REPLY_SCHEMA> & { sessionId: string };

/** Longest a call without a progressToken is held: under the 60 s most clients wait for an answer. */
const QUIET_WAIT_MS = 50_000;
/** How often a call that asked for progress hears that the turn still works, when nothing else happened. */
const HEARTBEAT_MS = 15_000;
/** How often the text being written is reported at most. */
const TEXT_PROGRESS_INTERVAL_MS = 250;
/** How much of the text written so far a progress message shows: its end. */
const TEXT_PROGRESS_TAIL = 120;

/** The progress messages of a turn's events: what it does now, in words. */
function progressReporter(call: McpCall): (event: SessionEvent) => void {
  let written = '';
  let lastTextAt = 0;
  return (event) => {
    switch (event.type) {
      case 'turn.started':
        return call.progress('The agent is working on it');
      case 'tool.call':
        return call.progress(`Calling the tool ${event.toolName}`);
      case 'subagent.started':
        return call.progress(`The agent ${event.agent} works on a part of it`);
      case 'message.part.delta': {
        written += event.delta;
        const now = Date.now();
        if (now - lastTextAt < TEXT_PROGRESS_INTERVAL_MS) return;
        lastTextAt = now;
        const tail = written.length > TEXT_PROGRESS_TAIL ? `…${written.slice(-TEXT_PROGRESS_TAIL)}` : written;
        return call.progress(`Writing: ${tail}`);
      }
      case 'message.completed':
        written = '';
        return;
      default:
        return;
    }
  };
}

/** The tool's result for a turn's answer: its reply as text, the whole answer as structured content. */
function toolResult(answer: TurnReply, base: string): CallToolResult {
  const structuredContent = answer as unknown as Record<string, unknown>;
  if (answer.status === 'waiting') {
    return { content: [{ type: 'text', text: describeWait(answer.waitingFor, answer.sessionId, base) }], structuredContent };
  }
  if (answer.status === 'failed') {
    return { content: [{ type: 'text', text: `The turn failed: ${answer.error ?? 'no reason given'}` }], structuredContent, isError: true };
  }
  if (answer.status === 'aborted') {
    return { content: [{ type: 'text', text: 'The turn was aborted before it ended.' }], structuredContent, isError: true };
  }
  const json = 'json' in answer ? `\n\n${JSON.stringify(answer.json)}` : '';
  return { content: [{ type: 'text', text: `${answer.reply}${json}` || '(The agent replied with no text.)' }], structuredContent };
}

/**
 * Sends into `session` and answers with the turn's outcome. A client that asked for progress hears from
 * the turn at least every HEARTBEAT_MS (its timeout, reset on progress, never runs out while the turn
 * works) and is answered for up to a waiting send's 10 minutes; one that did not is answered "running"
 * within QUIET_WAIT_MS, before the 60 s most clients give a call (a timed-out call is a cancelled one,
 * which would abort the turn).
 */
export async function runTurnCall(
  call: McpCall,
  session: Session,
  send: TurnSend,
  extra: Record<string, unknown> = {},
): Promise<CallToolResult> {
  const { deps } = call;
  // The HTTP request's Idempotency-Key, if any, was not meant for this send (which may have opened its session).
  const taken = await takeMessage(deps, { ...send, req: call.req, session }, { keyed: false });
  const turnId = taken.joined?.turnId ?? taken.messageId;
  // A steering message's turn is another request's: cancelling this call must not abort it. (A cancel that
  // arrives before the record is written, within milliseconds of the send, finds nothing, as MCP allows.)
  const ref =
    call.clientSession && !taken.joined
      ? {
          userId: call.principal.userId,
          keyId: call.principal.keyId,
          clientSession: call.clientSession,
          requestId: String(call.requestId),
          turnId,
        }
      : undefined;
  if (ref) await recordMcpToolCall(deps.db, { ...ref, sessionId: session.id });
  const heartbeat = call.wantsProgress ? setInterval(() => call.progress('Still working'), HEARTBEAT_MS) : undefined;
  try {
    const answer = await turnResult(deps, {
      sessionId: session.id,
      turnId,
      userMessageId: taken.joined?.userMessageId ?? taken.messageId,
      firstSeq: taken.seq,
      signal: call.signal,
      // The answer names the message sent, also when it joined another's turn.
      extra: { sessionId: session.id, ...extra, messageId: taken.messageId },
      onTurnEvent: progressReporter(call),
      ...(call.wantsProgress ? {} : { waitLimitMs: QUIET_WAIT_MS }),
    });
    if (answer) return toolResult(answer.body as TurnReply, publicBaseUrl(deps.config, call.req));
    const running = { status: 'running', sessionId: session.id, messageId: taken.messageId };
    return {
      content: [
        {
          type: 'text',
          text: `The turn still runs. Read its reply later with get_session {"sessionId": "${session.id}"}.`,
        },
      ],
      structuredContent: running,
    };
  } finally {
    clearInterval(heartbeat);
    if (ref)
      await forgetMcpToolCall(deps.db, ref).catch((error: unknown) => call.req.log.warn({ err: error }, 'could not forget an MCP call'));
  }
}
