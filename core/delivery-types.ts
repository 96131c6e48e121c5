// Types shared by the delivery workflow, the workflows that publish events and the webhook activities.

/** From configuration, carried in workflow input (deterministic; tests pass a schedule of milliseconds). */
export interface DeliverySettings {
  /** Waits between attempts: one attempt more than entries, then the delivery has failed. */
  retryScheduleMs: number[];
  attemptTimeoutMs: number;
}

export interface PublishedDeliveries {
  deliveries: Array<{ id: string; subscriptionId: string }>;
  settings: DeliverySettings;
}

export interface DeliveryInput {
  deliveryId: string;
  subscriptionId: string;
  type: string;
  settings: DeliverySettings;
}

export interface AttemptOutcome {
  /** `retry`: any other status, a network error or a timeout; `gone`: 410, the subscription is disabled. */
  result: 'delivered' | 'gone' | 'retry' | 'cancelled';
  /** `HTTP 500`, the network error, or why nothing was sent. */
  detail: string;
}

export interface DeliveryResult {
  status: 'delivered' | 'failed' | 'cancelled';
  attempts: number;
}

/** How an A2A push notification's workflow names where it goes (where a webhook's names its subscription). */
export function pushLabel(taskId: string, configId: string): string {
  return `A2A push config ${configId} of task ${taskId}`;
}

/** Whether a delivery's "subscription" is a push config's label (store/a2a-push.ts). */
export function isPushLabel(label: string): boolean {
  return label.startsWith('A2A push config ');
}
