// One agent as an MCP server, built for one HTTP request (the transport is stateless: any API process
// answers any request, and nothing is kept between them). Its tools are listed by api/mcp/agent-tools.ts
// and run here through the same functions as the API's routes; its resources are the agent's sessions.
// A tool that fails for a reason the caller can act on (a busy session, an unknown command argument, a
// budget spent) answers `isError` with the problem in words, as MCP asks, so a model can correct itself;
// an unknown tool or resource is a JSON-RPC error; anything else is the SDK's internal error, never a 500.
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { Ajv, type ValidateFunction } from 'ajv';
import type { Bundle } from '../../lib/bundle/index.ts';
import type { Scope } from '../../contract/scopes.ts';
import { NotFoundError, ServiceError } from '../../lib/workflow-safe/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Agent } from '../../store/agents.ts';
import { createSession, listAgentSessions, type Session } from '../../store/sessions.ts';
import { listMessages } from '../../store/messages.ts';
import type { CommandBody } from '../../contract/operations/commands.ts';
import type { IfBusy } from '../../contract/if-busy.ts';
import { toFieldErrors } from '../validation.ts';
import { loadOwnedSession, loadSendableSession } from '../sessions/access.ts';
import { commandMessage, commandSession, planCommand } from '../sessions/command-plan.ts';
import { sessionWaitingFor } from '../sessions/waiting-for.ts';
import { commandTools, COMMAND_TOOL_PREFIX, fixedTools, GET_SESSION, LIST_SESSIONS, SEND_MESSAGE, SEND_SCOPE } from './agent-tools.ts';
import type { McpServerSdk } from './sdk.ts';
import { runTurnCall, type McpCall } from './turn-call.ts';
import { pickRevision } from '../../lib/revision-traffic.ts';

/**
 * Compiled argument schemas, by their JSON: an agent's tools are the same request after request. An
 * instance of their own, whose cache (ajv keeps every schema it compiled) is emptied of an evicted one.
 */
const toolArguments = new Ajv({ allErrors: true, strict: true });
const validators = new Map<string, ValidateFunction>();
const MAX_VALIDATORS = 500;

function validatorFor(tool: Tool): ValidateFunction {
  const key = JSON.stringify(tool.inputSchema);
  let validate = validators.get(key);
  if (!validate) {
    if (validators.size >= MAX_VALIDATORS) {
      const [oldest, evicted] = validators.entries().next().value!;
      validators.delete(oldest);
      toolArguments.removeSchema(evicted.schema as object);
    }
    validate = toolArguments.compile(tool.inputSchema);
    validators.set(key, validate);
  }
  return validate;
}

/** JSON-RPC's and MCP's error codes answered here. */
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;
const RESOURCE_NOT_FOUND = -32002;

/**
 * A protocol error as the SDK answers a thrown one (its `code`, its `message`, its `data`). Not the SDK's
 * McpError, whose message starts with "MCP error <code>:", which a client's own McpError says again.
 */
function protocolError(code: number, message: string, data?: unknown): Error {
  return Object.assign(new Error(message), { code, ...(data !== undefined ? { data } : {}) });
}

const SESSION_URI = /^session:\/\/([A-Za-z0-9_-]{1,64})$/;
/** Sessions listed as resources: the newest; older ones are read through the template. */
const LISTED_SESSIONS = 50;
const DEFAULT_MESSAGES = 20;

export interface AgentServerContext {
  sdk: McpServerSdk;
  agent: Agent;
  /** The agent's current bundle, read when a request needs it (its commands' tools); once per request. */
  bundle: () => Promise<Bundle>;
  /** Everything a tool call needs but the request id, its progress and its signal. */
  call: Omit<McpCall, 'requestId' | 'progress' | 'wantsProgress'>;
}

/**
 * A tool's failure, in words. No structured content: a client checks any it gets against the tool's
 * output schema, which describes a turn's answer, not a failure.
 */
const failed = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });

function sessionSummary(session: Session) {
  return {
    id: session.id,
    status: session.status,
    createdAt: session.createdAt.toISOString(),
    updatedAt: session.updatedAt.toISOString(),
    ...(session.parentSessionId ? { parentSessionId: session.parentSessionId } : {}),
  };
}

export function buildAgentServer(context: AgentServerContext) {
  const { sdk, agent, bundle } = context;
  const { deps, principal } = context.call;
  const { types } = sdk;
  const fixed = fixedTools(agent.name, principal.scopes);
  /** The tool named `name` this key may call: a fixed one, or (reading the bundle) a command's. */
  async function toolNamed(name: string, scopes: readonly Scope[]): Promise<Tool | undefined> {
    if (!name.startsWith(COMMAND_TOOL_PREFIX)) return fixedTools(agent.name, scopes).find((tool) => tool.name === name);
    return commandTools(agent.name, await bundle(), scopes).find((tool) => tool.name === name);
  }
  const server = new sdk.Server(
    { name: `agent-${agent.name}`, title: agent.name, version: String(agent.revision) },
    {
      capabilities: { tools: {}, resources: {} },
      instructions:
        `The agent "${agent.name}" (revision ${agent.revision}). Talk to it with send_message; keep the sessionId of an ` +
        'answer to continue that conversation. Its sessions are resources (session://<id>) and readable with get_session.',
    },
  );

  /** A session of this agent, its owner's: another agent's session is not this server's to touch. */
  async function ownSession(id: string, sendable: boolean): Promise<Session> {
    const session = sendable ? await loadSendableSession(deps, principal, id) : await loadOwnedSession(deps.db, principal, id);
    if (session.agentId !== agent.id) throw new NotFoundError(`Session "${id}" is not a session of the agent "${agent.name}"`);
    return session;
  }

  async function run(name: string, args: Record<string, unknown>, call: McpCall): Promise<CallToolResult> {
    if (name === SEND_MESSAGE) {
      const session = args.sessionId
        ? await ownSession(String(args.sessionId), true)
        : await createSession(deps.db, { userId: agent.userId, agentId: agent.id, revision: pickRevision(agent) });
      return runTurnCall(call, session, {
        session,
        parts: [{ type: 'text', text: String(args.message) }],
        ifBusy: (args.ifBusy as IfBusy | undefined) ?? 'queue',
        body: { parts: [{ type: 'text', text: args.message }] },
      });
    }
    if (name === GET_SESSION) {
      const session = await ownSession(String(args.sessionId), false);
      const [waiting, messages] = await Promise.all([sessionWaitingFor(deps, session), listMessages(deps.db, session.id)]);
      const newest = messages.slice(-Number(args.limit ?? DEFAULT_MESSAGES));
      const view = { ...sessionSummary(session), ...waiting, messages: newest };
      const reply = messages.filter((message) => message.role === 'assistant').at(-1);
      const text = reply?.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('') ?? '';
      return {
        content: [{ type: 'text', text: `Session ${session.id} is ${view.status}.${text ? ` Its last reply:\n\n${text}` : ''}` }],
        structuredContent: view,
      };
    }
    if (name === LIST_SESSIONS) {
      const limit = Number(args.limit ?? 20);
      const found = await listAgentSessions(deps.db, agent.id, {
        limit: limit + 1,
        ...(args.before ? { before: String(args.before) } : {}),
      });
      const sessions = found.slice(0, limit).map(sessionSummary);
      const next = found.length > limit ? sessions.at(-1)!.id : null;
      const lines = sessions.map((session) => `${session.id} ${session.status} (updated ${session.updatedAt})`);
      return {
        content: [{ type: 'text', text: lines.length ? lines.join('\n') : `The agent "${agent.name}" has no sessions yet.` }],
        structuredContent: { sessions, next },
      };
    }
    // A command's tool (the listing only offers those of the bundle).
    const command = name.slice(COMMAND_TOOL_PREFIX.length);
    const body = args as CommandBody;
    const plan = await planCommand(deps, principal, agent, command, body);
    const session = await commandSession(deps, plan, newId('ses'));
    const { parentSessionId, ...message } = commandMessage(plan, newId('msg'));
    return runTurnCall(
      call,
      session,
      { session, ...message, ifBusy: 'queue', body: { command, ...body } },
      parentSessionId ? { parentSessionId } : {},
    );
  }

  server.setRequestHandler(types.ListToolsRequestSchema, async () => ({
    tools: [...fixed, ...commandTools(agent.name, await bundle(), principal.scopes)],
  }));

  server.setRequestHandler(types.CallToolRequestSchema, async (request, extra) => {
    const { name } = request.params;
    const args = request.params.arguments ?? {};
    const tool = await toolNamed(name, principal.scopes);
    if (!tool) {
      if (await toolNamed(name, [SEND_SCOPE])) {
        return failed(`The tool ${name} starts a turn: it needs a key with the "${SEND_SCOPE}" scope`);
      }
      throw protocolError(INVALID_PARAMS, `The agent "${agent.name}" has no tool "${name}"`);
    }
    const validate = validatorFor(tool);
    if (!validate(args)) {
      const problems = toFieldErrors(validate.errors).map((error) => `${error.path || '/'} ${error.message}`);
      return failed(`The arguments of ${name} are not valid: ${problems.join('; ')}`);
    }
    const progressToken = extra._meta?.progressToken;
    let sent = 0;
    const call: McpCall = {
      ...context.call,
      requestId: extra.requestId,
      wantsProgress: progressToken !== undefined,
      progress(message) {
        if (progressToken === undefined) return;
        sent += 1;
        extra
          .sendNotification({ method: 'notifications/progress', params: { progressToken, progress: sent, message } })
          .catch(() => undefined);
      },
    };
    try {
      return await run(name, args, call);
    } catch (error) {
      if (error instanceof ServiceError) {
        const fields = (error.extra().errors as { path: string; message: string }[] | undefined) ?? [];
        const details = fields.map((field) => `${field.path} ${field.message}`).join('; ');
        return failed(`${error.title} (${error.status}): ${error.message}${details ? ` (${details})` : ''}`);
      }
      context.call.req.log.error({ err: error, tool: name }, 'an MCP tool call failed');
      throw protocolError(INTERNAL_ERROR, `The tool ${name} failed on the server (trace id ${context.call.req.traceId})`);
    }
  });

  server.setRequestHandler(types.ListResourcesRequestSchema, async () => {
    const sessions = await listAgentSessions(deps.db, agent.id, { limit: LISTED_SESSIONS });
    return {
      resources: sessions.map((session) => ({
        uri: `session://${session.id}`,
        name: session.id,
        title: `Session ${session.id} (${session.status})`,
        mimeType: 'application/json',
      })),
    };
  });

  server.setRequestHandler(types.ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      {
        uriTemplate: 'session://{sessionId}',
        name: 'session',
        title: `A session of ${agent.name}`,
        description: 'The session as JSON: its status, what it waits for, and every message',
        mimeType: 'application/json',
      },
    ],
  }));

  server.setRequestHandler(types.ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    const id = SESSION_URI.exec(uri)?.[1];
    if (!id) throw protocolError(INVALID_PARAMS, `Unknown resource "${uri}": resources are session://<id>`);
    let session: Session;
    try {
      session = await ownSession(id, false);
    } catch (error) {
      if (error instanceof ServiceError) throw protocolError(RESOURCE_NOT_FOUND, `Resource not found: ${error.message}`, { uri });
      context.call.req.log.error({ err: error, uri }, 'reading an MCP resource failed');
      throw protocolError(INTERNAL_ERROR, `Reading ${uri} failed on the server (trace id ${context.call.req.traceId})`);
    }
    const [waiting, messages] = await Promise.all([sessionWaitingFor(deps, session), listMessages(deps.db, session.id)]);
    return {
      contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ ...sessionSummary(session), ...waiting, messages }) }],
    };
  });

  return server;
}
