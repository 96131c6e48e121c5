// The soak (soak/checks.ts) is only as good as its checks: a clean session passes, and each breach a
// user would suffer (a send stored twice or never answered, a turn without its end, text that is not
// its deltas, a reader that missed or repeated a seq, a session left busy, a compaction stored or announced
// other than once, a regenerated reply run other than once) is a violation of its kind.
import { describe, expect, test } from 'vitest';
import { checkSession } from '../../soak/checks.ts';
import type { SentTurn } from '../../soak/driver.ts';
import type { SessionReader } from '../../soak/reader.ts';
import type { MessageView, SessionEvent } from '../../contract/events.ts';

const SESSION = 'ses_soak';
const at = '2026-11-27T12:00:00.000Z';

function message(id: string, role: MessageView['role'], text: string): MessageView {
  return { id, role, parts: [{ type: 'text', text }], status: 'complete', turnId: 'msg_user', createdAt: at } as MessageView;
}

/** A session's log of one completed text turn, numbered from 1. */
function turnLog(): SessionEvent[] {
  const events = [
    { type: 'session.created', agentId: 'agt', revision: 1 },
    { type: 'message.created', message: message('msg_user', 'user', '[text] s1.1') },
    { type: 'turn.started', turnId: 'msg_user' },
    { type: 'message.created', message: message('msg_reply', 'assistant', '') },
    { type: 'message.part.delta', messageId: 'msg_reply', delta: 'Hello ' },
    { type: 'message.part.delta', messageId: 'msg_reply', delta: 'there' },
    { type: 'message.completed', message: message('msg_reply', 'assistant', 'Hello there') },
    { type: 'turn.completed', turnId: 'msg_user', usage: { inputTokens: 1, outputTokens: 2 }, costUsd: null },
  ];
  return events.map((event, index) => ({ ...event, seq: index + 1, at, sessionId: SESSION }) as SessionEvent);
}

function sent(overrides: Partial<SentTurn> = {}): SentTurn {
  return {
    sessionId: SESSION,
    kind: 'text',
    mode: 'async',
    idempotencyKey: 'key-1',
    text: '[text] s1.1',
    messageId: 'msg_user',
    end: 'turn.completed',
    approvals: [],
    toolResults: [],
    streamOutOfOrder: 0,
    phase: 'done',
    ...overrides,
  };
}

function reader(events: readonly SessionEvent[], outOfOrder: SessionReader['outOfOrder'] = []): SessionReader {
  return {
    sessionId: SESSION,
    received: events.map((event) => ({ event, at: 0 })),
    outOfOrder,
    reconnects: 0,
    errors: [],
    waitBeyond: async () => true,
    lastSeq: () => events.at(-1)?.seq ?? 0,
    stop: async () => undefined,
  };
}

const kinds = (violations: { kind: string }[]) => violations.map((violation) => violation.kind);

describe('the soak checks one session', () => {
  test('a session whose every send ran its turn, as stored and as streamed, passes', () => {
    const log = turnLog();
    expect(checkSession([sent()], reader(log), log, 'idle')).toEqual([]);
  });

  test('a send stored twice, and a stored message no send was answered with', () => {
    const log = turnLog();
    const twice = [...log, { ...log[1]!, seq: log.length + 1 }] as SessionEvent[];
    expect(kinds(checkSession([sent()], reader(twice), twice, 'idle'))).toContain('send-not-stored-once');
    expect(kinds(checkSession([], reader(log), log, 'idle'))).toContain('user-message-not-sent');
  });

  test('a turn the client never saw end, or that failed', () => {
    const log = turnLog().slice(0, -1);
    const found = kinds(checkSession([sent({ end: 'stuck' })], reader(log), log, 'running'));
    expect(found).toEqual(expect.arrayContaining(['turn-not-completed', 'stored-turn-end', 'session-not-idle']));
  });

  test('a completed message whose text is not its deltas', () => {
    const log = turnLog();
    log[5] = { ...log[5]!, delta: 'where' } as SessionEvent;
    expect(kinds(checkSession([sent()], reader(log), log, 'idle'))).toEqual(['text-not-deltas']);
  });

  test('a reader that missed a seq, or got one again', () => {
    const log = turnLog();
    const missed = log.filter((event) => event.seq !== 4);
    expect(kinds(checkSession([sent()], reader(missed, [{ expected: 4, got: 5 }]), log, 'idle'))).toEqual(
      expect.arrayContaining(['reader-out-of-order', 'reader-missed']),
    );
  });

  test('an answer the service refused, or said was taken before at the first attempt', () => {
    const log = turnLog();
    const answered = (status: number, attempts: number) =>
      kinds(checkSession([sent({ kind: 'ask', approvals: [{ id: 'apr_1', status, attempts, ms: 3 }] })], reader(log), log, 'idle'));
    expect(answered(500, 1)).toEqual(['answer-refused']);
    expect(answered(409, 1)).toEqual(['answer-taken-before']);
    expect(answered(409, 2)).toEqual([]);
    expect(answered(200, 1)).toEqual([]);
  });

  test('a turn that was to ask and asked nothing', () => {
    const log = turnLog();
    expect(kinds(checkSession([sent({ kind: 'ask' })], reader(log), log, 'idle'))).toEqual(['asked-nothing']);
    expect(kinds(checkSession([sent({ kind: 'client' })], reader(log), log, 'idle'))).toEqual(['asked-nothing']);
    const approvals = (count: number) =>
      Array.from({ length: count }, (_, index) => ({ id: `apr_${index}`, status: 200, attempts: 1, ms: 3 }));
    expect(kinds(checkSession([sent({ kind: 'guarded', approvals: approvals(1) })], reader(log), log, 'idle'))).toEqual(['policy-skipped']);
    expect(kinds(checkSession([sent({ kind: 'guarded', approvals: approvals(2) })], reader(log), log, 'idle'))).toEqual([]);
  });

  test("a team's question: two votes, exactly one of which decided it", () => {
    const log = turnLog();
    const votes = (...statuses: number[]) =>
      kinds(
        checkSession(
          [sent({ kind: 'quorum', approvals: statuses.map((status) => ({ id: 'apr_1', status, attempts: 1, ms: 3 })) })],
          reader(log),
          log,
          'idle',
        ),
      );
    expect(votes(202, 200)).toEqual([]);
    expect(votes(200, 200)).toEqual(['decided-twice']);
    expect(votes(202, 202)).toEqual(['not-decided']);
    expect(votes(200)).toEqual(['asked-nothing']);
    expect(votes(202, 500)).toEqual(['answer-refused', 'not-decided']);
  });
  test("another agent's call: started once, ended once and its result once passes; a second start, no end or an error result does not", () => {
    const log = turnLog();
    const extra = (events: object[]) =>
      [...log, ...events.map((event, index) => ({ ...event, seq: log.length + index + 1, at, sessionId: SESSION }))] as SessionEvent[];
    const start = {
      type: 'subagent.started',
      messageId: 'msg_reply',
      toolCallId: 'call_1',
      agent: 'helper',
      childSessionId: 'ses_c',
      childMessageId: 'msg_c',
    };
    const end = { type: 'subagent.completed', messageId: 'msg_reply', toolCallId: 'call_1', agent: 'helper', childSessionId: 'ses_c' };
    const result = (isError?: boolean) => ({
      type: 'tool.result',
      messageId: 'msg_tools',
      toolCallId: 'call_1',
      toolName: 'agent_helper',
      output: 'x',
      ...(isError ? { isError } : {}),
    });
    const check = (events: object[]) => {
      const stored = extra(events);
      return kinds(checkSession([sent({ kind: 'subagent' })], reader(stored), stored, 'idle'));
    };
    expect(check([start, end, result()])).toEqual([]);
    expect(check([start, start, end, result()])).toContain('agent-call-not-once');
    expect(check([start, result()])).toContain('agent-call-not-once');
    expect(check([start, end, result(true)])).toEqual(['agent-call-failed']);
    expect(check([])).toEqual(['asked-nothing']);
  });

  test('a compaction with its summary stored once passes; one announced twice, or without its summary, does not', () => {
    const log = turnLog();
    const extra = (events: object[]) =>
      [...log, ...events.map((event, index) => ({ ...event, seq: log.length + index + 1, at, sessionId: SESSION }))] as SessionEvent[];
    const summary = { type: 'message.created', message: message('msg_sum', 'summary', 'SUMMARY') };
    const compacted = {
      type: 'session.compacted',
      throughMessageId: 'msg_user',
      summaryMessageId: 'msg_sum',
      tokensBefore: 10,
      tokensAfter: 5,
      reason: 'requested',
    };
    const clean = extra([summary, compacted]);
    expect(checkSession([sent()], reader(clean), clean, 'idle')).toEqual([]);
    const twice = extra([summary, compacted, compacted]);
    expect(kinds(checkSession([sent()], reader(twice), twice, 'idle'))).toContain('compaction-announced-twice');
    const lost = extra([compacted]);
    expect(kinds(checkSession([sent()], reader(lost), lost, 'idle'))).toContain('compaction-summary');
  });
});

describe('a regenerated reply', () => {
  /** The text turn's log, then its reply regenerated: the revert, and turn trn_1 answering the same user message. */
  function regeneratedLog(extra: object[] = []): SessionEvent[] {
    const first = turnLog();
    const more = [
      { type: 'messages.reverted', messageIds: ['msg_reply'] },
      { type: 'turn.started', turnId: 'trn_1', userMessageId: 'msg_user' },
      { type: 'message.created', message: message('msg_again', 'assistant', '') },
      { type: 'message.part.delta', messageId: 'msg_again', delta: 'Again' },
      { type: 'message.completed', message: message('msg_again', 'assistant', 'Again') },
      { type: 'turn.completed', turnId: 'trn_1', usage: { inputTokens: 1, outputTokens: 1 }, costUsd: null },
      ...extra,
    ];
    return [...first, ...more.map((event, index) => ({ ...event, seq: first.length + index + 1, at, sessionId: SESSION }) as SessionEvent)];
  }
  const regenerated = (overrides: Partial<NonNullable<SentTurn['regenerated']>> = {}) =>
    sent({
      kind: 'regenerate',
      text: '[regenerate] s1.1',
      regenerated: { replyId: 'msg_reply', turnId: 'trn_1', status: 202, attempts: 1, end: 'turn.completed', ...overrides },
    });

  test('taken at once, reverted once, its new turn started and completed once: passes', () => {
    const log = regeneratedLog();
    expect(checkSession([regenerated()], reader(log), log, 'idle')).toEqual([]);
    // Its answer lost with a killed API, the retry found it taken: still one regeneration.
    expect(checkSession([regenerated({ status: 409, attempts: 2 })], reader(log), log, 'idle')).toEqual([]);
  });

  test('a regeneration refused, found taken at its first attempt, run twice, or never done is a violation', () => {
    const log = regeneratedLog();
    expect(kinds(checkSession([regenerated({ refused: '503', turnId: undefined })], reader(log), log, 'idle'))).toContain(
      'regenerate-refused',
    );
    expect(kinds(checkSession([regenerated({ status: 409 })], reader(log), log, 'idle'))).toContain('regenerate-taken-before');
    const twice = regeneratedLog([{ type: 'turn.started', turnId: 'trn_1', userMessageId: 'msg_user' }]);
    expect(kinds(checkSession([regenerated()], reader(twice), twice, 'idle'))).toContain('regenerated-not-once');
    expect(kinds(checkSession([regenerated({ end: 'stuck' })], reader(log), log, 'idle'))).toContain('turn-not-completed');
    const plain = turnLog();
    expect(kinds(checkSession([sent({ kind: 'regenerate' })], reader(plain), plain, 'idle'))).toContain('asked-nothing');
  });
});
