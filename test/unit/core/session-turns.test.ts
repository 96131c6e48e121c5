// The session's turn rules (core/session-turns.ts) driven directly, as workflows/session.ts drives them:
// every ifBusy mode against an idle, running, cancelled and ended turn; steering that joins, is refused
// by its recording, repeats, or goes unread and queues on settle; known messages never queued twice;
// reject and revert refusals; state() hiding an ended turn. A property test runs random interleavings
// of sends, starts, ends, aborts and regenerations against the invariants the session relies on.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { IfBusy } from '../../../contract/if-busy.ts';
import { SessionTurns, type QueuedTurn, type RecordedSend, type SendRequest, type SendVerdict } from '../../../core/session-turns.ts';

/** A session's rules plus the bookkeeping workflows/session.ts does around them (seqs, recording count). */
class Session {
  readonly turns: SessionTurns;
  private seq = 0;

  constructor(carried: QueuedTurn[] = []) {
    this.turns = new SessionTurns(carried);
  }

  /** A send as acceptSend does it: counted while recording, steer target taken before the recording. */
  send(messageId: string, ifBusy: IfBusy = 'queue', recorded: Partial<RecordedSend> = {}, extra: Partial<SendRequest> = {}): SendVerdict {
    this.turns.recording += 1;
    try {
      const steered = this.turns.steerTarget(ifBusy);
      return this.turns.recorded({ messageId, ifBusy, ...extra }, { seq: this.nextSeq(), ...recorded }, steered);
    } finally {
      this.turns.recording -= 1;
    }
  }

  /** The turn's child workflow returned and the sends in flight are recorded (`read`: the steering it read). */
  finish(read: string[] = []): void {
    this.turns.ended();
    this.turns.settled(read);
  }

  nextSeq(): number {
    return ++this.seq;
  }
}

/** A session running `turnId` (queued and started), with nothing else queued. */
function running(turnId = 'a'): Session {
  const session = new Session();
  session.send(turnId);
  session.turns.start();
  return session;
}

describe('ifBusy=queue', () => {
  test('a send to an idle session queues its turn and cancels nothing', () => {
    const session = new Session();
    expect(session.send('a')).toEqual({ kind: 'queued', cancel: false });
    expect(session.turns.state()).toEqual({ runningTurnId: null, queued: ['a'] });
    expect(session.turns.hasWork()).toBe(true);
  });

  test('a send while a turn runs queues behind it and leaves the running turn alone', () => {
    const session = running('a');
    expect(session.send('b')).toEqual({ kind: 'queued', cancel: false });
    expect(session.turns.state()).toEqual({ runningTurnId: 'a', queued: ['b'] });
    expect(session.turns.running?.cancelRequested).toBe(false);
  });

  test('turns start in the order their sends were recorded', () => {
    const session = running('a');
    session.send('b');
    session.send('c');
    session.finish();
    expect(session.turns.start().turn.turnId).toBe('b');
    session.finish();
    expect(session.turns.start().turn.turnId).toBe('c');
    session.finish();
    expect(session.turns.hasWork()).toBe(false);
  });

  test('the queued turn keeps its seq, model and reply target; starting it makes it the running turn', () => {
    const session = new Session();
    const model = { providerId: 'p', modelId: 'm' };
    const replyTo = { sessionId: 'parent', messageId: 'reply' };
    session.send('a', 'queue', { seq: 41 }, { model, replyTo });
    const { turn, running: now } = session.turns.start();
    expect(turn).toEqual({ turnId: 'a', seq: 41, model, replyTo });
    expect(now).toEqual({ turnId: 'a', userMessageId: 'a', cancelRequested: false, ended: false });
    expect(session.turns.running).toBe(now);
    expect(session.turns.state()).toEqual({ runningTurnId: 'a', queued: [] });
  });

  test('a send without model or reply target queues no such keys', () => {
    const session = new Session();
    session.send('a', 'queue', { seq: 3 });
    expect(session.turns.queue[0]).toStrictEqual({ turnId: 'a', seq: 3 });
  });

  test('starting with nothing queued throws', () => {
    expect(() => new SessionTurns().start()).toThrow('No turn is queued');
  });

  test('a queue carried over a continue-as-new is copied, and its turns are known', () => {
    const carried: QueuedTurn[] = [{ turnId: 'a', seq: 1 }, { turnId: 'b' }];
    const session = new Session(carried);
    carried.pop();
    expect(session.turns.state().queued).toEqual(['a', 'b']);
    expect(session.send('b')).toEqual({ kind: 'known' });
    expect(session.turns.state().queued).toEqual(['a', 'b']);
  });
});

describe('an abort the API asks of a turn', () => {
  test('of the running turn: it is cancelled now, once', () => {
    const session = running('a');
    expect(session.turns.abortAsked('a')).toBe(true);
    expect(session.turns.running?.cancelRequested).toBe(true);
    expect(session.turns.abortAsked('a')).toBe(false);
  });

  test('of a turn not started yet (queued, or not taken from the inbox yet): it starts cancelled', () => {
    const session = running('a');
    session.send('b');
    expect(session.turns.abortAsked('b')).toBe(false);
    expect(session.turns.abortAsked('c')).toBe(false);
    expect(session.turns.running?.cancelRequested).toBe(false);
    session.finish();
    const b = session.turns.start();
    expect(b).toMatchObject({ turn: { turnId: 'b' }, aborted: true, running: { cancelRequested: true } });
    session.finish();
    session.send('c');
    expect(session.turns.start()).toMatchObject({ turn: { turnId: 'c' }, aborted: true });
  });

  test('of a turn this run has run already: nothing, not even for the same turn queued again', () => {
    const session = running('a');
    session.finish();
    expect(session.turns.abortAsked('a')).toBe(false);
    expect(session.turns.pendingAborts()).toEqual([]);
    session.turns.queueRegenerate('a', 'a', session.nextSeq());
    expect(session.turns.start()).toMatchObject({ turn: { turnId: 'a' }, aborted: false });
  });

  test('asked of turns not started, they are carried over a continue-as-new, the newest twenty', () => {
    const session = running('a');
    for (let index = 0; index < 25; index++) session.turns.abortAsked(`t${index}`);
    const carried = session.turns.pendingAborts();
    expect(carried).toHaveLength(20);
    expect(carried.at(-1)).toBe('t24');
    const next = new SessionTurns([{ turnId: 't24', seq: 9 }], carried);
    expect(next.start()).toMatchObject({ turn: { turnId: 't24' }, aborted: true });
  });
});

describe('ifBusy=reject', () => {
  test('an idle session with nothing recording takes it, and it queues like any send', () => {
    const session = new Session();
    expect(session.turns.refusesReject()).toBe(false);
    expect(session.send('a', 'reject')).toEqual({ kind: 'queued', cancel: false });
    expect(session.turns.state().queued).toEqual(['a']);
  });

  test('refused while a turn runs', () => {
    expect(running().turns.refusesReject()).toBe(true);
  });

  test('refused while a turn waits in the queue, with none running', () => {
    const session = new Session();
    session.send('a');
    expect(session.turns.refusesReject()).toBe(true);
  });

  test('refused while a send ahead of it is being recorded', () => {
    const session = new Session();
    session.turns.recording += 1;
    expect(session.turns.refusesReject()).toBe(true);
    session.turns.recording -= 1;
    expect(session.turns.refusesReject()).toBe(false);
  });

  test('refused while an ended turn waits for its sends to be recorded; taken again once it settled', () => {
    const session = running('a');
    session.turns.ended();
    expect(session.turns.refusesReject()).toBe(true);
    session.turns.settled([]);
    expect(session.turns.refusesReject()).toBe(false);
  });
});

describe('ifBusy=interrupt', () => {
  test('to an idle session: queued, nothing to cancel', () => {
    const session = new Session();
    expect(session.send('a', 'interrupt')).toEqual({ kind: 'queued', cancel: false });
    expect(session.turns.state().queued).toEqual(['a']);
  });

  test('while a turn runs: cancels it and queues ahead of the turns already waiting', () => {
    const session = running('a');
    session.send('b');
    session.send('c');
    expect(session.send('x', 'interrupt')).toEqual({ kind: 'queued', cancel: true });
    expect(session.turns.running?.cancelRequested).toBe(true);
    expect(session.turns.state().queued).toEqual(['x', 'b', 'c']);
    session.finish();
    expect(session.turns.start().turn.turnId).toBe('x');
  });

  test('while the running turn is already being cancelled (an abort): queued first, no second cancel', () => {
    const session = running('a');
    session.send('b');
    expect(session.turns.cancelRunning()).toBe(true);
    expect(session.send('x', 'interrupt')).toEqual({ kind: 'queued', cancel: false });
    expect(session.turns.state().queued).toEqual(['x', 'b']);
  });

  test('two interrupts: the first cancels, the later one goes ahead of it', () => {
    const session = running('a');
    expect(session.send('x', 'interrupt')).toEqual({ kind: 'queued', cancel: true });
    expect(session.send('y', 'interrupt')).toEqual({ kind: 'queued', cancel: false });
    expect(session.turns.state().queued).toEqual(['y', 'x']);
  });

  test('while the running turn has ended (not settled yet): queued first, nothing cancelled', () => {
    const session = running('a');
    session.send('b');
    session.turns.ended();
    expect(session.send('x', 'interrupt')).toEqual({ kind: 'queued', cancel: false });
    expect(session.turns.running?.cancelRequested).toBe(false);
    expect(session.turns.state().queued).toEqual(['x', 'b']);
  });

  test('an interrupting send seen again while its own turn runs is known and cancels nothing', () => {
    const session = running('a');
    session.send('x', 'interrupt');
    session.finish();
    session.turns.start();
    expect(session.send('x', 'interrupt')).toEqual({ kind: 'known' });
    expect(session.turns.running).toMatchObject({ turnId: 'x', cancelRequested: false });
  });
});

describe('ifBusy=steer', () => {
  test('the steer target is the running turn, only for steer', () => {
    const session = running('a');
    for (const mode of ['queue', 'reject', 'interrupt'] as const) expect(session.turns.steerTarget(mode)).toBeUndefined();
    expect(session.turns.steerTarget('steer')).toBe(session.turns.running);
  });

  test('to an idle session: no target, an ordinary send', () => {
    const session = new Session();
    expect(session.turns.steerTarget('steer')).toBeUndefined();
    expect(session.send('a', 'steer')).toEqual({ kind: 'queued', cancel: false });
    expect(session.turns.state().queued).toEqual(['a']);
  });

  test('while a turn runs: joins it, signals it, and queues nothing', () => {
    const session = running('a');
    expect(session.send('s', 'steer', { joined: true })).toEqual({
      kind: 'joined',
      turn: { turnId: 'a', userMessageId: 'a' },
      signal: true,
    });
    expect(session.turns.state()).toEqual({ runningTurnId: 'a', queued: [] });
    expect(session.turns.hasWork()).toBe(false);
  });

  test('a recording from before `joined` (no joined field) joins', () => {
    const session = running('a');
    expect(session.send('s', 'steer')).toMatchObject({ kind: 'joined', signal: true });
  });

  test('a regenerated turn is joined under the user message it answers', () => {
    const session = new Session();
    session.turns.queueRegenerate('r1', 'u1', session.nextSeq());
    session.turns.start();
    expect(session.send('s', 'steer')).toEqual({ kind: 'joined', turn: { turnId: 'r1', userMessageId: 'u1' }, signal: true });
  });

  test('while the running turn is being cancelled: no target, queued, and it cancels nothing more', () => {
    const session = running('a');
    session.turns.cancelRunning();
    expect(session.turns.steerTarget('steer')).toBeUndefined();
    expect(session.send('s', 'steer')).toEqual({ kind: 'queued', cancel: false });
    expect(session.turns.state().queued).toEqual(['s']);
  });

  test('a recording that says joined:false (the turn wrote its end) queues the message as a send of its own', () => {
    const session = running('a');
    session.send('b');
    expect(session.send('s', 'steer', { joined: false, seq: 50 })).toEqual({ kind: 'queued', cancel: false });
    expect(session.turns.queue).toEqual([
      { turnId: 'b', seq: 2 },
      { turnId: 's', seq: 50 },
    ]);
    // It is not steering: settling the turn does not queue it a second time.
    session.finish([]);
    expect(session.turns.state().queued).toEqual(['b', 's']);
  });

  test('steering an ended turn: its target is still the turn, its recording finds the end written, it queues', () => {
    const session = running('a');
    session.turns.ended();
    expect(session.turns.steerTarget('steer')?.turnId).toBe('a');
    expect(session.send('s', 'steer', { joined: false })).toEqual({ kind: 'queued', cancel: false });
    session.turns.settled([]);
    expect(session.turns.state().queued).toEqual(['s']);
  });

  test('the same steering message twice: joined both times, signalled once, run at most once', () => {
    const session = running('a');
    expect(session.send('s', 'steer')).toMatchObject({ kind: 'joined', signal: true });
    expect(session.send('s', 'steer')).toMatchObject({ kind: 'joined', signal: false });
    session.finish([]);
    expect(session.turns.state().queued).toEqual(['s']);
  });

  test('a steering message seen again as an ordinary send is known', () => {
    const session = running('a');
    session.send('s', 'steer');
    expect(session.send('s', 'queue')).toEqual({ kind: 'known' });
    session.finish(['s']);
    expect(session.turns.hasWork()).toBe(false);
  });

  test('steering the turn read is not run again', () => {
    const session = running('a');
    session.send('s', 'steer');
    session.finish(['s']);
    expect(session.turns.state()).toEqual({ runningTurnId: null, queued: [] });
  });

  test('steering the turn did not read queues first on settle, in the order it came, ahead of earlier sends', () => {
    const session = running('a');
    session.send('b');
    session.send('s1', 'steer');
    session.send('s2', 'steer');
    session.send('s3', 'steer');
    session.send('c');
    session.finish(['s2']);
    expect(session.turns.state().queued).toEqual(['s1', 's3', 'b', 'c']);
    // Unread steering was waiting while the turn ran: it has no seq.
    expect(session.turns.queue.slice(0, 2)).toStrictEqual([{ turnId: 's1' }, { turnId: 's3' }]);
  });

  test("read ids that were not steering (the turn's own message) change nothing on settle", () => {
    const session = running('a');
    session.send('s', 'steer');
    session.finish(['a', 'other']);
    expect(session.turns.state().queued).toEqual(['s']);
  });

  test('the steering of one turn is settled once: the next turn settling queues none of it', () => {
    const session = running('a');
    session.send('s', 'steer');
    session.send('b');
    session.finish([]);
    session.turns.start();
    session.finish([]);
    expect(session.turns.state().queued).toEqual(['b']);
    session.turns.start();
    session.finish([]);
    expect(session.turns.hasWork()).toBe(false);
  });

  test('an unread steering message makes the session not idle at the turn end', () => {
    const session = running('a');
    session.send('s', 'steer');
    session.finish([]);
    expect(session.turns.idleAt(1_000)).toBe(false);
  });
});

describe('known sends', () => {
  test('a message sent twice while its turn waits is queued once', () => {
    const session = running('a');
    session.send('b');
    expect(session.send('b')).toEqual({ kind: 'known' });
    expect(session.send('b', 'interrupt')).toEqual({ kind: 'known' });
    expect(session.turns.state().queued).toEqual(['b']);
    expect(session.turns.running?.cancelRequested).toBe(false);
  });

  test('a message sent again while its turn runs, or after it ran, is not queued again', () => {
    const session = new Session();
    session.send('a');
    session.turns.start();
    expect(session.send('a')).toEqual({ kind: 'known' });
    session.finish();
    expect(session.send('a')).toEqual({ kind: 'known' });
    expect(session.turns.hasWork()).toBe(false);
  });

  test('a message whose turn started in an earlier run (turnStarted) is known', () => {
    const session = new Session();
    expect(session.send('a', 'queue', { turnStarted: true })).toEqual({ kind: 'known' });
    expect(session.send('b', 'interrupt', { turnStarted: true })).toEqual({ kind: 'known' });
    expect(session.turns.hasWork()).toBe(false);
  });

  test('after turnStarted it stays known, without turnStarted too', () => {
    const session = running('a');
    session.send('b', 'queue', { turnStarted: true });
    expect(session.send('b')).toEqual({ kind: 'queued', cancel: false });
    expect(session.send('b')).toEqual({ kind: 'known' });
    expect(session.turns.state().queued).toEqual(['b']);
  });

  test('a steering message seen again by a later run (joinedTurn) is answered by the turn it joined, and queues nothing', () => {
    const joinedTurn = { turnId: 't1', userMessageId: 't1' };
    const idle = new Session();
    expect(idle.send('s', 'queue', { joinedTurn })).toEqual({ kind: 'joined', turn: joinedTurn, signal: false });
    expect(idle.send('s', 'steer', { joinedTurn })).toEqual({ kind: 'joined', turn: joinedTurn, signal: false });
    expect(idle.turns.hasWork()).toBe(false);
    // Another turn runs now: the message does not steer it (its recording says it belongs elsewhere).
    const busy = running('b');
    expect(busy.send('s', 'steer', { joined: false, joinedTurn })).toEqual({ kind: 'joined', turn: joinedTurn, signal: false });
    busy.finish();
    expect(busy.turns.hasWork()).toBe(false);
  });

  test('a steering message that ran as a turn of its own (unread) is known when seen again', () => {
    const session = new Session();
    expect(session.send('s', 'queue', { turnStarted: true, joinedTurn: { turnId: 't1', userMessageId: 't1' } })).toEqual({ kind: 'known' });
  });
});

describe('abort (cancelRunning)', () => {
  test('nothing to cancel in an idle session', () => {
    const session = new Session();
    session.send('a');
    expect(session.turns.cancelRunning()).toBe(false);
  });

  test('cancels the running turn once', () => {
    const session = running('a');
    expect(session.turns.cancelRunning()).toBe(true);
    expect(session.turns.running?.cancelRequested).toBe(true);
    expect(session.turns.cancelRunning()).toBe(false);
  });

  test('an ended turn is not cancelled', () => {
    const session = running('a');
    session.turns.ended();
    expect(session.turns.cancelRunning()).toBe(false);
    expect(session.turns.running?.cancelRequested).toBe(false);
  });

  test('the next turn can be cancelled again', () => {
    const session = running('a');
    session.send('b');
    session.turns.cancelRunning();
    session.finish();
    session.turns.start();
    expect(session.turns.cancelRunning()).toBe(true);
  });
});

describe('revert and regenerate', () => {
  test('refused only while a turn waits in the queue', () => {
    const session = new Session();
    expect(session.turns.refusesRevert()).toBe(false);
    session.send('a');
    expect(session.turns.refusesRevert()).toBe(true);
    session.turns.start();
    expect(session.turns.refusesRevert()).toBe(false);
    session.turns.recording += 1;
    expect(session.turns.refusesRevert()).toBe(false);
    session.turns.recording -= 1;
    session.send('b');
    expect(session.turns.refusesRevert()).toBe(true);
    session.finish();
    expect(session.turns.refusesRevert()).toBe(true);
    session.turns.start();
    session.finish();
    expect(session.turns.refusesRevert()).toBe(false);
  });

  test('regenerate queues a new turn answering the same user message, with its seq and model', () => {
    const session = new Session();
    const model = { modelId: 'other' };
    session.turns.queueRegenerate('r1', 'u1', 9, model);
    expect(session.turns.queue).toStrictEqual([{ turnId: 'r1', userMessageId: 'u1', seq: 9, model }]);
    expect(session.turns.refusesRevert()).toBe(true);
    expect(session.turns.start().running).toEqual({ turnId: 'r1', userMessageId: 'u1', cancelRequested: false, ended: false });
  });

  test('regenerate without a model queues no model key', () => {
    const session = new Session();
    session.turns.queueRegenerate('r1', 'u1', 9);
    expect(session.turns.queue[0]).toStrictEqual({ turnId: 'r1', userMessageId: 'u1', seq: 9 });
  });

  test('a regeneration taken from the inbox queues its turn once, however often a take reads it', () => {
    const session = new Session();
    const model = { modelId: 'other' };
    const row = { messageId: 'u1', seq: 9, turnId: 'r1', ifBusy: 'queue' as const, model, regenerate: true as const };
    expect(session.turns.regenerationTaken(row)).toBe(true);
    expect(session.turns.queue).toStrictEqual([{ turnId: 'r1', userMessageId: 'u1', seq: 9, model }]);
    expect(session.turns.regenerationTaken(row)).toBe(false);
    expect(session.turns.start().running).toEqual({ turnId: 'r1', userMessageId: 'u1', cancelRequested: false, ended: false });
    // Read again while it runs, and after it ran (a take racing its end): never queued again.
    expect(session.turns.regenerationTaken(row)).toBe(false);
    session.finish();
    expect(session.turns.regenerationTaken(row)).toBe(false);
    expect(session.turns.queue).toStrictEqual([]);
  });

  test('a regeneration carried over a continue-as-new is not queued again by the next take', () => {
    const session = new Session([{ turnId: 'r1', userMessageId: 'u1', seq: 9 }]);
    expect(session.turns.regenerationTaken({ messageId: 'u1', seq: 9, turnId: 'r1', ifBusy: 'queue', regenerate: true })).toBe(false);
    expect(session.turns.queue).toHaveLength(1);
  });
});

describe('state and the turn end', () => {
  test('an ended turn is hidden from state() while the queue still shows', () => {
    const session = running('a');
    session.send('b');
    session.turns.ended();
    expect(session.turns.running?.ended).toBe(true);
    expect(session.turns.state()).toEqual({ runningTurnId: null, queued: ['b'] });
  });

  test('settled: the turn is gone', () => {
    const session = running('a');
    session.finish();
    expect(session.turns.running).toBeUndefined();
    expect(session.turns.state()).toEqual({ runningTurnId: null, queued: [] });
  });

  test('ended with no turn running does nothing', () => {
    const turns = new SessionTurns();
    turns.ended();
    expect(turns.running).toBeUndefined();
    expect(turns.state()).toEqual({ runningTurnId: null, queued: [] });
  });

  test('idleAt: sends recorded after the end leave the session idle; one recorded before does not', () => {
    const session = running('a');
    session.send('b', 'queue', { seq: 11 });
    session.send('c', 'queue', { seq: 12 });
    session.finish();
    expect(session.turns.idleAt(10)).toBe(true);
    expect(session.turns.idleAt(11)).toBe(false);
  });
});

// --- Random interleavings -------------------------------------------------------------------------

type Op =
  /** A send is accepted (the Update's validator ran): it waits its turn to be recorded. */
  | { op: 'accept'; messageId: string; ifBusy: IfBusy }
  /** A send is accepted and recorded at once, with the sends ahead of it. */
  | { op: 'send'; messageId: string; ifBusy: IfBusy; joined: boolean | undefined }
  /** The oldest send waiting takes its steer target (first call) or is recorded (second call). */
  | { op: 'record'; joined: boolean | undefined }
  | { op: 'start' }
  | { op: 'end' }
  /** The ended turn settles once the sends in flight are recorded; `readMask` picks the steering it read. */
  | { op: 'settle'; readMask: number }
  /** The running turn ends and settles. */
  | { op: 'finish'; readMask: number }
  | { op: 'abort' }
  | { op: 'regenerate' };

const MESSAGE_IDS = ['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8', 'm9', 'm10'];
/** Every mode; steer more often, as it needs a running turn to do anything of its own. */
const ifBusyArb: fc.Arbitrary<IfBusy> = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom<IfBusy>('queue', 'reject', 'interrupt') },
  { weight: 1, arbitrary: fc.constant<IfBusy>('steer') },
);

/** What a steering send's recording says; mostly joined (a turn still running), sometimes not, sometimes absent. */
const joinedArb = fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, fc.constant(false), fc.constant(undefined));

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant('accept' as const),
      messageId: fc.constantFrom(...MESSAGE_IDS),
      ifBusy: ifBusyArb,
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant('send' as const),
      messageId: fc.constantFrom(...MESSAGE_IDS),
      ifBusy: ifBusyArb,
      joined: joinedArb,
    }),
  },
  { weight: 5, arbitrary: fc.record({ op: fc.constant('record' as const), joined: joinedArb }) },
  { weight: 5, arbitrary: fc.constant({ op: 'start' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'end' as const }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('settle' as const), readMask: fc.nat(63) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('finish' as const), readMask: fc.nat(63) }) },
  { weight: 1, arbitrary: fc.constant({ op: 'abort' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'regenerate' as const }) },
);

interface PendingSend {
  request: SendRequest;
  /** Set once the send's steer target was taken (the first half of its recording). */
  steered?: ReturnType<SessionTurns['steerTarget']> | null;
}

/** An invariant checked after every operation of every run: a plain throw, cheaper than expect there. */
function holds(ok: boolean, invariant: string): void {
  if (!ok) throw new Error(`broken: ${invariant}`);
}

/** Runs `ops` the way the session workflow allows them, checking the invariants after each one. */
function runOps(ops: Op[]): void {
  const turns = new SessionTurns();
  const pending: PendingSend[] = [];
  let seq = 0;
  let regenerated = 0;
  /** Distinct messages whose recording queued a turn or joined one (with its signal). */
  const accepted = new Set<string>();
  /** Times each turn id was started. */
  const started = new Map<string, number>();
  /** Steering signalled to the running turn, in order; steering a settled turn read. */
  let steering: string[] = [];
  const steeringRead = new Set<string>();
  /** Cancels the running turn got (abort or interrupt). */
  let cancels = 0;
  /** The store: each message is written once, with its seq and whether it joined a turn (recordUserMessage). */
  const stored = new Map<string, { seq: number; joined: boolean }>();

  const record = (send: PendingSend, joined: boolean | undefined): void => {
    const steered = send.steered ?? undefined;
    const id = send.request.messageId;
    const seenBefore = accepted.has(id);
    const queueBefore = turns.state().queued;
    const cancellable = !!turns.running && !turns.running.ended && !turns.running.cancelRequested;
    // What recordUserMessage answers. A message seen again: its own seq, whether it was written into
    // another turn, and whether its own turn started. A new one joins the turn asked for unless that
    // turn has written its end (it has once the session saw it end); `undefined`: a recording from
    // before `joined`, which joined regardless.
    const before = stored.get(id);
    const row = before ?? { seq: ++seq, joined: !!steered && (joined === undefined || (joined && !steered.ended)) };
    stored.set(id, row);
    const joinedNow = steered ? (before || joined !== undefined ? row.joined : undefined) : undefined;
    const turnStarted = (started.get(id) ?? 0) > 0;
    const verdict = turns.recorded(send.request, { seq: row.seq, turnStarted, ...(steered ? { joined: joinedNow } : {}) }, steered);
    turns.recording -= 1;
    if (verdict.kind === 'joined') {
      // Only a turn the recording joined (or a recording from before `joined`) is joined.
      expect(steered).toBeDefined();
      expect(joinedNow).not.toBe(false);
      expect(verdict.turn.turnId).toBe(steered?.turnId);
      expect(verdict.signal).toBe(!seenBefore);
      if (verdict.signal) {
        accepted.add(id);
        steering.push(id);
      }
      expect(turns.state().queued).toEqual(queueBefore);
    } else if (verdict.kind === 'known') {
      expect(seenBefore).toBe(true);
      expect(turns.state().queued).toEqual(queueBefore);
    } else {
      expect(seenBefore).toBe(false);
      accepted.add(id);
      // Only an interrupt cancels, and only a running turn not ended nor cancelled yet.
      expect(verdict.cancel).toBe(send.request.ifBusy === 'interrupt' && cancellable);
      if (verdict.cancel) cancels += 1;
      // An interrupt goes first, any other send last.
      const expected = send.request.ifBusy === 'interrupt' ? [id, ...queueBefore] : [...queueBefore, id];
      expect(turns.state().queued).toEqual(expected);
    }
  };

  /** The first half of a recording: a steering send's target is the running turn, unless it is being cancelled. */
  const takeSteerTarget = (send: PendingSend): void => {
    send.steered = turns.steerTarget(send.request.ifBusy) ?? null;
    if (send.request.ifBusy !== 'steer' || !turns.running || turns.running.cancelRequested) expect(send.steered).toBeNull();
    else expect(send.steered).toBe(turns.running);
  };

  const recordPending = (joined: boolean | undefined): void => {
    while (pending.length > 0) {
      const send = pending.shift()!;
      if (send.steered === undefined) takeSteerTarget(send);
      record(send, joined);
    }
  };

  const accept = (messageId: string, ifBusy: IfBusy): void => {
    // The Update's validator: ifBusy=reject is refused, and never recorded, while the session is busy.
    if (!(ifBusy === 'reject' && turns.refusesReject())) {
      turns.recording += 1;
      pending.push({ request: { messageId, ifBusy } });
    }
  };

  const end = (): void => {
    if (!turns.running || turns.running.ended) return;
    turns.ended();
    expect(turns.state().runningTurnId).toBeNull();
  };

  const settle = (readMask: number): void => {
    if (!turns.running?.ended) return;
    // The workflow waits for the sends in flight before it settles the turn.
    recordPending(true);
    const read = steering.filter((_, index) => (readMask >> index) & 1);
    const unread = steering.filter((id) => !read.includes(id));
    const queueBefore = turns.state().queued;
    turns.settled(read);
    for (const id of read) steeringRead.add(id);
    steering = [];
    expect(turns.running).toBeUndefined();
    // Steering the turn did not read runs first, in the order it came.
    expect(turns.state().queued).toEqual([...unread, ...queueBefore]);
  };

  for (const step of ops) {
    switch (step.op) {
      case 'accept':
        accept(step.messageId, step.ifBusy);
        break;
      case 'send':
        accept(step.messageId, step.ifBusy);
        recordPending(step.joined);
        break;
      case 'record': {
        const send = pending[0];
        if (!send) break;
        if (send.steered === undefined) {
          takeSteerTarget(send);
        } else {
          pending.shift();
          record(send, step.joined);
        }
        break;
      }
      case 'start': {
        if (turns.running || !turns.hasWork()) break;
        const expectedNext = turns.queue[0]!.turnId;
        const { turn } = turns.start();
        expect(turn.turnId).toBe(expectedNext);
        started.set(turn.turnId, (started.get(turn.turnId) ?? 0) + 1);
        cancels = 0;
        break;
      }
      case 'end':
        end();
        break;
      case 'settle':
        settle(step.readMask);
        break;
      case 'finish':
        end();
        settle(step.readMask);
        break;
      case 'abort': {
        const cancellable = !!turns.running && !turns.running.ended && !turns.running.cancelRequested;
        const aborted = turns.cancelRunning();
        expect(aborted).toBe(cancellable);
        if (aborted) cancels += 1;
        break;
      }
      case 'regenerate': {
        // Runs after the sends before it (they share one chain), and is refused while a turn waits.
        recordPending(true);
        if (!turns.refusesRevert()) turns.queueRegenerate(`r${++regenerated}`, 'm1', ++seq);
        break;
      }
    }

    const { queued } = turns.state();
    const running = turns.running;
    holds(new Set(queued).size === queued.length, `no turn id is queued twice: ${queued.join(',')}`);
    holds(!running || !queued.includes(running.turnId), `the running turn ${running?.turnId} is not also queued`);
    holds(cancels <= 1, 'a running turn is cancelled at most once (by an abort or an interrupt)');
    holds(turns.recording === pending.length, 'recording counts the sends in flight');
    holds(
      turns.refusesReject() === (running !== undefined || queued.length > 0 || pending.length > 0),
      'refusesReject iff a turn is running (ended or not), waiting, or a send is being recorded',
    );
    holds(turns.refusesRevert() === queued.length > 0, 'a revert is refused iff a turn waits');
    for (const id of accepted) {
      const times =
        (started.get(id) ?? 0) + queued.filter((q) => q === id).length + (steeringRead.has(id) ? 1 : 0) + (steering.includes(id) ? 1 : 0);
      holds(times === 1, `message ${id} is run, queued, read as steering or steering the running turn exactly once (${times})`);
    }
    for (const [id, count] of started) holds(count === 1, `turn ${id} started once (${count})`);
  }
}

describe('random interleavings', () => {
  test('no turn queued twice, each accepted message handled once, one cancel per turn, refusals as the state says', () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 10, maxLength: 60, size: 'max' }), (ops) => {
        runOps(ops);
      }),
      { numRuns: 500 },
    );
  });
});

describe('a compaction asked for through the API', () => {
  test('sends are recorded while it runs, but their turns wait for it; reject, revert and another compaction are refused', () => {
    const session = new Session();
    session.turns.compacting = true;
    expect(session.turns.refusesReject()).toBe(true);
    expect(session.turns.refusesRevert()).toBe(true);
    expect(session.send('m1')).toMatchObject({ kind: 'queued' });
    expect(session.turns.state().queued).toEqual(['m1']);
    expect(session.turns.hasWork()).toBe(false);
    session.turns.compacting = false;
    expect(session.turns.hasWork()).toBe(true);
    // A turn queued: a compaction is refused until it has run.
    expect(session.turns.refusesRevert()).toBe(true);
  });
});

describe('sends taken from the inbox (the API took them in PostgreSQL)', () => {
  const row = (messageId: string, seq: number, turnId = messageId, ifBusy: 'queue' | 'steer' | 'interrupt' = 'queue') => ({
    messageId,
    seq,
    turnId,
    ifBusy,
  });

  test('every take reads every row: each turn queues once, in seq order, and a steer with no turn joined queues too', () => {
    const turns = new SessionTurns();
    expect(turns.taken(row('m1', 1))).toEqual({ kind: 'queued', cancel: false });
    expect(turns.taken(row('m1', 1))).toEqual({ kind: 'known' });
    expect(turns.taken(row('m2', 2, 'm2', 'steer'))).toEqual({ kind: 'queued', cancel: false });
    expect(turns.state().queued).toEqual(['m1', 'm2']);
  });

  test('a steering message the API joined to the running turn joins it once; an interrupt cancels that turn', () => {
    const turns = new SessionTurns();
    turns.taken(row('m1', 1));
    turns.start();
    expect(turns.taken(row('s1', 2, 'm1', 'steer'))).toMatchObject({ kind: 'joined', turn: { turnId: 'm1' }, signal: true });
    expect(turns.taken(row('s1', 2, 'm1', 'steer'))).toMatchObject({ kind: 'joined', signal: false });
    expect(turns.taken(row('m2', 3, 'm2', 'interrupt'))).toEqual({ kind: 'queued', cancel: true });
  });

  test('one taken after its turn returned: answered when a step of the turn read it, a turn of its own when none did', () => {
    const read = new SessionTurns();
    read.taken(row('m1', 1));
    read.start();
    read.ended();
    // A step read s1 from PostgreSQL before this run took it from the inbox: the turn told of it late.
    expect(read.taken(row('s1', 2, 'm1', 'steer'))).toMatchObject({ kind: 'joined', signal: true });
    read.settled([], ['m1', 's1']);
    expect(read.state()).toEqual({ runningTurnId: null, queued: [] });

    const unread = new SessionTurns();
    unread.taken(row('m1', 1));
    unread.start();
    unread.ended();
    unread.taken(row('s1', 2, 'm1', 'steer'));
    unread.settled([], ['m1']);
    expect(unread.state().queued).toEqual(['s1']);
  });

  test('one joined to a turn not running here (a run that ended without its end) runs as a turn of its own', () => {
    const turns = new SessionTurns();
    expect(turns.taken(row('s1', 5, 'mOld', 'steer'))).toEqual({ kind: 'queued', cancel: false });
    expect(turns.state().queued).toEqual(['s1']);
  });
});
