// A tool call whose MCP server needs its user to sign in: the turn asks them, as it asks any question
// (an approval child, over the agent's channels, for as long as approvals wait), and calls again once the
// sign-in finishes. The approval's link starts the sign-in; only the sign-in's callback answers it. An
// unanswered question ends the call with an error the model reads, and an abort ends the wait as it ends
// every other (the approval is abandoned, not cancelled).
import { CONNECT_OPTION } from '../lib/workflow-safe/approvals.ts';
import type { ServiceToolResult, ToolCall, TurnInput } from '../core/turn-types.ts';
import { approvalInTurn } from './ask-user.ts';

export function connectQuestion(serverId: string, toolName: string): string {
  return `Sign in to the MCP server "${serverId}" so that the agent can use its tool ${toolName}. The agent waits until you have.`;
}

const withoutMarker = ({ signIn: _signIn, ...result }: ServiceToolResult): Omit<ServiceToolResult, 'signIn'> => result;

export async function signedInTool(
  turn: TurnInput,
  call: ToolCall,
  run: () => Promise<ServiceToolResult>,
): Promise<Omit<ServiceToolResult, 'signIn'>> {
  const first = await run();
  if (!first.signIn) return first;
  const { serverId } = first.signIn;
  const { toolCallId, toolName } = call;
  const request = {
    question: connectQuestion(serverId, toolName),
    options: [CONNECT_OPTION],
    expiresInMs: turn.settings.approvals.defaultExpiryMs,
    connect: { serverId },
  };
  const outcome = await approvalInTurn(turn, toolCallId, request, `a sign-in to the MCP server ${serverId}`);
  if (outcome.status !== 'answered') {
    return {
      type: 'tool-result',
      toolCallId,
      toolName,
      output: `The user did not sign in to the MCP server "${serverId}" before the question expired; the call did not run.`,
      isError: true,
    };
  }
  // Signed in: the call runs now. Should the server still want a sign-in, the model reads why.
  return withoutMarker(await run());
}
