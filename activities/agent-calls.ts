// Activities of one agent calling another (docs/tools.md, "Calling other agents"): the call's child
// session opened and its message taken (store/agent-calls.ts), the child's workflow woken as any send's
// is; the child's reply stored as the call's answer once its turn ends; and a caller's abort passed on
// to the children still running. Each is idempotent, on ids the calling workflow chose.
import { Context } from '@temporalio/activity';
import type { Db } from '../store/db.ts';
import { agentState } from '../store/agents.ts';
import { endAgentCall, startAgentCall, type AgentCallEnd, type AgentCallStarted } from '../store/agent-calls.ts';
import { abortTurnWithStart, wakeSessionWithStart } from '../clients/session.ts';
import { getSession } from '../store/sessions.ts';
import { readAgentCallInput, agentToolName } from '../lib/workflow-safe/agent-tools.ts';
import type { TurnSettings } from '../lib/workflow-safe/turn-settings.ts';
import type { ToolCall } from '../core/turn-types.ts';
import type { RevisionOf } from './turn/revision-cache.ts';

export interface AgentCallInput {
  sessionId: string;
  userId: string;
  agentId: string;
  revision: number;
  /** The step's message, and the call in it. */
  messageId: string;
  call: Pick<ToolCall, 'toolCallId' | 'toolName' | 'input'>;
  /** Chosen by the workflow, so a retried call opens and sends once. */
  childSessionId: string;
  childMessageId: string;
  settings: TurnSettings;
}

export function agentCallActivities(deps: {
  db: Db;
  taskQueue: string;
  revisionOf: RevisionOf;
  limits: { agentCallDepth: number; queuedSendsPerUser: number };
}) {
  const { db } = deps;
  return {
    async startAgentCall(input: AgentCallInput): Promise<AgentCallStarted> {
      const { callableAgents } = await deps.revisionOf(input.agentId, input.revision);
      const callee = callableAgents.find((agent) => agentToolName(agent.name) === input.call.toolName);
      const read = readAgentCallInput(input.call.input);
      if (!callee) return { refused: `This agent may not call "${input.call.toolName}".` };
      if ('problem' in read) return { refused: read.problem };
      const state = await agentState(db, callee.agentId);
      if (!state || state.deleted) return { refused: `The agent "${callee.name}" no longer exists.` };
      const started = await startAgentCall(db, {
        parentSessionId: input.sessionId,
        userId: input.userId,
        messageId: input.messageId,
        toolCallId: input.call.toolCallId,
        agent: { name: callee.name, agentId: callee.agentId, revision: callee.revision ?? state.currentRevision },
        text: read.message,
        ...(read.sessionId ? { continueSessionId: read.sessionId } : {}),
        childSessionId: input.childSessionId,
        childMessageId: input.childMessageId,
        maxDepth: deps.limits.agentCallDepth,
        maxWaitingPerUser: deps.limits.queuedSendsPerUser,
      });
      if ('refused' in started) return started;
      const child = (await getSession(db, started.childSessionId))!;
      // The engine takes the wake-up with no worker running; the send sweep covers one that is lost.
      await wakeSessionWithStart(
        { client: Context.current().client, taskQueue: deps.taskQueue, settings: input.settings },
        { id: child.id, userId: child.userId, agentId: child.agentId, revision: child.revision },
        started.childMessageId,
      );
      return started;
    },

    /** The child's turn ended: its reply is the call's answer (false: the caller's turn has ended). */
    async endAgentCall(input: AgentCallEnd): Promise<{ stored: boolean }> {
      return endAgentCall(db, input);
    },

    /** The caller's turn was aborted: the children's turns still running are aborted too. */
    async abortAgentCalls(input: { settings: TurnSettings; children: { sessionId: string; turnId: string }[] }): Promise<void> {
      for (const { sessionId, turnId } of input.children) {
        const child = await getSession(db, sessionId);
        if (!child) continue;
        await abortTurnWithStart(
          { client: Context.current().client, taskQueue: deps.taskQueue, settings: input.settings },
          { id: child.id, userId: child.userId, agentId: child.agentId, revision: child.revision },
          turnId,
        );
      }
    },
  };
}
