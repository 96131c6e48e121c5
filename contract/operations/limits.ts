// What the calling user may hold and what it holds now: the limits per user (docs/isolation.md),
// all its keys together. Each refusal names its limit by problem type.
import { defineOperation, type ResponseOf } from './operation.ts';

const LIMIT = (description: string) =>
  ({
    type: 'object',
    required: ['limit', 'used', 'setting'],
    properties: {
      limit: { type: 'integer', description: 'The most allowed' },
      used: { type: 'integer', description: 'Held (or spent) now' },
      setting: { type: 'string', description: 'The server setting that sets the limit' },
    },
    description,
  }) as const;

export const getLimits = defineOperation({
  id: 'getLimits',
  method: 'get',
  path: '/limits',
  summary: 'Your limits and what you hold against each',
  description:
    'Every limit per user, whichever key asks: `keys` (403 `key-limit` beyond), `openStreams` (SSE streams, waiting sends and ' +
    '`?wait=` reads open at once on the API process that answers; 429 `stream-limit` with Retry-After beyond), `requests` (in ' +
    'the current window of `windowSeconds`; 429 `rate-limited` with Retry-After beyond), `schedules` (cron triggers of your live ' +
    'agents; a deploy past it is a 403 `schedule-limit`), `openApprovals` (unanswered; 403 `approval-limit` for a new one, a tool ' +
    "error for an agent asking, a failed run at a workflow graph's approval node), `storedBytes` (uploads; 403 `storage-limit`), `runningTurns` (model steps running at once; " +
    'beyond, a turn waits durably and says so with `turn.queued`, it is not refused).',
  tag: 'keys',
  auth: { kind: 'scope', scope: 'read' },
  responses: {
    200: {
      description: 'Each limit with its use',
      schema: {
        type: 'object',
        required: ['keys', 'openStreams', 'requests', 'schedules', 'openApprovals', 'storedBytes', 'runningTurns'],
        properties: {
          keys: LIMIT('API keys'),
          openStreams: LIMIT('Connections held open on the API process that answered (each process counts its own)'),
          requests: {
            ...LIMIT('Requests in the current window'),
            required: ['limit', 'used', 'setting', 'windowSeconds'],
            properties: { ...LIMIT('').properties, windowSeconds: { type: 'integer' } },
          },
          schedules: LIMIT('Cron triggers across your live agents'),
          openApprovals: LIMIT('Approvals not yet answered or expired'),
          storedBytes: LIMIT("Bytes of your sessions' uploads"),
          runningTurns: LIMIT('Turns running a model step now, all your sessions together; beyond, a turn waits (`turn.queued`)'),
        },
      },
    },
  },
});

export type Limits = ResponseOf<typeof getLimits, 200>;
