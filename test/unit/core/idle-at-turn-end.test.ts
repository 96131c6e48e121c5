// The rule behind session.completed: a session is idle at a turn's end when nothing waiting was queued
// before that end was written.
import { describe, expect, test } from 'vitest';
import { idleAtTurnEnd } from '../../../core/session-turns.ts';

describe('idleAtTurnEnd', () => {
  test('nothing queued: idle', () => {
    expect(idleAtTurnEnd([], 10)).toBe(true);
  });

  test('every queued turn was recorded after the end: idle', () => {
    expect(idleAtTurnEnd([{ seq: 11 }, { seq: 14 }], 10)).toBe(true);
  });

  test('a turn queued before the end was waiting: not idle', () => {
    expect(idleAtTurnEnd([{ seq: 7 }], 10)).toBe(false);
    expect(idleAtTurnEnd([{ seq: 12 }, { seq: 9 }], 10)).toBe(false);
  });

  test('a queued turn without a seq (an unread steering message, a queue from an older run) was waiting: not idle', () => {
    expect(idleAtTurnEnd([{}], 10)).toBe(false);
    expect(idleAtTurnEnd([{ seq: 12 }, {}], 10)).toBe(false);
  });
});
