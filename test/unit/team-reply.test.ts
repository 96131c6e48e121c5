// Whose vote a chat reply is on a team's approval: only the approver whose address wrote it, and in an
// approver's own message only that approver.
import { describe, expect, test } from 'vitest';
import { seatOfReply, type ReplySeat } from '../../api/inbound/team-reply.ts';

const seat = (position: number, addresses: Partial<ReplySeat> = {}): ReplySeat => ({
  position,
  slackUserId: null,
  telegramChatId: null,
  vote: null,
  delegatedTo: null,
  ...addresses,
});

const me = seat(0);
const bob = seat(1, { slackUserId: 'U0BOB', telegramChatId: '4242' });
const carol = seat(2, { slackUserId: 'U0CAROL' });

describe('seatOfReply', () => {
  test("in the user's thread, any approver whose address wrote the reply", () => {
    expect(seatOfReply([me, bob, carol], 'slack', 'U0CAROL')).toBe(carol);
    expect(seatOfReply([me, bob, carol], 'telegram', '4242')).toBe(bob);
  });

  test('nobody else, and never "me": a shared channel cannot tell the user from a colleague', () => {
    expect(seatOfReply([me, bob, carol], 'slack', 'U0STRANGER')).toBeUndefined();
    expect(seatOfReply([me, bob, carol], 'slack', undefined)).toBeUndefined();
    expect(seatOfReply([me, bob, carol], 'slack', '')).toBeUndefined();
    // Bob's Telegram id is not a Slack user id.
    expect(seatOfReply([me, bob, carol], 'slack', '4242')).toBeUndefined();
  });

  test("in an approver's own message, only that approver", () => {
    expect(seatOfReply([me, bob, carol], 'slack', 'U0BOB', 1)).toBe(bob);
    expect(seatOfReply([me, bob, carol], 'slack', 'U0CAROL', 1)).toBeUndefined();
  });

  test('one person in two seats votes once by reply: a seat of theirs that voted answers, so the reply is refused', () => {
    const voted = seat(1, { slackUserId: 'U0SAME', vote: { choice: 'yes' } });
    const open = seat(2, { slackUserId: 'U0SAME' });
    expect(seatOfReply([voted, open], 'slack', 'U0SAME')).toBe(voted);
    expect(seatOfReply([open, voted], 'slack', 'U0SAME')).toBe(voted);
    // Neither voted: one that has not handed its vote on.
    const handedOn = seat(1, { slackUserId: 'U0SAME', delegatedTo: 'dan' });
    expect(seatOfReply([handedOn, open], 'slack', 'U0SAME')).toBe(open);
    expect(seatOfReply([handedOn], 'slack', 'U0SAME')).toBe(handedOn);
  });
});
