// An agent's call of another agent, in PostgreSQL (docs/tools.md, "Calling other agents"). The call
// opens (or continues) a child session of the callee and takes the call's message there as any send is
// taken (store/session-inbox.ts), with a reply target naming the call; when the child's turn ends its
// reply is stored as the call's answer in the caller's session (store/client-tool-answers.ts, where a
// client's tool results go too) and the caller's session workflow takes it from its inbox. Each step
// is idempotent: the ids are chosen by the calling workflow, so a retried call never opens a second child.
import { inTransaction, type Db, type DbClient } from './db.ts';
import { appendEventOnce } from './events.ts';
import { turnMessages } from './messages.ts';
import { getSession, openSessionOnce, type Session } from './sessions.ts';
import { storeClientToolAnswer, type ClientToolAnswer } from './client-tool-answers.ts';
import { takeSend } from './session-inbox.ts';
import { addToTotals, type TurnTotals } from '../core/turn-progress.ts';

export interface AgentCallStart {
  parentSessionId: string;
  userId: string;
  /** The caller's step message and the call in it. */
  messageId: string;
  toolCallId: string;
  agent: { name: string; agentId: string; revision: number };
  text: string;
  /** A session an earlier call opened, to continue; otherwise `childSessionId` is opened. */
  continueSessionId?: string;
  childSessionId: string;
  childMessageId: string;
  maxDepth: number;
  maxWaitingPerUser: number;
  /** A workflow graph's agent node (`toolCallId` is then `node:<nodeId>`): its run, told the reply. */
  runId?: string;
  /** The calling turn's workflow (its session's, or a graph node's turn workflow), told the reply. */
  callerWorkflowId?: string;
}

export type AgentCallStarted = { childSessionId: string; childMessageId: string } | { refused: string };

/** Opens or continues the child session and takes the call's message there, once. */
export async function startAgentCall(db: Db, call: AgentCallStart): Promise<AgentCallStarted> {
  const parent = await getSession(db, call.parentSessionId);
  if (!parent) return { refused: 'The calling session is gone.' };
  const depth = parent.callDepth + 1;
  if (depth > call.maxDepth)
    return { refused: `Not called: a chain of agents calling agents goes ${call.maxDepth} deep at most (AGENT_CALL_DEPTH_LIMIT).` };
  let child: Session;
  if (call.continueSessionId) {
    const found = await getSession(db, call.continueSessionId);
    // Only a conversation an earlier call of this session opened (not a subtask's session: its depth and
    // callers are not a call's).
    if (
      !found ||
      found.userId !== call.userId ||
      found.parentSessionId !== parent.id ||
      found.parentToolCallId === null ||
      found.agentId !== call.agent.agentId
    )
      return {
        refused: `There is no conversation "${call.continueSessionId}" of this session with the agent "${call.agent.name}"; leave sessionId out to start one.`,
      };
    child = found;
  } else {
    child = await openSessionOnce(db, {
      id: call.childSessionId,
      userId: call.userId,
      agentId: call.agent.agentId,
      revision: call.agent.revision,
      parentSessionId: parent.id,
      parentCall: { toolCallId: call.toolCallId, depth, callerAgentIds: [...parent.callerAgentIds, parent.agentId] },
    });
  }
  try {
    await takeSend(db, {
      sessionId: child.id,
      userId: call.userId,
      messageId: call.childMessageId,
      parts: [{ type: 'text', text: call.text }],
      ifBusy: 'queue',
      replyTo: {
        sessionId: parent.id,
        messageId: call.messageId,
        toolCallId: call.toolCallId,
        agent: call.agent.name,
        ...(call.runId ? { runId: call.runId } : {}),
        ...(call.callerWorkflowId ? { workflowId: call.callerWorkflowId } : {}),
      },
      maxWaitingPerUser: call.maxWaitingPerUser,
    });
  } catch (error) {
    if ((error as Error).name === 'InboxFull') return { refused: `Not called: ${(error as Error).message}; try again later.` };
    throw error;
  }
  await inTransaction(db, (client) =>
    appendEventOnce(
      client,
      parent.id,
      {
        type: 'subagent.started',
        data: {
          messageId: call.messageId,
          toolCallId: call.toolCallId,
          agent: call.agent.name,
          childSessionId: child.id,
          childMessageId: call.childMessageId,
        },
      },
      // A graph visiting its node again (or a provider reusing call ids) makes a new call: its step message differs.
      { toolCallId: call.toolCallId, messageId: call.messageId },
    ),
  );
  return { childSessionId: child.id, childMessageId: call.childMessageId };
}

export interface AgentCallEnd {
  parentSessionId: string;
  messageId: string;
  toolCallId: string;
  agent: string;
  childSessionId: string;
  /** The child's turn: the call's message. */
  turnId: string;
  status: 'completed' | 'failed' | 'aborted';
  /** The calling turn's workflow, when not its session's (a graph node's turn workflow). */
  callerWorkflowId?: string;
  /** Why it failed, when its turn.failed may not be written yet (a stranded turn, told before its end is written). */
  error?: string;
}

/** The reply of a turn, as its caller reads it: its text, its JSON reply, and why it failed. */
export interface TurnReply {
  messageId: string | null;
  text: string;
  json?: unknown;
  error?: string;
}

export async function readTurnReply(db: Db | DbClient, sessionId: string, turnId: string, failed: boolean): Promise<TurnReply> {
  const messages = await turnMessages(db, sessionId, turnId);
  const answer = messages.filter((message) => message.role === 'assistant' && message.status !== 'streaming').at(-1);
  const text = (answer?.parts ?? []).flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
  const json = answer?.parts.find((part) => part.type === 'json');
  const failure = failed
    ? await db.query<{ error: string | null }>(
        `SELECT data->>'error' AS error FROM events WHERE session_id = $1 AND type = 'turn.failed' AND data->>'turnId' = $2 LIMIT 1`,
        [sessionId, turnId],
      )
    : undefined;
  const error = failure?.rows[0]?.error ?? undefined;
  return { messageId: answer?.id ?? null, text, ...(json ? { json: json.json } : {}), ...(error ? { error } : {}) };
}

/** What the caller's model reads as the call's result, and what the child's turn spent. */
export function agentCallAnswer(end: AgentCallEnd, reply: TurnReply, spent: ClientToolAnswer['spent']): ClientToolAnswer {
  const counted = spent ? { spent } : {};
  if (end.status === 'completed') return { output: { sessionId: end.childSessionId, reply: reply.json ?? reply.text }, ...counted };
  const why = end.status === 'aborted' ? 'was stopped before it replied' : `failed: ${reply.error ?? end.error ?? 'its turn failed'}`;
  return { error: `The agent "${end.agent}" ${why} (sessionId ${end.childSessionId}).`, ...counted };
}

/** What a turn's replies and summaries spent (a failed or aborted turn's too), summed as a turn's totals are. */
async function turnSpent(db: Db, sessionId: string, turnId: string): Promise<ClientToolAnswer['spent']> {
  const messages = await turnMessages(db, sessionId, turnId);
  let totals: TurnTotals = { usage: { inputTokens: 0, outputTokens: 0 }, costUsd: null };
  for (const message of messages)
    if (message.role !== 'user' && message.role !== 'tool') totals = addToTotals(totals, message.usage, message.costUsd);
  return totals;
}

/** The call's end in the caller's session, once: `subagent.completed`, or `subagent.failed` with `error`. */
async function appendCallEnd(db: Db, end: AgentCallEnd, error: string): Promise<void> {
  const base = { messageId: end.messageId, toolCallId: end.toolCallId, agent: end.agent, childSessionId: end.childSessionId };
  await inTransaction(db, (client) =>
    appendEventOnce(
      client,
      end.parentSessionId,
      end.status === 'completed'
        ? { type: 'subagent.completed', data: base }
        : { type: 'subagent.failed', data: { ...base, status: end.status, error } },
      // A graph visiting its node again (or a provider reusing call ids) makes a new call: its step message differs.
      { toolCallId: end.toolCallId, messageId: end.messageId },
    ),
  );
}

/**
 * A workflow graph's agent node run by another agent has ended: its event in the run's session, once,
 * and what the run reads of it (its reply is the node's output).
 */
export async function endAgentNode(db: Db, end: AgentCallEnd): Promise<{ status: AgentCallEnd['status']; reply: string; error?: string }> {
  const reply = await readTurnReply(db, end.childSessionId, end.turnId, end.status === 'failed');
  const error =
    end.status === 'completed'
      ? undefined
      : (reply.error ?? end.error ?? (end.status === 'aborted' ? 'its turn was aborted' : 'its turn failed'));
  await appendCallEnd(db, end, error ?? '');
  return { status: end.status, reply: reply.json !== undefined ? JSON.stringify(reply.json) : reply.text, ...(error ? { error } : {}) };
}

/**
 * The child's turn has ended: its event in the caller's session, and its reply stored as the call's
 * answer, once. `stored` false: the caller's turn has ended (or the call had its answer already), and
 * nobody needs waking.
 */
export async function endAgentCall(db: Db, end: AgentCallEnd): Promise<{ stored: false } | { stored: true; answer: ClientToolAnswer }> {
  const parent = await getSession(db, end.parentSessionId);
  if (!parent) return { stored: false };
  const reply = await readTurnReply(db, end.childSessionId, end.turnId, end.status === 'failed');
  const answer = agentCallAnswer(end, reply, await turnSpent(db, end.childSessionId, end.turnId));
  const { rows } = await db.query<{ seq: string }>(
    `SELECT seq FROM events WHERE session_id = $1 AND type = 'tool.call' AND data->>'toolCallId' = $2 AND data->>'messageId' = $3 LIMIT 1`,
    [end.parentSessionId, end.toolCallId, end.messageId],
  );
  if (!rows[0]) return { stored: false };
  await appendCallEnd(db, end, 'error' in answer ? answer.error : '');
  const outcome = await storeClientToolAnswer(db, {
    sessionId: end.parentSessionId,
    userId: parent.userId,
    messageId: end.messageId,
    toolCallId: end.toolCallId,
    callSeq: Number(rows[0].seq),
    answer,
  });
  // Stored now or by an earlier try (whose wake-up may be lost): the caller is woken either way.
  if (outcome.status === 'ended') return { stored: false };
  return { stored: true, answer: outcome.status === 'decided' && outcome.answer ? outcome.answer : answer };
}

/** The caller's workflow took the wake-up with the answer: the inbox's row needs no other (the send sweep skips it). */
export async function markAnswerWoken(db: Db, end: Pick<AgentCallEnd, 'parentSessionId' | 'messageId' | 'toolCallId'>): Promise<void> {
  await db.query(
    'UPDATE client_tool_answers SET woken = true WHERE session_id = $1 AND message_id = $2 AND tool_call_id = $3 AND NOT woken',
    [end.parentSessionId, end.messageId, end.toolCallId],
  );
}
