// The rules of one agent calling another that need nothing running: what a call's input may be, the
// tool's description, which names a bundle's `agents` may not take, and a remote tool with an agent
// tool's name.
import { describe, expect, it } from 'vitest';
import { agentToolDescription, agentToolsTaken, readAgentCallInput } from '../../lib/workflow-safe/agent-tools.ts';
import { validateBundle, type Bundle } from '../../lib/bundle/index.ts';

const MODEL = { providerId: 'openai', modelId: 'gpt-4.1' };
const errorsOf = (bundle: Record<string, unknown>) => {
  const result = validateBundle(JSON.stringify({ name: 'lead', model: MODEL, ...bundle }), { existingSecretKeys: new Set() });
  return result.ok ? [] : result.errors;
};

describe("an agent call's input", () => {
  it('takes a message and, to continue a conversation, a sessionId; anything else is a problem the model reads', () => {
    expect(readAgentCallInput({ message: 'Hi' })).toEqual({ message: 'Hi' });
    expect(readAgentCallInput({ message: 'Hi', sessionId: 'ses_1' })).toEqual({ message: 'Hi', sessionId: 'ses_1' });
    expect(readAgentCallInput({ message: '  ' })).toEqual({ problem: 'Invalid input: message must be a non-empty string.' });
    expect(readAgentCallInput({ message: 'Hi', extra: 1 })).toEqual({
      problem: 'Invalid input: unknown member "extra"; it takes message and sessionId.',
    });
    expect(readAgentCallInput('Hi')).toEqual({ problem: 'Invalid input: it must be an object.' });
    expect(readAgentCallInput({ message: 'x'.repeat(65_537) })).toMatchObject({ problem: expect.stringContaining('longer than 65536') });
  });

  it("is described by the bundle, or by the start of the callee's instructions", () => {
    expect(agentToolDescription('researcher', '  Look   things\nup.  ')).toContain("The agent's instructions begin: Look things up.");
    expect(agentToolDescription('researcher', undefined)).not.toContain('instructions begin');
  });
});

describe("a bundle's agents", () => {
  it('refuses a name twice, the agent itself, a name too long for its tool, and a custom tool with its tool name', () => {
    expect(errorsOf({ agents: [{ name: 'a' }, { name: 'a' }] })).toEqual([
      { path: '/agents/1/name', message: 'the agent "a" is listed twice' },
    ]);
    expect(errorsOf({ agents: [{ name: 'lead' }] })).toEqual([{ path: '/agents/0/name', message: 'an agent cannot call itself' }]);
    expect(errorsOf({ agents: [{ name: 'x'.repeat(59) }] })).toEqual([
      { path: '/agents/0/name', message: 'a callable agent\'s name has at most 58 characters (its tool is "agent_<name>")' },
    ]);
    const customTools = [{ id: 'agent_b', description: 'd', parameters: { type: 'object' } }];
    expect(errorsOf({ agents: [{ name: 'b' }], customTools })).toEqual([
      { path: '/agents/0/name', message: 'a custom tool is named "agent_b", the tool through which this agent is called' },
    ]);
  });

  it("refuses an agent whose tool name a remote MCP server's tool has", () => {
    const bundle = { agents: [{ name: 'a' }, { name: 'b' }] } as unknown as Bundle;
    const tool = (name: string) => ({ name, description: 'd', inputSchema: { type: 'object' } });
    expect(agentToolsTaken(bundle, { linear: [tool('agent_b'), tool('search')] })).toEqual([
      { path: '/agents/1/name', message: 'the tool server "linear" has a tool "agent_b", the tool through which this agent is called' },
    ]);
    expect(agentToolsTaken(bundle, {})).toEqual([]);
  });
});
