// What a previous master key signed keeps working while that key is listed, and only then: an
// approval link's token, and a webhook trigger URL whose suffix was derived from the key. What is
// handed out now is always made under the current key.
import { describe, expect, it } from 'vitest';
import { parseMasterKey } from '../../lib/master-key.ts';
import { approvalToken, verifyApprovalToken } from '../../lib/approval-token.ts';
import { describeTriggers, generatedSuffix, suffixOpens } from '../../api/triggers/urls.ts';
import type { Trigger } from '../../contract/bundle.ts';

const A = parseMasterKey('previous-master-key-0123456789abcdefghijklmn');
const B = parseMasterKey('current-master-key-0123456789abcdefghijklmno');
const APPROVAL = 'apr_0123456789abcdefghjkmnpqrs';
const AGENT = 'agt_0123456789abcdefghjkmnpqrs';

describe('approval link tokens', () => {
  it('signed with the previous key verify while it is listed, and not once it is dropped', () => {
    const token = approvalToken(A, APPROVAL);
    expect(verifyApprovalToken([B, A], token)).toBe(APPROVAL);
    expect(verifyApprovalToken([B], token)).toBeUndefined();
  });

  it('signed with the current key differ from the previous ones and verify either way', () => {
    const token = approvalToken(B, APPROVAL);
    expect(token).not.toBe(approvalToken(A, APPROVAL));
    expect(verifyApprovalToken([B, A], token)).toBe(APPROVAL);
    expect(verifyApprovalToken([B], token)).toBe(APPROVAL);
  });
});

describe('webhook trigger URLs', () => {
  const generated: Trigger = { kind: 'webhook' };

  it('generated under the previous key still open the trigger while it is listed', () => {
    const old = generatedSuffix(A, AGENT, 0);
    expect(suffixOpens(generated, [B, A], AGENT, 0, old)).toBe(true);
    expect(suffixOpens(generated, [B], AGENT, 0, old)).toBe(false);
    // Bound to the trigger's position: the same suffix opens no other trigger of the agent.
    expect(suffixOpens(generated, [B, A], AGENT, 1, old)).toBe(false);
  });

  it('are shown under the current key', () => {
    const [shown] = describeTriggers([generated], { userId: 'usr_x', agentId: AGENT }, B, 'https://agents.example.com');
    expect(shown!.url).toBe(`https://agents.example.com/trigger/usr_x/${AGENT}/${generatedSuffix(B, AGENT, 0)}`);
    expect(generatedSuffix(B, AGENT, 0)).not.toBe(generatedSuffix(A, AGENT, 0));
  });

  it('with a suffix of their own do not depend on any key', () => {
    const pinned: Trigger = { kind: 'webhook', suffix: 'deploys' };
    expect(suffixOpens(pinned, [B], AGENT, 0, 'deploys')).toBe(true);
    expect(suffixOpens(pinned, [B, A], AGENT, 0, generatedSuffix(A, AGENT, 0))).toBe(false);
    expect(suffixOpens({ kind: 'cron', expression: '@daily' }, [B, A], AGENT, 0, generatedSuffix(B, AGENT, 0))).toBe(false);
  });
});
