// What a waiting turn waits on, in words a client's user (or its model) can act on: who answers, where,
// and how to read the reply afterwards. Said by an agent's MCP tools and its A2A tasks alike; the same
// facts are in their structured answers.
import type { Received } from '../../contract/operations/operation.ts';
import type { WAITING_FOR_SCHEMA } from '../../contract/operations/turn-answers.ts';

type WaitingFor = Received<typeof WAITING_FOR_SCHEMA>;

interface Approval {
  approvalId: string;
  question: string;
  options: readonly string[];
  /** A sign-in asked for, to this MCP server. */
  server?: string;
}
interface ClientCall {
  toolCallId: string;
  toolName: string;
}

function approvalLine(approval: Approval, base: string): string {
  if (approval.server) return connectLine(approval.server, approval.approvalId, base);
  return (
    `- the question "${approval.question}" (${approval.options.join(' / ')}), approval ${approval.approvalId}: ` +
    `answered by its person on the dashboard (${base}/app/approvals), over the agent's channels, or with ` +
    `POST ${base}/approval/${approval.approvalId}/answer {"choice": "..."}`
  );
}

function connectLine(server: string, approvalId: string, base: string): string {
  return (
    `- a sign-in to the MCP server "${server}" (approval ${approvalId}): the user signs in from the link sent over the ` +
    `agent's channels, with Connect on the dashboard (${base}/app/tool-servers), or with POST ${base}/mcp/${server}/connect`
  );
}

function toolLine(sessionId: string, call: ClientCall, base: string): string {
  return (
    `- the client tool ${call.toolName} (call ${call.toolCallId}): its result posted with ` +
    `POST ${base}/session/${sessionId}/tool-result {"toolCallId": "${call.toolCallId}", "output": ...}`
  );
}

/** `waitingFor` as a waiting send answers it (WAITING_FOR_SCHEMA), or as a session's reading gives it. */
export function describeWait(waitingFor: WaitingFor | object | undefined, sessionId: string, base: string): string {
  const lines: string[] = [];
  const kind = (waitingFor as { kind?: string } | undefined)?.kind;
  if (kind === 'approval') lines.push(approvalLine(waitingFor as unknown as Approval, base));
  else if (kind === 'connect') {
    const { server, approvalId } = waitingFor as unknown as { server: string; approvalId: string };
    lines.push(connectLine(server, approvalId, base));
  } else if (kind === 'tool') {
    for (const call of (waitingFor as unknown as { toolCalls: ClientCall[] }).toolCalls) lines.push(toolLine(sessionId, call, base));
  } else if (kind === 'agents') {
    const sessions = (
      waitingFor as unknown as { sessions: { sessionId: string; agent: string; approvals: Approval[]; toolCalls: ClientCall[] }[] }
    ).sessions;
    for (const waiting of sessions) {
      for (const approval of waiting.approvals) lines.push(`${approvalLine(approval, base)} (asked by the agent ${waiting.agent})`);
      for (const call of waiting.toolCalls) lines.push(`${toolLine(waiting.sessionId, call, base)} (of the agent ${waiting.agent})`);
    }
  }
  if (lines.length === 0) lines.push(`- ${JSON.stringify(waitingFor ?? {})}`);
  return (
    `The turn waits, and goes on by itself once it is answered:\n${lines.join('\n')}\n` +
    `Then read the reply with get_session {"sessionId": "${sessionId}"}.`
  );
}
