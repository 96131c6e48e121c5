// Health, liveness and readiness: public, so load balancers, orchestrators and the launcher can poll them.
import { defineOperation, type ResponseOf } from './operation.ts';

const CHECK = {
  type: 'object',
  required: ['ok'],
  properties: { ok: { type: 'boolean' }, error: { type: 'string' } },
} as const;

const CHECKS = { type: 'object', properties: { postgres: CHECK, temporal: CHECK } } as const;

export const getHealth = defineOperation({
  id: 'getHealth',
  method: 'get',
  path: '/auth/health',
  summary: 'Is the service up?',
  description: 'Needs no key. Checks that PostgreSQL and Temporal answer.',
  tag: 'health',
  auth: { kind: 'public' },
  responses: {
    200: {
      description: 'Every part answers',
      schema: { type: 'object', required: ['ok'], properties: { ok: { const: true }, checks: CHECKS } },
    },
    503: {
      description: 'A part does not answer; `checks` names it',
      contentType: 'application/json',
      schema: { type: 'object', required: ['ok', 'checks'], properties: { ok: { const: false }, checks: CHECKS } },
    },
  },
});

export type Health = ResponseOf<typeof getHealth, 200> | ResponseOf<typeof getHealth, 503>;

export const getLiveness = defineOperation({
  id: 'getLiveness',
  method: 'get',
  path: '/auth/health/live',
  summary: 'Is this API process alive?',
  description:
    "Needs no key, asks nothing of PostgreSQL or Temporal: 200 while the process serves HTTP. For an orchestrator's liveness probe " +
    '(restart the process when it fails), where a database outage must not restart every API process.',
  tag: 'health',
  auth: { kind: 'public' },
  responses: {
    200: { description: 'The process serves', schema: { type: 'object', required: ['ok'], properties: { ok: { const: true } } } },
  },
});

const WORKERS_CHECK = {
  type: 'object',
  required: ['ok'],
  properties: {
    ok: { type: 'boolean' },
    error: { type: 'string' },
    taskQueue: { type: 'string' },
    pollers: {
      type: 'object',
      description: 'Workers seen polling within the last 75 s, for workflow tasks and for activity tasks',
      properties: { workflow: { type: 'integer' }, activity: { type: 'integer' } },
    },
  },
} as const;

const READINESS_CHECKS = { type: 'object', properties: { postgres: CHECK, temporal: CHECK, workers: WORKERS_CHECK } } as const;

const READINESS = {
  type: 'object',
  required: ['ok', 'serving', 'checks'],
  properties: {
    ok: { type: 'boolean' },
    serving: {
      enum: ['everything', 'reads', 'nothing'],
      description:
        '`reads`: PostgreSQL answers but no worker polls (or Temporal does not answer): sessions, events and agents are read as ' +
        'usual, sends are accepted (`?async=1`) but no turn runs until a worker polls',
    },
    checks: READINESS_CHECKS,
  },
} as const;

export const getReadiness = defineOperation({
  id: 'getReadiness',
  method: 'get',
  path: '/auth/health/ready',
  summary: 'Can this deployment run turns?',
  description:
    'Needs no key. Ready means PostgreSQL answers, Temporal answers, and at least one worker polls the task queue for workflow and ' +
    'for activity tasks (as Temporal describes the task queue; a worker that died stops counting within 75 s). Each part that fails ' +
    "is named in `checks`. For a load balancer's readiness probe in front of the API; the API keeps serving reads while not ready.",
  tag: 'health',
  auth: { kind: 'public' },
  responses: {
    200: { description: 'Ready: every part answers and workers poll', schema: READINESS },
    503: {
      description: 'Not ready; `checks` names what fails and `serving` what still works',
      contentType: 'application/json',
      schema: READINESS,
    },
  },
});

export type Readiness = ResponseOf<typeof getReadiness, 200>;
