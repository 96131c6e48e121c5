import type { CreateWebhookBody, CreatedWebhook, WebhookDelivery, WebhookList, DeliveryPage } from '../contract.ts';
import { PagedList } from '../pagination.ts';
import { path, type RequestOptions } from '../transport.ts';
import { Resource } from './resource.ts';

class Deliveries extends Resource {
  /** A webhook's deliveries, newest first, each with its attempts; `for await` pages through all. */
  list(webhookId: string, query: { limit?: number; before?: string } = {}, options: RequestOptions = {}): PagedList<WebhookDelivery> {
    return new PagedList(
      async (before, pageOptions) => {
        const page = await this.transport.json<DeliveryPage>(
          { method: 'GET', path: path`/webhook/${webhookId}/deliveries`, query: { limit: query.limit, before }, idempotent: true },
          pageOptions,
        );
        return { items: page.deliveries, next: page.next };
      },
      options,
      query.before,
    );
  }
}

export class Webhooks extends Resource {
  readonly deliveries = new Deliveries(this.transport);

  /** Subscribes a URL to events. The answer holds the signing `secret`, shown this once. */
  create(body: CreateWebhookBody, options?: RequestOptions): Promise<CreatedWebhook> {
    return this.transport.json({ method: 'POST', path: '/webhook', json: body, idempotent: false }, options);
  }

  list(options?: RequestOptions): Promise<WebhookList> {
    return this.transport.json({ method: 'GET', path: '/webhook', idempotent: true }, options);
  }

  delete(id: string, options?: RequestOptions): Promise<void> {
    return this.transport.json({ method: 'DELETE', path: path`/webhook/${id}`, idempotent: true }, options);
  }
}
