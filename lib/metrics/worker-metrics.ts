// What the worker's activities record: turns, model usage, approvals, webhook deliveries. Workflow
// code never records a metric (it is replayed, and does no I/O); the activities it calls do.
import { Counter, Histogram } from 'prom-client';

const TURN_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120, 300, 600];

export const turnFirstToken = new Histogram({
  name: 'agent_service_turn_first_token_seconds',
  help: "Time from a turn's start (its turn.started event) to the first text its first model step streamed.",
  buckets: TURN_BUCKETS,
});

export const turnDuration = new Histogram({
  name: 'agent_service_turn_duration_seconds',
  help: "Time from a turn's start to its end (its terminal event), by outcome: completed, failed or aborted.",
  labelNames: ['outcome'] as const,
  buckets: TURN_BUCKETS,
});

export const modelTokens = new Counter({
  name: 'agent_service_model_tokens_total',
  help: 'Tokens of finished model steps, by provider and kind (input or output).',
  labelNames: ['provider', 'kind'] as const,
});

export const modelCostUsd = new Counter({
  name: 'agent_service_model_cost_usd_total',
  help: 'USD cost of finished model steps whose price is known, by provider.',
  labelNames: ['provider'] as const,
});

export const approvalsEnded = new Counter({
  name: 'agent_service_approvals_ended_total',
  help: 'Approvals that ended, by outcome: answered or expired.',
  labelNames: ['outcome'] as const,
});

export const webhookDeliveryAttempts = new Counter({
  name: 'agent_service_webhook_delivery_attempts_total',
  help: 'Webhook delivery attempts, by outcome: delivered, retry (another attempt follows), failed (the last one, or 410 Gone) or cancelled.',
  labelNames: ['outcome'] as const,
});
