// What must hold after a soak, read from what the service stored (PostgreSQL, Temporal) and what its
// clients saw (each session's reader, each send and answer). Each breach is one violation, named by
// kind, with the session and what was found; a clean soak has none.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { TERMINAL_TURN_EVENTS, type SessionEvent } from '../contract/events.ts';
import type { Db } from '../store/db.ts';
import { readEvents } from '../store/events.ts';
import { approvalWorkflowId } from '../lib/workflow-safe/workflow-ids.ts';
import type { SentTurn } from './driver.ts';
import type { SessionReader } from './reader.ts';

export interface Violation {
  kind: string;
  sessionId?: string;
  detail: string;
}

export async function storedEvents(db: Db, sessionId: string): Promise<SessionEvent[]> {
  const all: SessionEvent[] = [];
  for (;;) {
    const page = await readEvents(db, sessionId, all.at(-1)?.seq ?? 0, 1000);
    all.push(...page);
    if (page.length < 1000) return all;
  }
}

/** JSON with keys sorted: the same event built by two writers may list its members in another order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}

/** The text a reader following deltas shows for a message: deltas, dropped at each step.retry. */
function deltaText(events: readonly SessionEvent[], messageId: string): string {
  let text = '';
  for (const event of events) {
    if (event.type === 'step.retry' && event.messageId === messageId) text = '';
    if (event.type === 'message.part.delta' && event.messageId === messageId) text += event.delta;
  }
  return text;
}

/** Sends, turns, messages and answers of one session against its stored log and its reader (exported for its test). */
export function checkSession(
  turns: readonly SentTurn[],
  reader: SessionReader,
  stored: readonly SessionEvent[],
  status: string,
): Violation[] {
  const found: Violation[] = [];
  const sessionId = reader.sessionId;
  const add = (kind: string, detail: string) => found.push({ kind, sessionId, detail });

  const accepted = turns.filter((turn) => turn.messageId !== undefined);
  const userMessages = stored.flatMap((event) =>
    event.type === 'message.created' && event.message.role === 'user' ? [event.message.id] : [],
  );
  for (const turn of turns) {
    if (turn.refused) add('send-refused', `${turn.kind}/${turn.mode} "${turn.text}": ${turn.refused}`);
    if (turn.messageId && turn.end !== 'turn.completed')
      add('turn-not-completed', `${turn.messageId} (${turn.kind}/${turn.mode}): ${turn.end ?? 'no end seen'}`);
    if (turn.stream === 'open') add('stream-not-ended', `${turn.messageId}: its stream was still open after its turn's end`);
    if (turn.streamOutOfOrder > 0)
      add('stream-out-of-order', `${turn.messageId}: ${turn.streamOutOfOrder} events at or below the seq before them`);
    for (const answer of [...turn.approvals, ...turn.toolResults]) {
      // 202: a vote of a team's question that did not decide it.
      if (answer.status !== 200 && answer.status !== 409 && answer.status !== 202) add('answer-refused', `${answer.id}: ${answer.status}`);
      // Only the soak answers, once: "taken before" is right only for an attempt after one that got no answer.
      if (answer.status === 409 && answer.attempts === 1) add('answer-taken-before', `${answer.id}: 409 at the first attempt`);
    }
    // A turn that was to ask and asked nothing tested nothing.
    if (turn.end === 'turn.completed' && turn.kind === 'ask' && turn.approvals.length === 0) add('asked-nothing', `${turn.messageId}`);
    // Both calls of a guarded step wait for their own approval: a completed turn answered at least two.
    if (turn.end === 'turn.completed' && turn.kind === 'guarded' && turn.approvals.length < 2) add('policy-skipped', `${turn.messageId}`);
    if (turn.end === 'turn.completed' && turn.kind === 'client' && turn.toolResults.length === 0) add('asked-nothing', `${turn.messageId}`);
    if (turn.end === 'turn.completed' && turn.kind === 'regenerate') found.push(...checkRegenerated(turn, stored, sessionId));
    // Two approvers' votes raced on a team's question: both counted, exactly one decided it.
    if (turn.end === 'turn.completed' && turn.kind === 'quorum') {
      const decided = turn.approvals.filter((answer) => answer.status === 200).length;
      if (turn.approvals.length < 2) add('asked-nothing', `${turn.messageId}: ${turn.approvals.length} votes`);
      else if (decided > 1) add('decided-twice', `${turn.messageId}: ${decided} votes each decided it`);
      // None decided: wrong, unless a vote's answer was lost and its retry found it taken (409), which may have.
      else if (decided === 0 && !turn.approvals.some((answer) => answer.status === 409 && answer.attempts > 1))
        add('not-decided', `${turn.messageId}: no vote decided it`);
    }
  }
  // Another agent's call: one child session per call, its end once, and its reply the call's result.
  const agentCalls = stored.flatMap((event) => (event.type === 'subagent.started' ? [event] : []));
  const completedCalls = turns.filter((turn) => turn.kind === 'subagent' && turn.end === 'turn.completed').length;
  if (agentCalls.length < completedCalls)
    add('asked-nothing', `${completedCalls} subagent turns completed, ${agentCalls.length} calls started`);
  for (const started of agentCalls) {
    const ends = stored.filter(
      (event) => (event.type === 'subagent.completed' || event.type === 'subagent.failed') && event.toolCallId === started.toolCallId,
    );
    const results = stored.filter((event) => event.type === 'tool.result' && event.toolCallId === started.toolCallId);
    const twice = agentCalls.filter((other) => other.toolCallId === started.toolCallId).length;
    if (twice !== 1 || ends.length !== 1 || ends[0]!.type !== 'subagent.completed' || results.length !== 1)
      add(
        'agent-call-not-once',
        `${started.toolCallId}: ${twice} started, ${ends.map((event) => event.type).join(', ') || 'no end'}, ${results.length} results`,
      );
    else if ((results[0] as Extract<SessionEvent, { type: 'tool.result' }>).isError) add('agent-call-failed', `${started.toolCallId}`);
  }
  for (const turn of accepted) {
    const copies = userMessages.filter((id) => id === turn.messageId).length;
    if (copies !== 1) add('send-not-stored-once', `${turn.messageId} stored ${copies} times`);
    const ends = stored.filter(
      (event) => TERMINAL_TURN_EVENTS.includes(event.type) && 'turnId' in event && event.turnId === turn.messageId,
    );
    if (ends.length !== 1 || ends[0]!.type !== 'turn.completed')
      add('stored-turn-end', `${turn.messageId}: ${ends.map((event) => event.type).join(', ') || 'none'}`);
  }
  const sent = new Set(accepted.map((turn) => turn.messageId));
  for (const id of userMessages) if (!sent.has(id)) add('user-message-not-sent', `${id} is stored, but no send was answered with it`);

  for (const event of stored) {
    if (event.type !== 'message.completed' || event.message.role !== 'assistant') continue;
    const text = event.message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
    const deltas = deltaText(stored, event.message.id);
    if (text !== deltas) add('text-not-deltas', `${event.message.id}: "${text.slice(0, 60)}" vs deltas "${deltas.slice(0, 60)}"`);
  }
  // A compaction, however often its activity ran (a killed worker), stores its summary once, announced once.
  const summaries = stored.flatMap((event) =>
    event.type === 'message.created' && event.message.role === 'summary' ? [event.message.id] : [],
  );
  const compacted = stored.flatMap((event) => (event.type === 'session.compacted' ? [event.summaryMessageId] : []));
  if (new Set(compacted).size !== compacted.length) add('compaction-announced-twice', compacted.join(', '));
  if (canonical([...summaries].sort()) !== canonical([...compacted].sort()))
    add('compaction-summary', `summaries ${summaries.join(', ') || 'none'}; session.compacted for ${compacted.join(', ') || 'none'}`);

  const calls = stored.filter((event) => event.type === 'tool.call' && event.executor === 'client');
  for (const call of calls) {
    if (call.type !== 'tool.call') continue;
    const results = stored.filter((event) => event.type === 'tool.result' && event.toolCallId === call.toolCallId).length;
    if (results !== 1) add('client-tool-results', `${call.toolCallId}: ${results} results`);
  }

  for (const gap of reader.outOfOrder) add('reader-out-of-order', `expected seq ${gap.expected}, got ${gap.got}`);
  for (const error of reader.errors) add('reader-error', error);
  const seen = reader.received.map(({ event }) => event.seq);
  const lastStored = stored.at(-1)?.seq ?? 0;
  if (seen.length !== lastStored || seen.some((seq, index) => seq !== index + 1)) {
    add('reader-missed', `received ${seen.length} events up to seq ${seen.at(-1) ?? 0}; stored ${lastStored}`);
  }
  for (const { event } of reader.received) {
    const kept = stored[event.seq - 1];
    if (kept && canonical(kept) !== canonical(event))
      add('reader-differs', `seq ${event.seq}: streamed ${event.type}, stored ${kept.type}`);
  }
  if (status !== 'idle') add('session-not-idle', `ends ${status}`);
  return found;
}

/**
 * A `regenerate` turn's reply, regenerated (taken in PostgreSQL as a send is): taken at the first attempt
 * (or found taken by a retry of one whose answer was lost), its revert written once, its new turn started
 * once for the same user message and completed once.
 */
function checkRegenerated(turn: SentTurn, stored: readonly SessionEvent[], sessionId: string): Violation[] {
  const found: Violation[] = [];
  const add = (kind: string, detail: string) => found.push({ kind, sessionId, detail });
  const regenerated = turn.regenerated;
  if (!regenerated) return [{ kind: 'asked-nothing', sessionId, detail: `${turn.messageId}: no reply to regenerate` }];
  if (regenerated.refused) add('regenerate-refused', `${turn.messageId}: ${regenerated.refused}`);
  if ((regenerated.status === 409 || regenerated.status === 404) && regenerated.attempts === 1)
    add('regenerate-taken-before', `${turn.messageId}: ${regenerated.status} at the first attempt`);
  if (!regenerated.turnId) return found;
  if (regenerated.end !== 'turn.completed')
    add('turn-not-completed', `${regenerated.turnId} (regenerating ${turn.messageId}): ${regenerated.end ?? 'no end seen'}`);
  const reverts = stored.filter((event) => event.type === 'messages.reverted' && event.messageIds[0] === regenerated.replyId);
  const starts = stored.filter((event) => event.type === 'turn.started' && event.turnId === regenerated.turnId);
  const ends = stored.filter(
    (event) => TERMINAL_TURN_EVENTS.includes(event.type) && 'turnId' in event && event.turnId === regenerated.turnId,
  );
  const forMessage = starts.every((event) => event.type === 'turn.started' && event.userMessageId === turn.messageId);
  if (reverts.length !== 1 || starts.length !== 1 || !forMessage || ends.length !== 1 || ends[0]!.type !== 'turn.completed')
    add(
      'regenerated-not-once',
      `${regenerated.turnId}: ${reverts.length} reverts, ${starts.length} starts${forMessage ? '' : ' (another user message)'}, ` +
        `ends ${ends.map((event) => event.type).join(', ') || 'none'}`,
    );
  return found;
}

/** Every question asked is answered in PostgreSQL and its workflow ended with that answer. */
async function checkApprovals(db: Db, client: Client, sessionIds: readonly string[]): Promise<{ violations: Violation[]; asked: number }> {
  const violations: Violation[] = [];
  const { rows } = await db.query<{ id: string; session_id: string; status: string; choice: string | null }>(
    'SELECT id, session_id, status, choice FROM approvals WHERE session_id = ANY($1)',
    [sessionIds],
  );
  for (const approval of rows) {
    const add = (detail: string) => violations.push({ kind: 'approval-not-taken', sessionId: approval.session_id, detail });
    if (approval.status !== 'answered') add(`${approval.id} is ${approval.status}`);
    const described = await client.workflow.getHandle(approvalWorkflowId(approval.id)).describe();
    if (described.status.name !== 'COMPLETED') {
      add(`${approval.id} is ${approval.status} in PostgreSQL, its workflow ${described.status.name}`);
      continue;
    }
    const outcome = (await client.workflow.getHandle(approvalWorkflowId(approval.id)).result()) as { status: string; choice?: string };
    if (outcome.status !== 'answered' || outcome.choice !== approval.choice) {
      add(`${approval.id}: stored ${approval.status} "${approval.choice}", its workflow ended ${outcome.status} "${outcome.choice}"`);
    }
  }
  return { violations, asked: rows.length };
}

/** How long the soak's workflows may take to close once its load is over (sessions idle, tasks on a killed worker's sticky queue timed out). */
const QUIET_TIMEOUT_MS = 60_000;

/** Nothing of the soak's task queue still runs once its sessions went idle: waited for, then what still runs is listed. */
async function checkWorkflows(client: Client, taskQueue: string): Promise<Violation[]> {
  const running = async () => {
    const found: Violation[] = [];
    for await (const execution of client.workflow.list({ query: `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running'` })) {
      found.push({ kind: 'workflow-still-running', detail: `${execution.type} ${execution.workflowId}` });
    }
    return found;
  };
  const deadline = Date.now() + QUIET_TIMEOUT_MS;
  for (;;) {
    const found = await running();
    if (found.length === 0 || Date.now() > deadline) return found;
    await sleep(500);
  }
}

export interface CheckInput {
  db: Db;
  client: Client;
  taskQueue: string;
  sessions: ReadonlyArray<{ reader: SessionReader; turns: readonly SentTurn[] }>;
}

export async function checkSoak(
  input: CheckInput,
): Promise<{ violations: Violation[]; stored: Map<string, SessionEvent[]>; approvals: number }> {
  const stored = new Map<string, SessionEvent[]>();
  const violations: Violation[] = [];
  const ids = input.sessions.map(({ reader }) => reader.sessionId);
  const { rows } = await input.db.query<{ id: string; status: string }>('SELECT id, status FROM sessions WHERE id = ANY($1)', [ids]);
  const statuses = new Map(rows.map((row) => [row.id, row.status]));
  for (const { reader, turns } of input.sessions) {
    const events = await storedEvents(input.db, reader.sessionId);
    stored.set(reader.sessionId, events);
    violations.push(...checkSession(turns, reader, events, statuses.get(reader.sessionId) ?? 'missing'));
  }
  const approvals = await checkApprovals(input.db, input.client, ids);
  violations.push(...approvals.violations, ...(await checkWorkflows(input.client, input.taskQueue)));
  return { violations, stored, approvals: approvals.asked };
}
