// The A2A operations of one agent, for one signed-in user, on the service's own records: the SDK speaks
// the protocol (JSON-RPC, its errors, SSE framing) and calls these. A task is a turn and its context the
// session (store/turn-tasks.ts), so nothing is kept for A2A and any API process answers any request:
// a message is taken as any send is (same events, usage, budgets, limits, webhooks and traces), a task
// is read from the session's events, a stream follows them through the event hub, and a cancellation is
// the turn's abort. A turn that waits on a person or a client is `input-required`, saying what it waits
// on; it goes on by itself once answered there, and GetTask reads it then.
import type { Request } from 'express';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import type { AgentCard, Message, SendMessageRequest, StreamResponse, Task, TaskPushNotificationConfig } from '@a2a-js/sdk';
import type { SessionEvent } from '../../contract/events.ts';
import { isTurnEnd, turnEventFilter } from '../../contract/turn-events.ts';
import { TERMINAL_TURN_EVENTS } from '../../contract/events.ts';
import { COMMAND_BODY_SCHEMA } from '../../contract/operations/commands.ts';
import { MAX_TEXT_PART_CHARS } from '../../contract/operations/sessions.ts';
import { ajv, validator } from '../validation.ts';
import type { CommandBody } from '../../contract/operations/commands.ts';
import { newId } from '../../lib/ids.ts';
import { ServiceError } from '../../lib/workflow-safe/errors.ts';
import type { Principal } from '../../store/api-keys.ts';
import type { Agent } from '../../store/agents.ts';
import { turnMessages } from '../../store/messages.ts';
import { createSession, getSession, type Session } from '../../store/sessions.ts';
import { countTurnTasks, listTurnTasks, turnTask, type TurnTask } from '../../store/turn-tasks.ts';
import type { ApiDeps } from '../context.ts';
import { publicBaseUrl } from '../public-url.ts';
import { loadSendableSession } from '../sessions/access.ts';
import { commandMessage, commandSession, planCommand } from '../sessions/command-plan.ts';
import { takeMessage } from '../sessions/send.ts';
import { sessionWaitingFor } from '../sessions/waiting-for.ts';
import { abortTurn } from '../sessions/workflows.ts';
import { turnResult } from '../streaming/turn-answer.ts';
import { describeWait } from '../sessions/waiting-text.ts';
import type { A2aSdk } from './sdk.ts';
import { STATE, taskView, textPart } from './task-view.ts';
import { pickRevision } from '../../lib/revision-traffic.ts';
import { createOutboundClient } from '../../lib/outbound.ts';
import {
  countPushConfigs,
  deletePushConfig,
  getPushConfig,
  listPushConfigs,
  PUSH_LIMITS,
  PushLimitError,
  savePushConfig,
  type PushConfig,
} from '../../store/a2a-push.ts';
import { startRecordedDeliveries } from '../webhooks/publish.ts';

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
  const outbound = createOutboundClient({ allowCidrs: deps.config.outbound.allowCidrs });

  /**
   * A refusal of ours as the protocol's error, in words: a client's mistake (4xx) as a malformed request;
   * what says "later" (a full queue, a rate, a part down) as an internal error, which a client may retry.
   */
  async function refusedAsProtocol<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      const said = `${error.title}: ${error.message}`;
      if (error.status >= 500 || error.status === 429) throw new Error(said);
      throw new errors.RequestMalformedError(said);
    }
  }

  /** Starting or aborting a turn needs what a send or an abort needs through the API. */
  function mayAct(): void {
    if (!principal.scopes.includes('sessions:write')) {
      throw new errors.UnsupportedOperationError('Starting or cancelling a task needs a key with the "sessions:write" scope');
    }
  }

  /**
   * What a started, unended turn waits on, or undefined: its questions (a session's unanswered approvals are
   * its running turn's), its client calls or the agents it called that wait. Read before the session says
   * `waiting`, which it does a moment after a step's client calls are written.
   */
  async function waitingOn(task: TurnTask): Promise<object | undefined> {
    const session = await getSession(deps.db, task.sessionId);
    return session ? (await sessionWaitingFor(deps, { ...session, status: 'waiting' })).waitingFor : undefined;
  }

  /** The task as it stands: its state (waiting decided here, the same way everywhere), history and reply. */
  async function readTask(read: TurnTask, historyLength?: number): Promise<{ task: TurnTask; view: Task; waitText?: string }> {
    const waiting = read.state === 'running' || read.state === 'waiting' ? await waitingOn(read) : undefined;
    const task: TurnTask = waiting ? { ...read, state: 'waiting' } : read.state === 'waiting' ? { ...read, state: 'running' } : read;
    const messages = await turnMessages(deps.db, task.sessionId, task.taskId);
    const waitText = waiting ? describeWait(waiting, task.sessionId, base) : undefined;
    const view = taskView(task, messages, base, {
      ...(waitText ? { statusText: waitText } : {}),
      ...(historyLength !== undefined ? { historyLength } : {}),
    });
    return { task, view, ...(waitText ? { waitText } : {}) };
  }

  async function loadTask(id: string): Promise<TurnTask> {
    const task = await turnTask(deps.db, owner, id);
    if (!task) throw new errors.TaskNotFoundError(`No task "${id}" of the agent "${agent.name}"`);
    return task;
  }

  /** The session a message goes to: its context (a session of this agent), or a new one. */
  async function sessionOf(contextId: string): Promise<Session> {
    if (!contextId) return createSession(deps.db, { userId: agent.userId, agentId: agent.id, revision: pickRevision(agent) });
    const session = await refusedAsProtocol(() => loadSendableSession(deps, principal, contextId));
    if (session.agentId !== agent.id) {
      throw new errors.RequestMalformedError(`"${contextId}" is not a context of the agent "${agent.name}"`);
    }
    return session;
  }

  /** A custom command named in a message's metadata: checked as the API checks a command's body. */
  async function takeCommand(message: Message, command: string): Promise<Taken> {
    const { command: _name, ...rest } = message.metadata as Record<string, unknown>;
    const body = { ...rest, ...(message.contextId ? { sessionId: message.contextId } : {}) };
    const checked = checkCommandBody(body) as CommandBody;
    const plan = await planCommand(deps, principal, agent, command, checked);
    if (plan.target.id !== agent.id) {
      throw new errors.UnsupportedOperationError(`The command "${command}" runs on another agent ("${plan.target.name}"): call that agent`);
    }
    const session = await commandSession(deps, plan, newId('ses'));
    const { parentSessionId: _parent, ...sent } = commandMessage(plan, newId('msg'));
    const taken = await takeMessage(
      deps,
      { ...sent, req: context.req, session, ifBusy: 'queue', body: { command, ...checked } },
      { keyed: false },
    );
    return { session, taskId: taken.messageId, seq: taken.seq };
  }

  /** Takes the message as a send (or a custom command's, named in its metadata): its task and first event. */
  async function take(params: SendMessageRequest): Promise<Taken> {
    mayAct();
    const message = params.message;
    if (!message) throw new errors.RequestMalformedError('The request has no message');
    if (message.taskId) {
      // A message to a task: ours end, or wait on someone this message cannot stand in for (a person's
      // approval, a client's tool result), each answered where the task's status says.
      const { task, waitText } = await readTask(await loadTask(message.taskId));
      throw new errors.UnsupportedOperationError(
        task.state === 'waiting'
          ? `Task "${task.taskId}" waits on someone, not on a message. ${waitText ?? ''}`
          : `Task "${task.taskId}" is ${task.state}: send a new message in its context (${task.sessionId}), without a taskId`,
      );
    }
    const command = typeof message.metadata?.command === 'string' ? message.metadata.command : undefined;
    return refusedAsProtocol(async () => {
      if (command) return takeCommand(message, command);
      const text = textOf(message);
      if (!text) throw new errors.RequestMalformedError('The message has no text part');
      if (text.length > MAX_TEXT_PART_CHARS)
        throw new errors.RequestMalformedError(`The message's text is longer than ${MAX_TEXT_PART_CHARS} characters`);
      const session = await sessionOf(message.contextId);
      const parts = [{ type: 'text' as const, text }];
      const taken = await takeMessage(deps, { req: context.req, session, parts, ifBusy: 'queue', body: { parts } }, { keyed: false });
      return { session, taskId: taken.messageId, seq: taken.seq };
    });
  }

  /**
   * The task's updates as A2A stream responses, from `afterSeq` until it ends or waits on someone: its
   * state, and each reply's text as it is written, one artifact per reply message (a retried step's
   * reply starts a new one).
   */
  async function* follow(session: Session, ids: { taskId: string; turnId: string }, afterSeq: number): AsyncGenerator<StreamResponse> {
    const { taskId } = ids;
    const ours = turnEventFilter(ids.turnId, taskId);
    /** The artifact of each reply message: its attempt (a retry starts over) and whether it has begun. */
    const artifacts = new Map<string, { id: string; begun: boolean }>();
    const status = (state: (typeof STATE)[keyof typeof STATE]): StreamResponse => ({
      payload: {
        $case: 'statusUpdate',
        value: {
          taskId,
          contextId: session.id,
          status: { state, message: undefined, timestamp: new Date().toISOString() },
          metadata: undefined,
        },
      },
    });
    for await (const batch of deps.events.follow(session.id, afterSeq, context.signal)) {
      for (const event of batch as SessionEvent[]) {
        // A regenerated turn has an id of its own (`ids.turnId`), its events the task's message as userMessageId.
        if (!ours(event)) continue;
        if (event.type === 'turn.started') yield status(STATE.working);
        else if (event.type === 'step.retry')
          artifacts.set(event.messageId, { id: `reply-${event.messageId}-${event.attempt}`, begun: false });
        else if (event.type === 'message.part.delta') {
          const artifact = artifacts.get(event.messageId) ?? { id: `reply-${event.messageId}`, begun: false };
          artifacts.set(event.messageId, { ...artifact, begun: true });
          yield {
            payload: {
              $case: 'artifactUpdate',
              value: {
                taskId,
                contextId: session.id,
                artifact: {
                  artifactId: artifact.id,
                  name: 'reply',
                  description: '',
                  parts: [textPart(event.delta)],
                  metadata: undefined,
                  extensions: [],
                },
                append: artifact.begun,
                lastChunk: false,
                metadata: undefined,
              },
            },
          };
        } else if (
          TERMINAL_TURN_EVENTS.includes(event.type) ||
          event.type === 'approval.requested' ||
          event.type === 'subagent.waiting' ||
          (event.type === 'tool.call' && event.executor === 'client')
        ) {
          const { task, view } = await readTask(await loadTask(taskId));
          // A question already answered, or a client call already posted: the turn goes on.
          if (task.state === 'running' || task.state === 'queued') continue;
          yield { payload: { $case: 'task', value: view } };
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
      const historyLength = checkedHistory(params.configuration?.historyLength);
      const push = await pushAsked(params);
      const taken = await take(params);
      if (push) await keepPush(taken.taskId, push);
      if (!params.configuration?.returnImmediately) {
        await turnResult(deps, {
          sessionId: taken.session.id,
          turnId: taken.taskId,
          userMessageId: taken.taskId,
          firstSeq: taken.seq,
          signal: context.signal,
        });
      }
      return (await readTask(await loadTask(taken.taskId), historyLength)).view;
    },

    async *sendMessageStream(params) {
      const push = await pushAsked(params);
      const taken = await take(params);
      if (push) await keepPush(taken.taskId, push);
      yield { payload: { $case: 'task', value: (await readTask(await loadTask(taken.taskId))).view } };
      yield* follow(taken.session, { taskId: taken.taskId, turnId: taken.taskId }, taken.seq);
    },

    async getTask(params) {
      return (await readTask(await loadTask(params.id), checkedHistory(params.historyLength))).view;
    },

    async listTasks(params) {
      const pageSize = params.pageSize ?? DEFAULT_PAGE;
      if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE) {
        throw new errors.RequestMalformedError(`pageSize must be an integer from 1 to ${MAX_PAGE}`);
      }
      const historyLength = checkedHistory(params.historyLength);
      const sessionId = params.contextId || undefined;
      const found = await listTurnTasks(deps.db, owner, {
        limit: pageSize + 1,
        ...(sessionId ? { sessionId } : {}),
        ...(params.pageToken ? { before: params.pageToken } : {}),
      });
      const page = found.slice(0, pageSize);
      // One at a time: a page of 100 tasks is 100 reads, not 100 connections at once.
      const tasks: Task[] = [];
      for (const task of page) {
        const { view } = await readTask(task, historyLength);
        // The state asked for, as GetTask reads it (a page may then hold fewer than pageSize).
        if (!params.status || view.status?.state === params.status) tasks.push(view);
      }
      return {
        tasks,
        nextPageToken: found.length > pageSize ? page.at(-1)!.taskId : '',
        pageSize,
        totalSize: await countTurnTasks(deps.db, owner, sessionId),
      };
    },

    async cancelTask(params) {
      mayAct();
      const found = await loadTask(params.id);
      if (found.state === 'aborted') return (await readTask(found)).view;
      if (found.state === 'completed' || found.state === 'failed') {
        throw new errors.TaskNotCancelableError(`Task "${found.taskId}" is ${found.state} already`);
      }
      const session = await refusedAsProtocol(() => loadSendableSession(deps, principal, found.sessionId));
      const before = session.lastSeq;
      await refusedAsProtocol(() => abortTurn(deps, session, found.turnId));
      const deadline = AbortSignal.any([context.signal, AbortSignal.timeout(CANCEL_WAIT_MS)]);
      const ended = (event: SessionEvent) => isTurnEnd(event, found.turnId);
      for await (const batch of deps.events.follow(session.id, before, deadline)) {
        if ((batch as SessionEvent[]).some(ended)) break;
      }
      return (await readTask(await loadTask(found.taskId))).view;
    },

    async *resubscribe(params) {
      const found = await loadTask(params.id);
      // Where the stream starts is read before the state, so an end between the two is still seen.
      const session = (await getSession(deps.db, found.sessionId))!;
      const { task, view } = await readTask(await loadTask(found.taskId));
      yield { payload: { $case: 'task', value: view } };
      if (task.state !== 'running' && task.state !== 'queued') return;
      yield* follow(session, task, session.lastSeq);
    },

    async createTaskPushNotificationConfig(params) {
      const checked = await checkedPush(params);
      return pushConfigView(await keepPush(params.taskId, checked));
    },

    async getTaskPushNotificationConfig(params) {
      // A config holds the token and credentials its notifications carry: a key that may make one reads them.
      mayAct();
      const task = await loadTask(params.taskId);
      const found = await getPushConfig(deps.db, deps.masterKeys, task.taskId, params.id);
      if (!found) throw new errors.TaskNotFoundError(`Task "${task.taskId}" has no push notification config "${params.id}"`);
      return pushConfigView(found);
    },

    async listTaskPushNotificationConfigs(params) {
      mayAct();
      const task = await loadTask(params.taskId);
      // At most PUSH_LIMITS.perTask: one page.
      return { configs: (await listPushConfigs(deps.db, deps.masterKeys, task.taskId)).map(pushConfigView), nextPageToken: '' };
    },

    async deleteTaskPushNotificationConfig(params) {
      mayAct();
      const task = await loadTask(params.taskId);
      if (!(await deletePushConfig(deps.db, task.taskId, params.id))) {
        throw new errors.TaskNotFoundError(`Task "${task.taskId}" has no push notification config "${params.id}"`);
      }
    },
  };

  /**
   * A push config as asked, checked before anything is kept or started (a message's config is checked
   * before its turn is taken): its URL as a webhook's is (each notification goes through the outbound guard
   * too), its id, token and credentials bounded to what a header carries, and room for it under the user's bound.
   */
  async function checkedPush(params: Omit<TaskPushNotificationConfig, 'taskId' | 'tenant'>): Promise<CheckedPush> {
    mayAct();
    let url: URL;
    try {
      url = outbound.checkUrl(params.url);
    } catch (error) {
      throw new errors.RequestMalformedError(`The push notification URL is refused: ${(error as Error).message}`);
    }
    if (url.href.length > MAX_PUSH_URL_CHARS)
      throw new errors.RequestMalformedError(`The push notification URL is longer than ${MAX_PUSH_URL_CHARS} characters`);
    const id = params.id || newId('pnc');
    if (!/^[A-Za-z0-9._-]{1,64}$/.test(id))
      throw new errors.RequestMalformedError('A push notification config id is 1 to 64 letters, digits, ".", "_" or "-"');
    const token = params.token ?? '';
    if (token && !HEADER_VALUE.test(token))
      throw new errors.RequestMalformedError(`The token must be printable ASCII, at most ${MAX_PUSH_SECRET_CHARS} characters`);
    const auth = params.authentication;
    if (auth && (!/^[A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]{0,63}$/.test(auth.scheme) || !HEADER_VALUE.test(auth.credentials))) {
      throw new errors.RequestMalformedError(
        `authentication needs an HTTP scheme name (such as "Bearer") and credentials of printable ASCII, at most ${MAX_PUSH_SECRET_CHARS} characters`,
      );
    }
    if ((await countPushConfigs(deps.db, principal.userId)) >= PUSH_LIMITS.perUser) {
      throw new errors.RequestMalformedError(
        `A user has at most ${PUSH_LIMITS.perUser} push configs; delete some (they also go a week after their task ends)`,
      );
    }
    return { id, url: url.href, token, ...(auth ? { authentication: { scheme: auth.scheme, credentials: auth.credentials } } : {}) };
  }

  /** Keeps a checked push config of a task of this agent; one made after the task ended is sent that end at once. */
  async function keepPush(taskId: string, checked: CheckedPush): Promise<PushConfig> {
    const task = await loadTask(taskId);
    try {
      const { config, ended } = await savePushConfig(deps.db, deps.masterKey, {
        ...checked,
        taskId: task.taskId,
        sessionId: task.sessionId,
        userId: principal.userId,
        turnId: task.turnId,
      });
      // Started now, within the API's Temporal deadline; one not started waits for the housekeeping pass.
      if (ended[0]) {
        const deliveries = ended.map((delivery) => ({ id: delivery.deliveryId, subscriptionId: delivery.label }));
        await startRecordedDeliveries(deps, ended[0].type, { userId: principal.userId, deliveries });
      }
      return config;
    } catch (error) {
      if (error instanceof PushLimitError) throw new errors.RequestMalformedError(error.message);
      throw error;
    }
  }

  /** The push config sent with a message (`configuration.taskPushNotificationConfig`), checked before its turn is taken. */
  async function pushAsked(params: SendMessageRequest): Promise<CheckedPush | undefined> {
    const asked = params.configuration?.taskPushNotificationConfig;
    return asked?.url ? checkedPush(asked) : undefined;
  }

  /** historyLength as the SDK reads it: none means all, zero or less means none. */
  function checkedHistory(value: number | undefined): number | undefined {
    if (value === undefined) return undefined;
    if (!Number.isInteger(value)) throw new errors.RequestMalformedError('historyLength must be an integer');
    return Math.max(0, value);
  }
}

interface Taken {
  session: Session;
  /** The message's id: the task's. */
  taskId: string;
  /** seq of its message.created. */
  seq: number;
}

const MAX_PUSH_URL_CHARS = 2_048;
const MAX_PUSH_SECRET_CHARS = 4_096;
/** What an HTTP header value carries whole: printable ASCII, spaces inside only. */
const HEADER_VALUE = new RegExp(`^[\\x21-\\x7E](?:[\\x20-\\x7E]{0,${MAX_PUSH_SECRET_CHARS - 2}}[\\x21-\\x7E])?$`);

type CheckedPush = Pick<PushConfig, 'id' | 'url' | 'token' | 'authentication'>;

/** A config as A2A shows it, to the user who made it: the token and credentials are theirs. */
function pushConfigView(config: PushConfig): TaskPushNotificationConfig {
  return {
    tenant: '',
    id: config.id,
    taskId: config.taskId,
    url: config.url,
    token: config.token,
    authentication: config.authentication
      ? { scheme: config.authentication.scheme, credentials: config.authentication.credentials }
      : undefined,
  };
}

const checkCommandBody = validator<CommandBody>(ajv.compile(COMMAND_BODY_SCHEMA), 'command metadata');
