// A webhook's latest deliveries: the event, its status, each attempt's answer. Refreshed while shown:
// a delivery being retried changes status on its own.
import type { WebhookDelivery } from '@agent-service/sdk';
import { useClient } from '../auth/client-context.ts';
import { EmptyState, LoadedView } from '../ui/states.tsx';
import { useInterval } from '../ui/use-interval.ts';
import { useLoad } from '../ui/use-load.ts';
import { When } from '../ui/when.tsx';

const BADGE = { delivered: 'ok', failed: 'bad', pending: 'warn', cancelled: 'muted' } as const;

function lastAnswer(delivery: WebhookDelivery): string {
  const last = delivery.attempts.at(-1);
  if (!last) return 'not tried yet';
  return last.statusCode !== null ? `HTTP ${last.statusCode}` : (last.error ?? 'no answer');
}

export function DeliveriesTable({ webhookId }: { webhookId: string }) {
  const client = useClient();
  const loaded = useLoad(
    async (signal) => await client.webhooks.deliveries.list(webhookId, { limit: 20 }, { signal }),
    [client, webhookId],
  );
  useInterval(loaded.reload, 5000);
  return (
    <LoadedView loaded={loaded} what="deliveries">
      {(page) =>
        page.items.length === 0 ? (
          <EmptyState title="Nothing delivered yet.">
            <p>Deliveries appear here when one of the subscribed events happens.</p>
          </EmptyState>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last answer</th>
                <th scope="col">When</th>
              </tr>
            </thead>
            <tbody>
              {page.items.map((delivery) => (
                <tr key={delivery.id}>
                  <td>
                    <code>{delivery.type}</code>
                  </td>
                  <td>
                    <span class={`badge ${BADGE[delivery.status]}`}>{delivery.status}</span>
                  </td>
                  <td>{delivery.attempts.length}</td>
                  <td>{lastAnswer(delivery)}</td>
                  <td>
                    <When iso={delivery.updatedAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      }
    </LoadedView>
  );
}
