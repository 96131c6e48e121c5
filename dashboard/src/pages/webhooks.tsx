// Outbound webhooks: subscriptions (URL, events, status), a new one (its signing secret shown once),
// deleting one, and each one's delivery log.
import { useState } from 'preact/hooks';
import type { CreatedWebhook, WebhookEventType } from '@agent-service/sdk';
import { WEBHOOK_EVENTS } from '../../../contract/webhook-events.ts';
import { useClient } from '../auth/client-context.ts';
import { ConfirmButton } from '../ui/confirm-button.tsx';
import { ProblemView } from '../ui/problem-view.tsx';
import { ShownOnce } from '../ui/shown-once.tsx';
import { EmptyState, LoadedView } from '../ui/states.tsx';
import { useLoad } from '../ui/use-load.ts';
import { toggled, useAction } from '../ui/use-action.ts';
import { DeliveriesTable } from '../webhooks/deliveries-table.tsx';

export function WebhooksPage() {
  const client = useClient();
  const loaded = useLoad((signal) => client.webhooks.list({ signal }), [client]);
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<Set<WebhookEventType>>(new Set(['session.completed', 'approval.requested']));
  const [created, setCreated] = useState<CreatedWebhook | undefined>(undefined);
  const [open, setOpen] = useState<string | undefined>(undefined);
  const { error, run } = useAction();

  const create = (event: Event) => {
    event.preventDefault();
    return run(async () => {
      setCreated(await client.webhooks.create({ url: url.trim(), events: [...events] }));
      setUrl('');
      loaded.reload();
    });
  };

  const remove = (id: string) =>
    run(async () => {
      await client.webhooks.delete(id);
      loaded.reload();
    });

  const toggle = (name: WebhookEventType, on: boolean) => setEvents(toggled(events, name, on));

  return (
    <>
      <h1>Webhooks</h1>
      {created && <ShownOnce what="signing secret" value={created.secret} onDismiss={() => setCreated(undefined)} />}
      <form class="card" onSubmit={(event) => void create(event)}>
        <h2>New webhook</h2>
        <label for="webhook-url">Receiver URL</label>
        <input
          id="webhook-url"
          type="url"
          placeholder="https://example.com/hooks"
          required
          value={url}
          onInput={(event) => setUrl(event.currentTarget.value)}
        />
        <fieldset>
          <legend>Events</legend>
          <div class="checks">
            {WEBHOOK_EVENTS.map((name) => (
              <label key={name} class="check">
                <input type="checkbox" checked={events.has(name)} onChange={(event) => toggle(name, event.currentTarget.checked)} />
                <code>{name}</code>
              </label>
            ))}
          </div>
        </fieldset>
        <button type="submit" disabled={events.size === 0}>
          Create webhook
        </button>
      </form>
      {error !== undefined && <ProblemView error={error} />}
      <h2>Subscriptions</h2>
      <LoadedView loaded={loaded} what="webhooks">
        {({ webhooks }) =>
          webhooks.length === 0 ? (
            <EmptyState title="No webhook.">
              <p>
                Add a receiver URL above to be told when sessions complete or fail, questions are asked or answered, triggers fire, and an
                agent's live revision or canary changes. Verify each delivery's signature (the SDK's <code>verifyWebhook</code>).
              </p>
            </EmptyState>
          ) : (
            <ul class="cards">
              {webhooks.map((webhook) => (
                <li key={webhook.id} class="card">
                  <p class="copy-row">
                    <code>{webhook.url}</code>
                    <span class={`badge ${webhook.status === 'active' ? 'ok' : 'bad'}`}>{webhook.status}</span>
                  </p>
                  {webhook.disabledReason && <p>Disabled: {webhook.disabledReason}</p>}
                  <p>Events: {webhook.events.join(', ')}</p>
                  <div class="toolbar">
                    <button
                      type="button"
                      class="secondary small"
                      aria-expanded={open === webhook.id}
                      onClick={() => setOpen(open === webhook.id ? undefined : webhook.id)}
                    >
                      {open === webhook.id ? 'Hide deliveries' : 'Show deliveries'}
                    </button>
                    <ConfirmButton
                      label={`Delete webhook ${webhook.url}`}
                      question={`Delete the webhook to ${webhook.url}? Nothing more is delivered to it.`}
                      onConfirmed={() => void remove(webhook.id)}
                    >
                      Delete
                    </ConfirmButton>
                  </div>
                  {open === webhook.id && <DeliveriesTable webhookId={webhook.id} />}
                </li>
              ))}
            </ul>
          )
        }
      </LoadedView>
    </>
  );
}
