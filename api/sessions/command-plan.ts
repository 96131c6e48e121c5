// A custom command made ready to send: its template resolved (contract/commands.ts), the agent it runs
// on, and the session it goes to (named, a new one, or a subtask's new child of the named one). Shared by
// POST /agent/<name>/command/<command> and an agent's MCP tools (api/mcp/), so a command runs the same
// through either door.
import { resolveCommand } from '../../contract/commands.ts';
import type { CommandBody } from '../../contract/operations/commands.ts';
import type { SubtaskReplyTarget } from '../../core/session-turns.ts';
import type { ModelOverride } from '../../core/turn-types.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/workflow-safe/errors.ts';
import type { Principal } from '../../store/api-keys.ts';
import { findAgent, getRevision, type Agent } from '../../store/agents.ts';
import { openSessionOnce, type Session } from '../../store/sessions.ts';
import type { MessagePart } from '../../contract/events.ts';
import type { ApiDeps } from '../context.ts';
import { loadSendableSession } from './access.ts';

export interface CommandPlan {
  command: string;
  prompt: string;
  model?: ModelOverride;
  /** The agent the command runs on: the bundle's `agent`, or the one named in the request. */
  target: Agent;
  /** The session named in the request: the one it runs in, or a subtask's calling session. */
  named?: Session;
  subtask: boolean;
}

/** The command checked and resolved; a 404 for an unknown command, a 400 naming a missing argument or flag. */
export async function planCommand(
  deps: ApiDeps,
  principal: Principal,
  agent: Agent,
  name: string,
  body: CommandBody,
): Promise<CommandPlan> {
  const { bundle } = (await getRevision(deps.db, agent.id, agent.revision))!;
  const command = bundle.command && Object.hasOwn(bundle.command, name) ? bundle.command[name]! : undefined;
  if (!command) {
    const known = Object.keys(bundle.command ?? {});
    throw new NotFoundError(`Agent "${agent.name}" has no command "${name}"` + (known.length ? `; its commands: ${known.join(', ')}` : ''));
  }
  const resolved = resolveCommand(command.template, {
    ...(body.args ? { args: body.args } : {}),
    ...(body.flags ? { flags: body.flags } : {}),
  });
  if (!resolved.ok) {
    const first = resolved.errors[0]!;
    throw new ValidationError(
      `The command "${name}" cannot run: ${first.path} ${first.message}`,
      resolved.errors.map(({ path, message }) => ({ path, message })),
    );
  }
  const target = command.agent ? await findAgent(deps.db, principal.userId, command.agent) : agent;
  if (!target) throw new NotFoundError(`The command "${name}" runs on agent "${command.agent}", which you do not have`);
  const named = body.sessionId ? await loadSendableSession(deps, principal, body.sessionId) : undefined;
  const subtask = command.subtask === true;
  if (named && !subtask && named.agentId !== target.id) {
    throw new ConflictError(`Session "${named.id}" belongs to another agent than the one the command runs on ("${target.name}")`);
  }
  return {
    command: name,
    prompt: resolved.prompt,
    ...(command.model ? { model: command.model } : {}),
    target,
    ...(named ? { named } : {}),
    subtask,
  };
}

/** The session the command goes to: the named one, else a new one (`sessionId` chosen by the caller, once per key). */
export async function commandSession(deps: ApiDeps, plan: CommandPlan, sessionId: string): Promise<Session> {
  if (plan.named && !plan.subtask) return plan.named;
  const parent = plan.subtask ? plan.named : undefined;
  return openSessionOnce(deps.db, {
    id: sessionId,
    userId: plan.target.userId,
    agentId: plan.target.id,
    revision: plan.target.revision,
    ...(parent ? { parentSessionId: parent.id } : {}),
  });
}

/** What the command's send carries: its prompt, its model, and for a subtask where its reply goes. */
export function commandMessage(
  plan: CommandPlan,
  replyMessageId: string,
): { parts: MessagePart[]; model?: ModelOverride; replyTo?: SubtaskReplyTarget; parentSessionId?: string } {
  const parent = plan.subtask ? plan.named : undefined;
  return {
    parts: [{ type: 'text', text: plan.prompt }],
    ...(plan.model ? { model: plan.model } : {}),
    ...(parent ? { replyTo: { sessionId: parent.id, messageId: replyMessageId, command: plan.command }, parentSessionId: parent.id } : {}),
  };
}
