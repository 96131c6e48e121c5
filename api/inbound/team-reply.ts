// Whose vote a chat reply is, on an approval a team answers. A chat says who wrote a reply (Slack's
// user id, Telegram's `from.id`), and each approver's seat keeps where they were asked; a reply votes
// only as the approver whose address is its sender. In an approver's own message (a direct message to
// them) only that approver; in the thread of a question the user's channel shows, any approver whose
// address it is. Nobody else, "me" included: a shared channel cannot tell the user from a colleague.
// Pure: the inbound route calls it with the seats it read.

/** The parts of a seat this needs: its position, and its addresses in the chats that carry replies. */
export interface ReplySeat {
  position: number;
  slackUserId: string | null;
  telegramChatId: string | null;
  vote: unknown;
  delegatedTo: string | null;
}

export type ChatProvider = 'slack' | 'telegram';

function addressIn<S extends ReplySeat>(seat: S, provider: ChatProvider): string | null {
  return provider === 'slack' ? seat.slackUserId : seat.telegramChatId;
}

/**
 * The seat a reply from `sender` votes as, or undefined (nobody: the reply is refused). `sentTo` is the
 * seat the replied-to message was sent to, when it was an approver's own message. Of several seats with
 * the same address (one person twice in the directory), one that voted, so the reply is refused as a
 * second vote; else one that has not handed its vote on; else the first (refused with why).
 */
export function seatOfReply<S extends ReplySeat>(
  seats: readonly S[],
  provider: ChatProvider,
  sender: string | undefined,
  sentTo?: number,
): S | undefined {
  if (sender === undefined || sender === '') return undefined;
  const candidates = seats.filter((seat) => (sentTo === undefined || seat.position === sentTo) && addressIn(seat, provider) === sender);
  // One person with two entries votes once by reply: a seat of theirs that voted is the answer (refused).
  return candidates.find((seat) => seat.vote) ?? candidates.find((seat) => seat.delegatedTo === null) ?? candidates[0];
}
