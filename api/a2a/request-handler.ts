// The A2A operations of one agent, for one signed-in user, on the service's own records: the SDK speaks
// the protocol (JSON-RPC, its errors, SSE framing) and calls these. A task is a turn and its context the
// session (store/turn-tasks.ts), so nothing is kept for A2A and any API process answers any request:
// a message is taken as any send is (same events, usage, budgets, limits, webhooks and traces), a task
// is read from the session's events, a stream follows them through the event hub, and a cancellation is
// the turn's abort. A turn that waits on a person or a client is `input-required`, saying what it waits
// on; it goes on by itself once answered there, and GetTask reads it then.
import type { Request } from 'express';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import type { AgentCard, Message, SendMessageRequest, StreamResponse, Task } from '@a2a-js/sdk';
import type { SessionEvent } from '../../contract/events.ts';
import { isTurnEnd, isTurnQuestion, turnEventFilter } from '../../contract/turn-events.ts';
import type { CommandBody } from '../../contract/operations/commands.ts';
import { newId } from '../../lib/ids.ts';
import { ServiceError } from '../../lib/workflow-safe/errors.ts';
import type { Principal } from '../../store/api-keys.ts';
import type { Agent } from '../../store/agents.ts';
import { turnMessages } from '../../store/messages.ts';
import { createSession, getSession, type Session } from '../../store/sessions.ts';
import { listApprovals } from '../../store/approvals.ts';
import { listTurnTasks, turnTask, type TurnTask } from '../../store/turn-tasks.ts';
import type { ApiDeps } from '../context.ts';
import { publicBaseUrl } from '../public-url.ts';
import { loadSendableSession } from '../sessions/access.ts';
import { commandMessage, commandSession, planCommand } from '../sessions/command-plan.ts';
import { takeMessage } from '../sessions/send.ts';
import { sessionWaitingFor } from '../sessions/waiting-for.ts';
import { abortTurn } from '../sessions/workflows.ts';
import { turnResult } from '../streaming/turn-answer.ts';
import { describeWait } from '../mcp/waiting-text.ts';
import type { A2aSdk } from './sdk.ts';
import { agentMessage, STATE, taskView, textPart } from './task-view.ts';

const MAX_PAGE = 100;
const DEFAULT_PAGE = 50;
/** How long a cancellation waits to see the turn end before answering the task as it then is. */
const CANCEL_WAIT_MS = 10_000;

export interface A2aContext {
  deps: ApiDeps;
  sdk: A2aSdk;
  req: Request;
  principal: Principal;
  agent: Agent;
  card: AgentCard;
  /** Ends streams and waits: the client went away (the turn goes on). */
  signal: AbortSignal;
}

const textOf = (message: Message) =>
  message.parts.flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : [])).join('\n');

export function agentA2aHandler(context: A2aContext): A2ARequestHandler {
  const { deps, sdk, principal, agent } = context;
  const { errors } = sdk;
  const owner = { userId: principal.userId, agentId: agent.id };
  const base = publicBaseUrl(deps.config, context.req);

  /** A refusal of ours (a busy session, a spent budget) as the protocol's error, in words. */
  async function refusedAsProtocol<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof ServiceError) throw new errors.RequestMalformedError(`${error.title}: ${error.message}`);
      throw error;
    }
  }

  /**
   * What a started, unended turn waits on, or undefined: its questions (a session's unanswered approvals are
   * its running turn's), its client calls or the agents it called that wait. Read before the session says
   * `waiting`, which it does a moment after a step's client calls are written.
   */
  async function waitingOn(task: TurnTask): Promise<object | undefined> {
    const { approvals } = await listApprovals(deps.db, principal.userId, { status: 'unanswered', sessionId: task.sessionId, limit: 1 });
    if (approvals.length) return { kind: 'approval', ...approvals[0]! };
    const session = await getSession(deps.db, task.sessionId);
    return session ? (await sessionWaitingFor(deps, { ...session, status: 'waiting' })).waitingFor : undefined;
  }

  async function readTask(read: TurnTask, historyLength?: number): Promise<Task> {
    const waiting = read.state === 'running' || read.state === 'waiting' ? await waitingOn(read) : undefined;
    const task: TurnTask = waiting ? { ...read, state: 'waiting' } : read.state === 'waiting' ? { ...read, state: 'running' } : read;
    const messages = await turnMessages(deps.db, task.sessionId, task.turnId);
    const statusText = waiting ? describeWait(waiting, task.sessionId, base) : undefined;
    return taskView(task, messages, { ...(statusText ? { statusText } : {}), ...(historyLength !== undefined ? { historyLength } : {}) });
  }

  async function loadTask(id: string): Promise<TurnTask> {
    const task = await turnTask(deps.db, owner, id);
    if (!task) throw new errors.TaskNotFoundError(`No task "${id}" of the agent "${agent.name}"`);
    return task;
  }

  /** The session a message goes to: its context (a session of this agent), or a new one. */
  async function sessionOf(contextId: string): Promise<Session> {
    if (!contextId) return createSession(deps.db, { userId: agent.userId, agentId: agent.id, revision: agent.revision });
    const session = await refusedAsProtocol(() => loadSendableSession(deps, principal, contextId));
    if (session.agentId !== agent.id)
      throw new errors.RequestMalformedError(`"${contextId}" is not a context of the agent "${agent.name}"`);
    return session;
  }

  /** Takes the message as a send (or a custom command's, named in its metadata); its turn's id and first event. */
  /** Starting or aborting a turn needs what a send or an abort needs through the API. */
  function mayAct(): void {
    if (!principal.scopes.includes('sessions:write')) {
      throw new errors.UnsupportedOperationError('Starting or cancelling a task needs a key with the "sessions:write" scope');
    }
  }

  async function take(params: SendMessageRequest): Promise<{ session: Session; turnId: string; seq: number; waiting?: Task }> {
    mayAct();
    const message = params.message;
    if (!message) throw new errors.RequestMalformedError('The request has no message');
    if (message.taskId) {
      // A message to a task: ours end or wait on someone else (a person's approval, a client's tool result).
      const task = await loadTask(message.taskId);
      if (task.state === 'waiting')
        return { session: (await getSession(deps.db, task.sessionId))!, turnId: task.turnId, seq: 0, waiting: await readTask(task) };
      throw new errors.UnsupportedOperationError(
        `Task "${task.turnId}" is ${task.state}: send a new message in its context (${task.sessionId}) instead, without a taskId`,
      );
    }
    const command = typeof message.metadata?.command === 'string' ? message.metadata.command : undefined;
    return refusedAsProtocol(async () => {
      if (command) {
        const { command: _name, ...args } = message.metadata as Record<string, unknown>;
        const body = { ...args, ...(message.contextId ? { sessionId: message.contextId } : {}) };
        const plan = await planCommand(deps, principal, agent, command, body as CommandBody);
        const session = await commandSession(deps, plan, newId('ses'));
        const { parentSessionId: _parent, ...sent } = commandMessage(plan, newId('msg'));
        const taken = await takeMessage(
          deps,
          { ...sent, req: context.req, session, ifBusy: 'queue', body: { command, ...body } },
          { keyed: false },
        );
        return { session, turnId: taken.messageId, seq: taken.seq };
      }
      const text = textOf(message);
      if (!text) throw new errors.RequestMalformedError('The message has no text part');
      const session = await sessionOf(message.contextId);
      const parts = [{ type: 'text' as const, text }];
      const taken = await takeMessage(deps, { req: context.req, session, parts, ifBusy: 'queue', body: { parts } }, { keyed: false });
      return { session, turnId: taken.messageId, seq: taken.seq };
    });
  }

  /** The turn's updates as A2A stream responses, from `afterSeq` until it ends or waits on someone. */
  async function* follow(session: Session, turnId: string, afterSeq: number): AsyncGenerator<StreamResponse> {
    const ours = turnEventFilter(turnId, turnId);
    const status = (state: (typeof STATE)[keyof typeof STATE], text?: string): StreamResponse => ({
      payload: {
        $case: 'statusUpdate',
        value: {
          taskId: turnId,
          contextId: session.id,
          status: {
            state,
            message: text ? agentMessage(text, { sessionId: session.id, turnId, messageId: `status-${turnId}-${Date.now()}` }) : undefined,
            timestamp: new Date().toISOString(),
          },
          metadata: undefined,
        },
      },
    });
    for await (const batch of deps.events.follow(session.id, afterSeq, context.signal)) {
      for (const event of batch as SessionEvent[]) {
        if (!ours(event) && !isTurnEnd(event, turnId)) continue;
        if (event.type === 'turn.started') yield status(STATE.working);
        else if (event.type === 'message.part.delta') {
          yield {
            payload: {
              $case: 'artifactUpdate',
              value: {
                taskId: turnId,
                contextId: session.id,
                artifact: {
                  artifactId: `reply-${turnId}`,
                  name: 'reply',
                  description: '',
                  parts: [textPart(event.delta)],
                  metadata: undefined,
                  extensions: [],
                },
                append: true,
                lastChunk: false,
                metadata: undefined,
              },
            },
          };
        } else if (
          isTurnEnd(event, turnId) ||
          isTurnQuestion(event, turnId) ||
          (event.type === 'tool.call' && event.executor === 'client')
        ) {
          const task = await readTask(await loadTask(turnId));
          if (task.status?.state === STATE.working || task.status?.state === STATE.submitted) {
            // A question already answered, or a client call already posted: the turn goes on.
            continue;
          }
          yield { payload: { $case: 'task', value: task } };
          return;
        }
      }
    }
  }

  return {
    getAgentCard: () => Promise.resolve(context.card),

    getAuthenticatedExtendedAgentCard: () =>
      Promise.reject(new errors.ExtendedAgentCardNotConfiguredError('This agent has no extended card')),

    async sendMessage(params) {
      const taken = await take(params);
      if (taken.waiting) return taken.waiting;
      if (!params.configuration?.returnImmediately) {
        await turnResult(deps, {
          sessionId: taken.session.id,
          turnId: taken.turnId,
          userMessageId: taken.turnId,
          firstSeq: taken.seq,
          signal: context.signal,
        });
      }
      return readTask(await loadTask(taken.turnId), params.configuration?.historyLength);
    },

    async *sendMessageStream(params) {
      const taken = await take(params);
      if (taken.waiting) {
        yield { payload: { $case: 'task', value: taken.waiting } };
        return;
      }
      yield { payload: { $case: 'task', value: await readTask(await loadTask(taken.turnId)) } };
      yield* follow(taken.session, taken.turnId, taken.seq);
    },

    async getTask(params) {
      return readTask(await loadTask(params.id), params.historyLength);
    },

    async listTasks(params) {
      const pageSize = Math.min(Math.max(params.pageSize ?? DEFAULT_PAGE, 1), MAX_PAGE);
      const found = await listTurnTasks(deps.db, owner, {
        limit: pageSize + 1,
        ...(params.contextId ? { sessionId: params.contextId } : {}),
        ...(params.pageToken ? { before: params.pageToken } : {}),
      });
      const page = found.slice(0, pageSize);
      const wanted = params.status ? page.filter((task) => readStateOf(task) === params.status) : page;
      const tasks = await Promise.all(wanted.map((task) => readTask(task, params.historyLength ?? 0)));
      return { tasks, nextPageToken: found.length > pageSize ? page.at(-1)!.turnId : '', pageSize, totalSize: tasks.length };
    },

    async cancelTask(params) {
      mayAct();
      const task = await loadTask(params.id);
      if (['completed', 'failed', 'aborted'].includes(task.state)) {
        throw new errors.TaskNotCancelableError(`Task "${task.turnId}" is ${task.state} already`);
      }
      const session = (await getSession(deps.db, task.sessionId))!;
      await refusedAsProtocol(() => abortTurn(deps, session, task.turnId));
      const deadline = AbortSignal.any([context.signal, AbortSignal.timeout(CANCEL_WAIT_MS)]);
      for await (const batch of deps.events.follow(session.id, 0, deadline)) {
        if ((batch as SessionEvent[]).some((event) => isTurnEnd(event, task.turnId))) break;
      }
      return readTask(await loadTask(task.turnId));
    },

    async *resubscribe(params) {
      const task = await loadTask(params.id);
      const session = (await getSession(deps.db, task.sessionId))!;
      const now = await readTask(task);
      yield { payload: { $case: 'task', value: now } };
      if (['completed', 'failed', 'aborted', 'waiting'].includes(task.state)) return;
      yield* follow(session, task.turnId, session.lastSeq);
    },

    createTaskPushNotificationConfig: () =>
      Promise.reject(new errors.PushNotificationNotSupportedError('Push notifications are not offered yet')),
    getTaskPushNotificationConfig: () =>
      Promise.reject(new errors.PushNotificationNotSupportedError('Push notifications are not offered yet')),
    listTaskPushNotificationConfigs: () =>
      Promise.reject(new errors.PushNotificationNotSupportedError('Push notifications are not offered yet')),
    deleteTaskPushNotificationConfig: () =>
      Promise.reject(new errors.PushNotificationNotSupportedError('Push notifications are not offered yet')),
  };
}

function readStateOf(task: TurnTask) {
  return {
    queued: STATE.submitted,
    running: STATE.working,
    waiting: STATE.inputRequired,
    completed: STATE.completed,
    failed: STATE.failed,
    aborted: STATE.canceled,
  }[task.state];
}
