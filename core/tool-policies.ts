// Approval policies on tool calls (bundle `toolPolicies`): which calls the service runs at once, which
// wait for the agent's user to approve them, and which it refuses. Decided in the step's activity from
// the revision's bundle, and recorded in the step's result, so the turn workflow follows the recorded
// decision on replay. The question is written here, by the service, never by the model: the model cannot
// word its way past it.
import { APPROVAL_LIMITS } from '../contract/approvals.ts';
import type { ToolPolicy } from '../contract/bundle.ts';

/** The policy of one tool: its own, else its server's `*`, else `always`. */
export function policyOf(policies: Record<string, Record<string, ToolPolicy>> | undefined, serverId: string, toolName: string): ToolPolicy {
  // Own keys only: a tool named `constructor` or `toString` must not find Object.prototype's.
  const server = policies && Object.hasOwn(policies, serverId) ? policies[serverId] : undefined;
  if (!server) return 'always';
  if (Object.hasOwn(server, toolName)) return server[toolName]!;
  return Object.hasOwn(server, '*') ? server['*']! : 'always';
}

/** The options of a tool call's approval; the first runs the tool. */
export const TOOL_APPROVAL_OPTIONS = ['approve', 'deny'] as const;

/** The longest question written for a tool call (an approval's own bound); longer arguments are cut, with a note. */
export const TOOL_QUESTION_CHARS = APPROVAL_LIMITS.questionChars;
const LAST_MESSAGE_CHARS = 1_000;

export interface ToolCallToApprove {
  agentName: string;
  serverId: string;
  /** `remote`: a server the user registered; `builtin`: one of the service's. */
  serverKind: 'builtin' | 'remote';
  toolName: string;
  input: unknown;
  /** The conversation's last user message, for what the call is about. */
  lastUserMessage: string | undefined;
}

export function toolApprovalQuestion(call: ToolCallToApprove): string {
  const kind = call.serverKind === 'remote' ? 'your MCP server' : 'the built-in tool server';
  const head = `The agent "${call.agentName}" wants to run the tool "${call.toolName}" of ${kind} "${call.serverId}".`;
  const asked = call.lastUserMessage?.trim();
  const context = asked
    ? `\n\nThe conversation's last user message:\n${asked.length > LAST_MESSAGE_CHARS ? `${asked.slice(0, LAST_MESSAGE_CHARS)}…` : asked}`
    : '';
  const tail = '\n\nApprove to run it once, or deny (a note you add is passed on to the agent).';
  const shown = JSON.stringify(call.input ?? {}, null, 2) ?? 'null';
  const room = TOOL_QUESTION_CHARS - `${head}\n\nArguments:\n`.length - context.length - tail.length;
  const args = shown.length <= room ? shown : cutArguments(shown, room);
  return `${head}\n\nArguments:\n${args}${context}${tail}`;
}

/** The first part of the arguments that fits `room` with a note of how much was left out. */
function cutArguments(shown: string, room: number): string {
  const note = (left: number) => `\n[… ${left} more characters of arguments]`;
  // The note's length grows with its count: sized for the whole text, it is never shorter than the one written.
  const kept = Math.max(0, room - note(shown.length).length);
  return `${shown.slice(0, kept)}${note(shown.length - kept)}`;
}

/** What the model reads when the user did not say yes. */
export function deniedToolText(toolName: string, note: string | null): string {
  return `The user denied this call of "${toolName}"${note ? `, with the note: ${note}` : ''}. The tool was not run.`;
}

export function unansweredToolText(toolName: string): string {
  return `The user did not answer the approval of this call of "${toolName}" before it expired. The tool was not run; do not assume their agreement.`;
}

export function refusedToolText(toolName: string): string {
  return `This agent's policy refuses the tool "${toolName}" (toolPolicies: "never"). It was not run.`;
}

/** The question asked again when an approval grew older than its policy's `validForMs` before the call ran. */
export function staleApprovalQuestion(question: string, answeredAt: string, validForMs: number): string {
  const note = `Asked again: the approval given at ${answeredAt} is older than this tool's approvals stay valid (${validForMs / 1000} s) and the call has not run yet.\n\n`;
  const room = TOOL_QUESTION_CHARS - note.length;
  return `${note}${question.length <= room ? question : `${question.slice(0, Math.max(0, room - 1))}…`}`;
}

export function staleToolText(toolName: string, asks: number): string {
  return `The call of "${toolName}" was approved ${asks} times, but each approval was older than the policy allows (validForMs) by the time it could run. The tool was not run.`;
}
