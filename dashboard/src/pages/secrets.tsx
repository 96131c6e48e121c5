// Secrets: names and dates only (the service never answers with a value); set one (new or replaced)
// and delete one. The value field is a password field, emptied once the secret is stored. Hosts say
// where tools may send it (lib/secret-hosts.ts).
import { useState } from 'preact/hooks';
import { useClient } from '../auth/client-context.ts';
import { ConfirmButton } from '../ui/confirm-button.tsx';
import { ProblemView } from '../ui/problem-view.tsx';
import { EmptyState, LoadedView } from '../ui/states.tsx';
import { useLoad } from '../ui/use-load.ts';
import { useAction } from '../ui/use-action.ts';
import { When } from '../ui/when.tsx';

export function SecretsPage() {
  const client = useClient();
  const loaded = useLoad((signal) => client.secrets.list({ signal }), [client]);
  const [key, setKey] = useState('');
  const [value, setValue] = useState('');
  const [hosts, setHosts] = useState('');
  const [stored, setStored] = useState<string | undefined>(undefined);
  const { error, run } = useAction();

  const save = (event: Event) => {
    event.preventDefault();
    setStored(undefined);
    return run(async () => {
      // Left empty: a new secret gets no hosts, a replaced one keeps its own.
      const named = hosts
        .split(/[\s,]+/)
        .map((host) => host.trim().toLowerCase())
        .filter(Boolean);
      const info = await client.secrets.put(key.trim(), value, named.length ? { hosts: named } : {});
      setStored(info.key);
      setKey('');
      setValue('');
      setHosts('');
      loaded.reload();
    });
  };

  const remove = (name: string) =>
    run(async () => {
      await client.secrets.delete(name);
      loaded.reload();
    });

  return (
    <>
      <h1>Secrets</h1>
      <p>
        Values are encrypted at rest and never shown again, here or anywhere. An agent reads only the secrets its bundle lists in{' '}
        <code>secretGrants</code>.
      </p>
      <form class="card" onSubmit={(event) => void save(event)}>
        <h2>Set a secret</h2>
        <div class="row">
          <div>
            <label for="secret-key">Name</label>
            <input
              id="secret-key"
              placeholder="OPENROUTER_API_KEY"
              autoComplete="off"
              spellcheck={false}
              required
              value={key}
              onInput={(event) => setKey(event.currentTarget.value)}
            />
          </div>
          <div>
            <label for="secret-value">Value</label>
            <input
              id="secret-value"
              type="password"
              autoComplete="off"
              required
              value={value}
              onInput={(event) => setValue(event.currentTarget.value)}
            />
          </div>
          <div>
            <label for="secret-hosts">Hosts (optional)</label>
            <input
              id="secret-hosts"
              placeholder="api.github.com, *.example.com"
              autoComplete="off"
              spellcheck={false}
              aria-describedby="secret-hosts-help"
              value={hosts}
              onInput={(event) => setHosts(event.currentTarget.value)}
            />
          </div>
          <button type="submit">Save secret</button>
        </div>
        <p id="secret-hosts-help" class="muted">
          Where tools may send it in request headers (<code>{'{{secrets.KEY}}'}</code> in the <code>http</code> tool). With none, no tool
          may send it; model providers and approval channels still read it. Left empty, a replaced secret keeps its hosts.
        </p>
        <p role="status">{stored && `Stored ${stored}. Its value is not shown again.`}</p>
      </form>
      {error !== undefined && <ProblemView error={error} />}
      <h2>Stored secrets</h2>
      <LoadedView loaded={loaded} what="secrets">
        {({ secrets }) =>
          secrets.length === 0 ? (
            <EmptyState title="No secret stored.">
              <p>
                Store provider keys (<code>OPENROUTER_API_KEY</code>, …) and tokens your agents' channels use, then grant them in a bundle's{' '}
                <code>secretGrants</code>.
              </p>
            </EmptyState>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Value</th>
                  <th scope="col">Hosts</th>
                  <th scope="col">Created</th>
                  <th scope="col">Updated</th>
                  <th scope="col">
                    <span class="visually-hidden">Delete</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {secrets.map((secret) => (
                  <tr key={secret.key}>
                    <td>
                      <code>{secret.key}</code>
                    </td>
                    <td class="muted">hidden</td>
                    <td>{secret.hosts.length ? secret.hosts.join(', ') : <span class="muted">none</span>}</td>
                    <td>
                      <When iso={secret.createdAt} />
                    </td>
                    <td>
                      <When iso={secret.updatedAt} />
                    </td>
                    <td>
                      <ConfirmButton
                        label={`Delete secret ${secret.key}`}
                        question={`Delete the secret ${secret.key}? Agents granted it no longer get it.`}
                        onConfirmed={() => void remove(secret.key)}
                      >
                        Delete
                      </ConfirmButton>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </LoadedView>
    </>
  );
}
