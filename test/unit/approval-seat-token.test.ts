// An approver's own links (an approval a team answers): the seat is signed with the approval, so a
// link answers as that approver and no other, and the approval's own token still means its user.
import { describe, expect, it } from 'vitest';
import { parseMasterKey } from '../../lib/master-key.ts';
import { approvalToken, seatToken, verifyApprovalLink, verifyApprovalToken } from '../../lib/approval-token.ts';

const PREVIOUS = parseMasterKey('previous-master-key-0123456789abcdefghijklmn');
const CURRENT = parseMasterKey('current-master-key-0123456789abcdefghijklmno');
const KEYS = [CURRENT];
const APPROVAL = 'apr_0123456789abcdefghjkmnpqrs';

/** The signature, the last part of a token. */
function signatureOf(token: string): string {
  return token.slice(token.lastIndexOf('.') + 1);
}

describe('seat tokens', () => {
  it('have the form <approvalId>.s<seat>.<signature> and verify to the approval and seat', () => {
    const token = seatToken(CURRENT, APPROVAL, 3);
    expect(token).toMatch(new RegExp(`^${APPROVAL}\\.s3\\.[0-9a-hjkmnp-tv-z]{20}$`));
    expect(verifyApprovalLink(KEYS, token)).toEqual({ approvalId: APPROVAL, seat: 3 });
    expect(verifyApprovalLink(KEYS, seatToken(CURRENT, APPROVAL, 0))).toEqual({ approvalId: APPROVAL, seat: 0 });
    expect(verifyApprovalToken(KEYS, token)).toBe(APPROVAL);
  });

  it('sign each seat differently', () => {
    expect(signatureOf(seatToken(CURRENT, APPROVAL, 0))).not.toBe(signatureOf(seatToken(CURRENT, APPROVAL, 1)));
    expect(signatureOf(seatToken(CURRENT, APPROVAL, 0))).not.toBe(signatureOf(approvalToken(CURRENT, APPROVAL)));
  });

  it('the approval token verifies with seat null', () => {
    expect(verifyApprovalLink(KEYS, approvalToken(CURRENT, APPROVAL))).toEqual({ approvalId: APPROVAL, seat: null });
  });

  it('do not verify with another seat number', () => {
    const token = seatToken(CURRENT, APPROVAL, 0);
    expect(token).toContain('.s0.');
    expect(verifyApprovalLink(KEYS, token.replace('.s0.', '.s1.'))).toBeUndefined();
    expect(verifyApprovalToken(KEYS, token.replace('.s0.', '.s1.'))).toBeUndefined();
  });

  it("a seat token's signature does not verify without its seat, nor the approval's with a seat added", () => {
    const seatSignature = signatureOf(seatToken(CURRENT, APPROVAL, 2));
    expect(verifyApprovalLink(KEYS, `${APPROVAL}.${seatSignature}`)).toBeUndefined();
    const plainSignature = signatureOf(approvalToken(CURRENT, APPROVAL));
    expect(verifyApprovalLink(KEYS, `${APPROVAL}.s0.${plainSignature}`)).toBeUndefined();
    expect(verifyApprovalLink(KEYS, `${APPROVAL}.s2.${plainSignature}`)).toBeUndefined();
  });

  it('do not verify for another approval', () => {
    const other = 'apr_zyxwvtsrqpnmkjhgfedcba9876';
    const token = seatToken(CURRENT, APPROVAL, 1);
    expect(verifyApprovalLink(KEYS, `${other}.s1.${signatureOf(token)}`)).toBeUndefined();
  });

  it('verify upper-cased and with surrounding space, as mail systems pass them on', () => {
    const token = seatToken(CURRENT, APPROVAL, 7);
    expect(verifyApprovalLink(KEYS, token.toUpperCase())).toEqual({ approvalId: APPROVAL, seat: 7 });
    expect(verifyApprovalLink(KEYS, ` ${token}\n`)).toEqual({ approvalId: APPROVAL, seat: 7 });
    expect(verifyApprovalLink(KEYS, approvalToken(CURRENT, APPROVAL).toUpperCase())).toEqual({ approvalId: APPROVAL, seat: null });
  });

  it('signed by a previous master key verify while that key is listed, and not otherwise', () => {
    const token = seatToken(PREVIOUS, APPROVAL, 4);
    expect(token).not.toBe(seatToken(CURRENT, APPROVAL, 4));
    expect(verifyApprovalLink([CURRENT, PREVIOUS], token)).toEqual({ approvalId: APPROVAL, seat: 4 });
    expect(verifyApprovalLink([CURRENT], token)).toBeUndefined();
    expect(verifyApprovalLink([], token)).toBeUndefined();
  });

  it('take the highest three-digit seat', () => {
    expect(verifyApprovalLink(KEYS, seatToken(CURRENT, APPROVAL, 999))).toEqual({ approvalId: APPROVAL, seat: 999 });
  });
});

describe('malformed approval tokens', () => {
  const seat = seatToken(CURRENT, APPROVAL, 1);
  const signature = signatureOf(seat);

  it.each([
    ['a bare prefix', 'apr_x'],
    ['an empty string', ''],
    ['no signature', APPROVAL],
    ['an id of another kind', `agt_0123456789abcdefghjkmnpqrs.${signature}`],
    ['a short id', `apr_0123456789.s1.${signature}`],
    ['four parts', `${APPROVAL}.s1.s1.${signature}`],
    ['four parts, the last extra', `${seat}.x`],
    ['a four-digit seat', `${APPROVAL}.s1234.${signature}`],
    ['a seat without its number', `${APPROVAL}.s.${signature}`],
    // One spelling per seat: its signature under a zero-padded number names nothing.
    ['a zero-padded seat', `${APPROVAL}.s01.${signature}`],
    ['a seat not starting with s', `${APPROVAL}.1.${signature}`],
    ['a short signature', seat.slice(0, -1)],
    ['a long signature', `${seat}a`],
    ['an empty signature', `${APPROVAL}.s1.`],
  ])('%s gives undefined', (_, token) => {
    expect(verifyApprovalLink(KEYS, token)).toBeUndefined();
    expect(verifyApprovalToken(KEYS, token)).toBeUndefined();
  });

  it('longer than 80 characters gives undefined, even when the signature is right', () => {
    const token = seatToken(CURRENT, APPROVAL, 1);
    expect(verifyApprovalLink(KEYS, token)).toBeDefined();
    expect(verifyApprovalLink(KEYS, `${token}${' '.repeat(200)}`)).toBeDefined();
    expect(verifyApprovalLink(KEYS, `${APPROVAL}.s1.${'a'.repeat(80)}`)).toBeUndefined();
    expect(verifyApprovalLink(KEYS, 'x'.repeat(81))).toBeUndefined();
  });
});
