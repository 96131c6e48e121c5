// The rules of approval policies on tool calls, alone: which policy a tool gets, and the question the
// service writes for an `ask` (never the model's words), with the arguments in full up to a bound.
import { describe, expect, it } from 'vitest';
import { deniedToolText, policyOf, toolApprovalQuestion, TOOL_QUESTION_CHARS } from '../../../core/tool-policies.ts';

describe('policyOf', () => {
  const policies = {
    http: { '*': 'ask' as const, http_request: 'never' as const },
    linear: { '*': 'ask' as const },
    time: { current_time: 'always' as const },
  };
  it("takes the tool's own policy, then its server's *, then always", () => {
    expect(policyOf(policies, 'http', 'http_request')).toBe('never');
    expect(policyOf(policies, 'linear', 'create_issue')).toBe('ask');
    expect(policyOf(policies, 'time', 'current_time')).toBe('always');
    expect(policyOf(policies, 'memory', 'remember')).toBe('always');
    expect(policyOf(undefined, 'http', 'http_request')).toBe('always');
  });
});

describe('toolApprovalQuestion', () => {
  const base = { agentName: 'support', serverId: 'billing', serverKind: 'remote' as const, toolName: 'refund' };
  it('names the agent, the tool, the server and the arguments in full, and quotes the last user message', () => {
    const question = toolApprovalQuestion({
      ...base,
      input: { order: 12, amount: '40.00 EUR' },
      lastUserMessage: '  my parcel never came  ',
    });
    expect(question).toContain('The agent "support" wants to run the tool "refund" of your MCP server "billing".');
    expect(question).toContain('"order": 12');
    expect(question).toContain('"amount": "40.00 EUR"');
    expect(question).toContain("The conversation's last user message:\nmy parcel never came");
    expect(question).toMatch(/Approve to run it once, or deny/);
  });

  it('stays within its bound: huge arguments are cut with a count of what was left out', () => {
    const question = toolApprovalQuestion({ ...base, input: { text: 'x'.repeat(50_000) }, lastUserMessage: undefined });
    expect(question.length).toBeLessThanOrEqual(TOOL_QUESTION_CHARS);
    expect(question).toMatch(/\[… \d+ more characters of arguments\]/);
    expect(question).not.toContain('last user message');
  });
});

describe('deniedToolText', () => {
  it('passes the note on when there is one', () => {
    expect(deniedToolText('refund', 'not this one')).toBe(
      'The user denied this call of "refund", with the note: not this one. The tool was not run.',
    );
    expect(deniedToolText('refund', null)).toBe('The user denied this call of "refund". The tool was not run.');
  });
});
