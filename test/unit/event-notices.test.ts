// What the event channel's notices say, read the way the API's hub reads them: the session and its
// last seq, the events when the notice carries them in the form announce_session_events writes, and
// for anything else on the channel (another writer's form, a malformed body) only a wake, never a throw.
import { describe, expect, test } from 'vitest';
import { parseEventNotice } from '../../store/event-notices.ts';

const body = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64');

describe('event notices', () => {
  test('a head alone names the session and its last seq; a payload without a colon is an id', () => {
    expect(parseEventNotice('ses_a:12')).toEqual({ id: 'ses_a', lastSeq: 12 });
    expect(parseEventNotice('apr_b')).toEqual({ id: 'apr_b', lastSeq: NaN });
  });

  test('the events a notice carries come as a read builds them, text of any script included', () => {
    const at = '2026-11-25T21:22:59.690Z';
    const notice = parseEventNotice(
      `ses_a:3\n${body({
        at,
        events: [
          [2, 'message.part.delta', { delta: 'héllo 🌍', messageId: 'msg_1' }],
          [3, 'turn.completed', { turnId: 't' }],
        ],
      })}`,
    );
    expect(notice.events).toEqual([
      { delta: 'héllo 🌍', messageId: 'msg_1', seq: 2, type: 'message.part.delta', at, sessionId: 'ses_a' },
      { turnId: 't', seq: 3, type: 'turn.completed', at, sessionId: 'ses_a' },
    ]);
    expect(JSON.stringify(notice.events![0])).toBe(
      JSON.stringify({ delta: 'héllo 🌍', messageId: 'msg_1', seq: 2, type: 'message.part.delta', at, sessionId: 'ses_a' }),
    );
  });

  test.each([
    ['not base64 JSON', '%%%'],
    ['no events', body({ at: 'x' })],
    ['an empty list', body({ at: 'x', events: [] })],
    ['a null event', body({ at: 'x', events: [null] })],
    ['an object event', body({ at: 'x', events: [{ seq: 1 }] })],
    ['a fractional seq', body({ at: 'x', events: [[1.5, 'a', {}]] })],
    ['a missing type', body({ at: 'x', events: [[1, null, {}]] })],
    ['data that is not an object', body({ at: 'x', events: [[1, 'a', null]] })],
    ['no time', body({ events: [[1, 'a', {}]] })],
  ])('a body with %s is only a wake', (_what, text) => {
    expect(parseEventNotice(`ses_a:1\n${text}`)).toEqual({ id: 'ses_a', lastSeq: 1 });
  });
});
