// Which revision of an agent serves: staged deploys (POST /deploy?stage=1), promote, rollback and the
// traffic shares of new sessions (a canary). Each change is recorded with the key that made it, listed
// with the revisions and published as the `agent.changed` webhook event.
import { defineOperation, type ResponseOf } from './operation.ts';
import { NULLABLE_STRING, TIME } from './shared.ts';

export const CHANGE_KINDS = ['deployed', 'staged', 'promoted', 'rolled_back', 'traffic'] as const;

export const TRAFFIC_SCHEMA = {
  type: 'object',
  description:
    'Percent of new sessions (an integer) by revision number, for revisions other than the live one; the live revision gets ' +
    'the rest. A session keeps the revision it started on',
  additionalProperties: { type: 'integer', minimum: 0, maximum: 100 },
} as const;

export const REVISION_CHANGE_SCHEMA = {
  type: 'object',
  required: ['id', 'kind', 'revision', 'liveBefore', 'liveAfter', 'traffic', 'keyId', 'at'],
  properties: {
    id: { type: 'string' },
    kind: {
      enum: CHANGE_KINDS,
      description:
        'deployed: a deploy made a revision live; staged: a deploy stored one without making it live; promoted, rolled_back: ' +
        'the live revision changed; traffic: the shares changed',
    },
    revision: { type: ['integer', 'null'], description: 'The revision deployed, staged, promoted or rolled back to' },
    liveBefore: { type: ['integer', 'null'], description: "The live revision before the change (null for an agent's first)" },
    liveAfter: { type: 'integer', description: 'The live revision after it' },
    traffic: TRAFFIC_SCHEMA,
    keyId: { ...NULLABLE_STRING, description: 'The API key that made the change (GET /keys names it)' },
    at: TIME,
  },
} as const;

export const REVISION_STATES = ['live', 'canary', 'staged', 'retired'] as const;

const LIVE_CHANGE_SCHEMA = {
  type: 'object',
  required: ['live', 'changed', 'change'],
  properties: {
    live: { type: 'integer', description: 'The live revision now' },
    changed: { type: 'boolean', description: 'false: the revision was live already, and nothing was recorded' },
    change: { anyOf: [REVISION_CHANGE_SCHEMA, { type: 'null' }] },
  },
} as const;

export const promoteRevision = defineOperation({
  id: 'promoteRevision',
  method: 'post',
  path: '/agent/{name}/promote',
  summary: 'Make a revision live (new sessions start on it; traffic shares end)',
  description:
    'Sessions already started stay on their revision. Cron schedules and webhook triggers follow the live revision from now on. ' +
    'Promoting the live revision answers `changed: false` and records nothing, so a retry is safe (it asks for its schedules ' +
    'again). A rollback (or any change) that committed never answers 503 afterwards, so a retry cannot repeat it by mistake.',
  tag: 'agents',
  auth: { kind: 'scope', scope: 'agents:write' },
  body: {
    required: true,
    schema: {
      type: 'object',
      required: ['revision'],
      additionalProperties: false,
      properties: {
        revision: { type: 'integer', minimum: 1, maximum: 999_999_999 },
        requireEval: {
          type: 'object',
          required: ['set'],
          additionalProperties: false,
          description:
            'Promote only if a completed eval run of this revision against the stored set’s latest version passed at least ' +
            '`minScore` of its cases (default 1: all); otherwise 409, naming the best run',
          properties: {
            set: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]{0,63}$' },
            minScore: { type: 'number', minimum: 0, maximum: 1, default: 1 },
          },
        },
      },
    },
  },
  responses: {
    200: { description: 'The revision is live', schema: LIVE_CHANGE_SCHEMA },
    404: { description: 'You have no agent of that name, or it has no such revision (or requireEval names no set of yours)' },
    403: { description: 'Making it live would put you past SCHEDULES_PER_USER with its cron triggers (problem type schedule-limit)' },
    409: { description: 'requireEval: no completed eval run of the revision against the set passes minScore' },
  },
});

export const rollbackRevision = defineOperation({
  id: 'rollbackRevision',
  method: 'post',
  path: '/agent/{name}/rollback',
  summary: 'Make the revision that was live before the live one live again',
  description:
    'A rollback is itself a change of the live revision: a second rollback returns to where the first started. Traffic shares end.',
  tag: 'agents',
  auth: { kind: 'scope', scope: 'agents:write' },
  responses: {
    200: { description: 'The earlier revision is live', schema: LIVE_CHANGE_SCHEMA },
    404: { description: 'You have no agent of that name' },
    409: { description: 'The live revision is the first that served: nothing to roll back to' },
  },
});

export const setRevisionTraffic = defineOperation({
  id: 'setRevisionTraffic',
  method: 'post',
  path: '/agent/{name}/traffic',
  summary: 'Send a share of new sessions to other revisions (a canary); `{}` ends it',
  description:
    'The body replaces the shares before: `{"7": 10}` sends 10% of new sessions (API, MCP, A2A, cron and webhook triggers, ' +
    'calls from other agents) to revision 7 and the rest to the live one. A 0 drops a revision. At most 5 revisions, at most ' +
    '100% together; the live revision cannot be named. Graph workflow runs and custom commands stay on the live revision.',
  tag: 'agents',
  auth: { kind: 'scope', scope: 'agents:write' },
  body: { required: true, schema: { ...TRAFFIC_SCHEMA, maxProperties: 20 } },
  responses: {
    200: {
      description: 'The shares now',
      schema: {
        type: 'object',
        required: ['live', 'traffic', 'change'],
        properties: { live: { type: 'integer' }, traffic: TRAFFIC_SCHEMA, change: REVISION_CHANGE_SCHEMA },
      },
    },
    400: { description: 'Not a revision number, the live revision, more than 100% or more than 5 revisions' },
    404: { description: 'You have no agent of that name, or it has no such revision' },
  },
});

export type RevisionChangeView = ResponseOf<typeof setRevisionTraffic, 200>['change'];
export type LiveChangeView = ResponseOf<typeof promoteRevision, 200>;
export type TrafficView = ResponseOf<typeof setRevisionTraffic, 200>;
