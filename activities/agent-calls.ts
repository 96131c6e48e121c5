// Activities of one agent calling another (docs/tools.md, "Calling other agents"): the call's child
// session opened and its message taken (store/agent-calls.ts), the child's workflow woken as any send's
// is; the child's reply stored as the call's answer once its turn ends and signalled to the calling
// workflow; and the end of a caller's turn passed on to the children still running. Each is idempotent,
// on ids the calling workflow chose.
import { Context } from '@temporalio/activity';
import type { Db } from '../store/db.ts';
import { agentState } from '../store/agents.ts';
import { endAgentNode, startAgentCall, type AgentCallEnd, type AgentCallStarted } from '../store/agent-calls.ts';
import { handBackAgentCall } from './agent-call-hand-back.ts';
import { replayedAgentCall } from './eval-replay-agent-calls.ts';
import type { AgentNodeEnd } from '../core/session-turns.ts';
import { abortTurnWithStart, wakeSessionWithStart } from '../clients/session.ts';
import { getSession } from '../store/sessions.ts';
import { readAgentCallInput, agentToolName, type CallableAgent } from '../lib/workflow-safe/agent-tools.ts';
import type { TurnSettings } from '../lib/workflow-safe/turn-settings.ts';
import type { ToolCall } from '../core/turn-types.ts';
import type { RevisionOf } from './turn/revision-cache.ts';
import { pickRevision } from '../lib/revision-traffic.ts';

export interface AgentCallInput {
  sessionId: string;
  userId: string;
  agentId: string;
  revision: number;
  /** The step's message, and the call in it (for a graph's agent node: the node's message in the child). */
  messageId: string;
  call: Pick<ToolCall, 'toolCallId' | 'toolName' | 'input'>;
  /** Chosen by the workflow, so a retried call opens and sends once. */
  childSessionId: string;
  childMessageId: string;
  settings: TurnSettings;
  /** The calling turn's workflow (its session's, or a graph node's turn workflow), told the reply. */
  callerWorkflowId?: string;
}

export function agentCallActivities(deps: {
  db: Db;
  taskQueue: string;
  revisionOf: RevisionOf;
  limits: { agentCallDepth: number; queuedSendsPerUser: number };
}) {
  const { db } = deps;

  /** Opens (or continues) the child session of the callee and takes the message there, then wakes it. */
  async function start(
    input: Omit<AgentCallInput, 'call'>,
    what: {
      callee: (agent: CallableAgent) => boolean;
      calleeLabel: string;
      toolCallId: string;
      text: string;
      continueSessionId?: string;
      runId?: string;
    },
  ): Promise<AgentCallStarted> {
    const { callableAgents } = await deps.revisionOf(input.agentId, input.revision);
    const callee = callableAgents.find(what.callee);
    if (!callee) return { refused: `This agent may not call "${what.calleeLabel}".` };
    const state = await agentState(db, callee.agentId);
    if (!state || state.deleted) return { refused: `The agent "${callee.name}" no longer exists.` };
    const started = await startAgentCall(db, {
      parentSessionId: input.sessionId,
      userId: input.userId,
      messageId: input.messageId,
      toolCallId: what.toolCallId,
      agent: {
        name: callee.name,
        agentId: callee.agentId,
        revision: callee.revision ?? pickRevision({ revision: state.currentRevision, traffic: state.traffic }),
      },
      text: what.text,
      ...(what.continueSessionId ? { continueSessionId: what.continueSessionId } : {}),
      ...(what.runId ? { runId: what.runId } : {}),
      ...(input.callerWorkflowId ? { callerWorkflowId: input.callerWorkflowId } : {}),
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
  }

  return {
    async startAgentCall(input: AgentCallInput): Promise<AgentCallStarted> {
      const read = readAgentCallInput(input.call.input);
      if ('problem' in read) return { refused: read.problem };
      // An eval's case replaying a recorded session takes the recorded reply, and no child runs.
      const replayed = await replayedAgentCall(db, () => Context.current().client, input);
      if (replayed) return replayed;
      return start(input, {
        callee: (agent) => agentToolName(agent.name) === input.call.toolName,
        calleeLabel: input.call.toolName,
        toolCallId: input.call.toolCallId,
        text: read.message,
        ...(read.sessionId ? { continueSessionId: read.sessionId } : {}),
      });
    },

    /** A workflow graph's agent node run by another agent: its prompt in a new child session of that agent. */
    async startAgentNode(
      input: Omit<AgentCallInput, 'call'> & { runId: string; nodeId: string; agent: string; prompt: string },
    ): Promise<AgentCallStarted> {
      return start(input, {
        callee: (agent) => agent.name === input.agent,
        calleeLabel: input.agent,
        toolCallId: `node:${input.nodeId}`,
        text: input.prompt,
        runId: input.runId,
      });
    },

    /**
     * The child's turn ended: its reply is the call's answer, stored in the caller's inbox, then handed to
     * the caller's workflow in a signal (false: the caller's turn has ended, nobody waits).
     */
    async endAgentCall(input: AgentCallEnd): Promise<{ stored: boolean }> {
      return { stored: await handBackAgentCall(db, Context.current().client, input) };
    },

    /** A graph's agent node run by another agent ended: its event in the run's session, and what the run reads. */
    async endAgentNode(input: AgentCallEnd): Promise<AgentNodeEnd> {
      const end = await endAgentNode(db, input);
      return { turnId: input.turnId, ...end };
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
