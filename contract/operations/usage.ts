// Usage of the calling user's agents: tokens and USD cost per agent (every session so far) and per
// agent and UTC day over a window, summed in the database from each reply's recorded usage.
import { defineOperation, type ResponseOf } from './operation.ts';
import { TIME } from './shared.ts';

const TOTALS = {
  inputTokens: { type: 'integer', description: "All input, what the providers' prompt caches served included" },
  outputTokens: { type: 'integer' },
  cacheReadTokens: { type: 'integer', description: "Of the input, read from the providers' prompt caches" },
  cacheWriteTokens: { type: 'integer', description: "Of the input, written to the providers' prompt caches" },
  costUsd: { type: 'number', description: "What providers reported, or the price table's estimate; replies with neither count as 0" },
} as const;

export const getUsage = defineOperation({
  id: 'getUsage',
  method: 'get',
  path: '/usage',
  summary: 'Tokens and cost of your agents, in total and per day',
  description:
    '`agents`: each live agent with its sessions and their totals, and its monthly budget and spend. `budget`: your own monthly ' +
    'budget and spend. `daily`: per agent and UTC day, the replies completed that day ' +
    '(days without replies are absent), for the last `days` days including today.',
  tag: 'agents',
  auth: { kind: 'scope', scope: 'read' },
  query: {
    type: 'object',
    additionalProperties: false,
    properties: { days: { type: 'integer', minimum: 1, maximum: 90, default: 14, description: 'Days of `daily`, today included' } },
  },
  responses: {
    200: {
      description: 'Totals per agent, and per agent and day',
      schema: {
        type: 'object',
        required: ['since', 'agents', 'daily', 'budget'],
        properties: {
          since: { ...TIME, description: 'Start (00:00 UTC) of the first day of `daily`' },
          budget: {
            type: 'object',
            description: 'Your monthly spend budget (set by an admin; null: none) and what your agents spent this UTC month',
            required: ['month', 'monthlyUsd', 'spentUsd'],
            properties: {
              month: { type: 'string', description: 'YYYY-MM (UTC)' },
              monthlyUsd: { type: ['number', 'null'] },
              spentUsd: { type: 'number' },
            },
          },
          agents: {
            type: 'array',
            items: {
              type: 'object',
              required: [
                'agentId',
                'name',
                'sessions',
                'inputTokens',
                'outputTokens',
                'cacheReadTokens',
                'cacheWriteTokens',
                'costUsd',
                'monthlyBudgetUsd',
                'monthSpentUsd',
              ],
              properties: {
                agentId: { type: 'string' },
                name: { type: 'string' },
                sessions: { type: 'integer' },
                ...TOTALS,
                monthlyBudgetUsd: {
                  type: ['number', 'null'],
                  description: "The agent's monthly budget (PUT /agent/<name>/budget); null: none",
                },
                monthSpentUsd: { type: 'number', description: 'What the agent spent this UTC month' },
              },
            },
          },
          daily: {
            type: 'array',
            items: {
              type: 'object',
              required: ['day', 'agentId', 'replies', 'inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'costUsd'],
              properties: {
                day: { type: 'string', format: 'date' },
                agentId: { type: 'string' },
                replies: { type: 'integer' },
                ...TOTALS,
              },
            },
          },
        },
      },
    },
  },
});

export type Usage = ResponseOf<typeof getUsage, 200>;
