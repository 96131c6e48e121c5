// An agent's triggers: a webhook's URL (the URL is its secret: copy it, do not share it) or a cron
// expression with its time zone, the Temporal Schedule that fires it and its next firings.
import type { AgentDetail } from '@agent-service/sdk';
import { CopyButton } from '../ui/copy-button.tsx';
import { EmptyState } from '../ui/states.tsx';

export function TriggersTable({ triggers }: { triggers: AgentDetail['triggers'] }) {
  if (triggers.length === 0) {
    return (
      <EmptyState title="No trigger.">
        <p>
          Add <code>{'"triggers": [{ "kind": "webhook" }]'}</code> for a URL that starts a session, or{' '}
          <code>{'{ "kind": "cron", "expression": "@daily" }'}</code> for a schedule, and deploy again.
        </p>
      </EmptyState>
    );
  }
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Kind</th>
          <th scope="col">Where or when</th>
          <th scope="col">Runs</th>
        </tr>
      </thead>
      <tbody>
        {triggers.map((trigger, index) => (
          <tr key={index}>
            <td>{trigger.kind}</td>
            <td>
              {trigger.url ? (
                <span class="copy-row">
                  <code>{trigger.url}</code>
                  <CopyButton value={trigger.url} label={`Copy the URL of trigger ${index + 1}`} />
                </span>
              ) : (
                <>
                  <code>{trigger.expression}</code>
                  {trigger.timezone ? ` (${trigger.timezone})` : ' (UTC)'}
                  {trigger.scheduleId && (
                    <>
                      {' · schedule '}
                      <code>{trigger.scheduleId}</code>
                    </>
                  )}
                  {trigger.paused && <p>Paused by an operator: it does not fire.</p>}
                  {trigger.nextFireTimes && trigger.nextFireTimes.length > 0 && (
                    <p>
                      Next:{' '}
                      {trigger.nextFireTimes.slice(0, 3).map((at, position) => (
                        <span key={at}>
                          {position > 0 && ', '}
                          <time dateTime={at}>{new Date(at).toLocaleString()}</time>
                        </span>
                      ))}
                    </p>
                  )}
                </>
              )}
            </td>
            <td>{trigger.workflow ? `workflow ${trigger.workflow}` : 'a message'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
