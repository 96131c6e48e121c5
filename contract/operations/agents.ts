// Agents: deploying a bundle (a new agent or a new revision), reading and deleting them.
import type { Bundle } from '../bundle.ts';
import { defineOperation, type Received, type ResponseOf } from './operation.ts';
import { ASYNC_QUERY, BUNDLE_REF, STRINGS, TIME } from './shared.ts';
import { REVISION_CHANGE_SCHEMA, REVISION_STATES, TRAFFIC_SCHEMA } from './revisions.ts';

/** What POST /deploy reads: a bundle as JSONC text or JSON. */
export const DEPLOY_CONTENT_TYPES = ['application/jsonc', 'application/json'] as const;

const FIELD_ERRORS = {
  type: 'array',
  items: {
    type: 'object',
    required: ['path', 'message'],
    properties: { path: { type: 'string', description: 'JSON pointer into the bundle' }, message: { type: 'string' } },
  },
} as const;

export const DEPLOYED_SCHEMA = {
  type: 'object',
  required: ['ok', 'agentId', 'revision', 'liveRevision', 'warnings'],
  properties: {
    ok: { const: true },
    agentId: { type: 'string' },
    revision: { type: 'integer', description: 'The revision this deploy stored' },
    liveRevision: { type: 'integer', description: 'The live revision: `revision`, unless the deploy was staged' },
    warnings: STRINGS,
  },
} as const;

/** A failed deploy keeps the `{ok: false, errors}` shape and is a problem document as well. */
export const INVALID_BUNDLE_SCHEMA = {
  type: 'object',
  required: ['ok', 'errors', 'type', 'title', 'status', 'traceId'],
  properties: {
    ok: { const: false },
    errors: FIELD_ERRORS,
    type: { type: 'string', format: 'uri' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    traceId: { type: 'string' },
  },
} as const;

const AGENT_FIELDS = {
  id: { type: 'string' },
  name: { type: 'string' },
  revision: { type: 'integer', description: 'The live revision: new sessions start on it, apart from `traffic` shares' },
  latestRevision: { type: 'integer', description: 'The newest revision, live or staged' },
  traffic: TRAFFIC_SCHEMA,
  model: {
    type: 'object',
    description: 'The model of the live revision',
    required: ['providerId', 'modelId'],
    properties: { providerId: { type: 'string' }, modelId: { type: 'string' } },
  },
  createdAt: TIME,
  updatedAt: TIME,
} as const;

export const AGENT_SUMMARY_SCHEMA = {
  type: 'object',
  required: ['id', 'name', 'revision', 'createdAt', 'updatedAt'],
  properties: AGENT_FIELDS,
} as const;

export const TRIGGER_VIEW_SCHEMA = {
  type: 'object',
  required: ['kind'],
  properties: {
    kind: { enum: ['webhook', 'cron'] },
    url: {
      type: 'string',
      description: 'Webhook triggers: POST here (no key; the URL is the secret). Shown only to keys with agents:write',
    },
    expression: { type: 'string' },
    timezone: { type: 'string' },
    scheduleId: { type: 'string', description: 'Cron triggers: the Temporal Schedule (Web UI, Schedules)' },
    paused: { type: 'boolean', description: 'Cron triggers: an operator paused the schedule (it does not fire)' },
    nextFireTimes: {
      type: 'array',
      maxItems: 5,
      items: TIME,
      description:
        'Cron triggers: the next firings as the schedule plans them (none while paused). Absent while the schedule is being ' +
        'created after a deploy, or when Temporal does not answer within 2 s',
    },
    workflow: { type: 'string' },
  },
} as const;

export const REVISION_SCHEMA = {
  type: 'object',
  required: ['revision', 'createdAt', 'bundle', 'warnings'],
  properties: { revision: { type: 'integer' }, createdAt: TIME, bundle: BUNDLE_REF, warnings: STRINGS },
} as const;

export const deployAgent = defineOperation({
  id: 'deployAgent',
  method: 'post',
  path: '/deploy',
  summary: 'Deploy an agent bundle (creates the agent or adds a revision)',
  description:
    'The body is the bundle as JSONC (`application/jsonc`) or JSON: comments, trailing commas and a top-level `$schema` ' +
    'are accepted; unknown properties are rejected at every level. Its schema is served at /schema/bundle.json. ' +
    'A new agent answers 201, a new revision of an existing one 200. On failure, 400 lists every error with a JSON pointer. ' +
    'A revision is live at once (new sessions start on it; traffic shares end), unless `stage=1`: then it is stored and checked ' +
    'but the live revision keeps serving until `POST /agent/{name}/promote` (or a traffic share) sends sessions to it; a ' +
    'session can be started on it with `POST /agent/{name}/session {revision}`.',
  tag: 'agents',
  auth: { kind: 'scope', scope: 'agents:write' },
  query: {
    type: 'object',
    additionalProperties: false,
    properties: {
      stage: { ...ASYNC_QUERY, description: '1: store the revision without making it live (409 for an agent with no live revision yet)' },
    },
  },
  body: { required: true, contentTypes: DEPLOY_CONTENT_TYPES, schema: BUNDLE_REF },
  responses: {
    200: { description: 'A new revision of an existing agent', schema: DEPLOYED_SCHEMA },
    201: { description: 'A new agent', schema: DEPLOYED_SCHEMA },
    400: {
      description: 'The bundle is not valid; every error is listed (or the request is not valid)',
      schema: { anyOf: [INVALID_BUNDLE_SCHEMA, { $ref: '#/components/schemas/Problem' }] },
      contentType: 'application/problem+json',
    },
    409: { description: 'stage=1 for a name with no agent yet: its first revision must be live' },
  },
});

export const listAgents = defineOperation({
  id: 'listAgents',
  method: 'get',
  path: '/agent',
  summary: 'List your agents',
  tag: 'agents',
  auth: { kind: 'scope', scope: 'read' },
  responses: {
    200: {
      description: 'Your agents by name',
      schema: { type: 'object', required: ['agents'], properties: { agents: { type: 'array', items: AGENT_SUMMARY_SCHEMA } } },
    },
  },
});

/** A custom command as GET /agent/<name> lists it: what it needs (contract/commands.ts reads it from the template). */
export const COMMAND_VIEW_SCHEMA = {
  type: 'object',
  required: ['name', 'template', 'usage', 'positionals', 'flags', 'allArguments', 'subtask'],
  properties: {
    name: { type: 'string' },
    template: { type: 'string' },
    usage: { type: 'string', description: 'e.g. `<1> <2> --tone <tone>`' },
    positionals: { type: 'integer', description: 'How many positional arguments it takes (the highest ${n})' },
    flags: { type: 'array', items: { type: 'string' }, description: 'The flags it needs, by name' },
    allArguments: { type: 'boolean', description: 'It uses $ARGUMENTS: any number of arguments' },
    agent: { type: 'string', description: 'It runs on this other agent' },
    model: {
      type: 'object',
      required: ['providerId', 'modelId'],
      properties: { providerId: { type: 'string' }, modelId: { type: 'string' } },
    },
    subtask: { type: 'boolean' },
  },
} as const;

export const getAgent = defineOperation({
  id: 'getAgent',
  method: 'get',
  path: '/agent/{name}',
  summary: 'An agent: its current revision (defaults applied) and trigger URLs',
  tag: 'agents',
  auth: { kind: 'scope', scope: 'read' },
  responses: {
    200: {
      description: 'The agent',
      schema: {
        type: 'object',
        required: [
          'id',
          'name',
          'revision',
          'latestRevision',
          'traffic',
          'createdAt',
          'updatedAt',
          'bundle',
          'warnings',
          'triggers',
          'commands',
          'mcpUrl',
          'a2aUrl',
        ],
        properties: {
          ...AGENT_FIELDS,
          mcpUrl: {
            type: 'string',
            description:
              'The agent as an MCP server (Streamable HTTP; `POST /agent/{name}/mcp`): add it to an MCP client with an API key ' +
              'as `Authorization: Bearer <key>`. It names no key: agent names are per user',
          },
          a2aUrl: {
            type: 'string',
            description:
              'The agent as an A2A agent (v1.0, JSON-RPC): its card is at `<a2aUrl>.well-known/agent-card.json` (the URL ends ' +
              'with a slash), read with a Bearer key; it names no key either',
          },
          bundle: BUNDLE_REF,
          warnings: STRINGS,
          triggers: { type: 'array', items: TRIGGER_VIEW_SCHEMA },
          commands: { type: 'array', items: COMMAND_VIEW_SCHEMA },
        },
      },
    },
    404: { description: 'You have no agent of that name' },
  },
});

export const listRevisions = defineOperation({
  id: 'listRevisions',
  method: 'get',
  path: '/agent/{name}/revisions',
  summary: "An agent's revisions, newest first, what serves, and the changes that made it so",
  tag: 'agents',
  auth: { kind: 'scope', scope: 'read' },
  responses: {
    200: {
      description: 'Revisions without their bundles; `changes` newest first (the last 100)',
      schema: {
        type: 'object',
        required: ['revisions', 'live', 'traffic', 'changes'],
        properties: {
          revisions: {
            type: 'array',
            items: {
              type: 'object',
              required: ['revision', 'createdAt', 'warnings', 'state', 'trafficPercent'],
              properties: {
                revision: { type: 'integer' },
                createdAt: TIME,
                warnings: STRINGS,
                state: {
                  enum: REVISION_STATES,
                  description:
                    'live; canary: not live, with a traffic share; staged: has served no session (never live, never a share); retired: ' +
                    'served sessions once (live, or a share), not now',
                },
                trafficPercent: { type: 'integer', description: 'The percent of new sessions it gets now' },
              },
            },
          },
          live: { type: 'integer' },
          traffic: TRAFFIC_SCHEMA,
          changes: { type: 'array', items: REVISION_CHANGE_SCHEMA },
        },
      },
    },
    404: { description: 'You have no agent of that name' },
  },
});

export const getRevision = defineOperation({
  id: 'getRevision',
  method: 'get',
  path: '/agent/{name}/revisions/{revision}',
  summary: 'One revision with its whole bundle',
  tag: 'agents',
  auth: { kind: 'scope', scope: 'read' },
  responses: { 200: { description: 'The revision', schema: REVISION_SCHEMA }, 404: { description: 'No such agent or revision' } },
});

export const deleteAgent = defineOperation({
  id: 'deleteAgent',
  method: 'delete',
  path: '/agent/{name}',
  summary: 'Delete an agent (its sessions stay readable; the name becomes free)',
  tag: 'agents',
  auth: { kind: 'scope', scope: 'agents:write' },
  responses: { 204: { description: 'Deleted' }, 404: { description: 'You have no agent of that name' } },
});

export type Deployed = ResponseOf<typeof deployAgent, 201>;
export type AgentList = ResponseOf<typeof listAgents, 200>;
export type TriggerView = ResponseOf<typeof getAgent, 200>['triggers'][number];
export type AgentDetail = ResponseOf<typeof getAgent, 200> & { bundle: Bundle };
export type RevisionList = ResponseOf<typeof listRevisions, 200>;
export type Revision = ResponseOf<typeof getRevision, 200> & { bundle: Bundle };
export type InvalidBundle = Received<typeof INVALID_BUNDLE_SCHEMA>;
