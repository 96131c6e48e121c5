// API keys: the list (a prefix to recognise each, never the key), a new key with a name and scopes
// (shown once, with a copy button), and deleting a key (it stops working at once).
import { useState } from 'preact/hooks';
import type { CreatedKey, Scope } from '@agent-service/sdk';
import { SCOPES } from '../../../contract/scopes.ts';
import { useClient } from '../auth/client-context.ts';
import { ConfirmButton } from '../ui/confirm-button.tsx';
import { ProblemView } from '../ui/problem-view.tsx';
import { ShownOnce } from '../ui/shown-once.tsx';
import { LoadedView } from '../ui/states.tsx';
import { useLoad } from '../ui/use-load.ts';
import { toggled, useAction } from '../ui/use-action.ts';
import { When } from '../ui/when.tsx';

// `admin` counts only for admin users and is granted by the admin API, not chosen here.
const CHOOSABLE = SCOPES.filter((scope) => scope !== 'admin');

export function KeysPage() {
  const client = useClient();
  const loaded = useLoad((signal) => client.keys.list({ signal }), [client]);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Set<Scope>>(new Set(CHOOSABLE));
  const [created, setCreated] = useState<CreatedKey | undefined>(undefined);
  const { error, run } = useAction();

  const create = (event: Event) => {
    event.preventDefault();
    return run(async () => {
      setCreated(await client.keys.create({ name: name.trim() || undefined, scopes: [...scopes] }));
      setName('');
      loaded.reload();
    });
  };

  const remove = (id: string) =>
    run(async () => {
      await client.keys.delete(id);
      loaded.reload();
    });

  const toggle = (scope: Scope, on: boolean) => setScopes(toggled(scopes, scope, on));

  return (
    <>
      <h1>API keys</h1>
      {created && <ShownOnce what="key" value={created.key} onDismiss={() => setCreated(undefined)} />}
      <form class="card" onSubmit={(event) => void create(event)}>
        <h2>New key</h2>
        <label for="key-name">Name</label>
        <input id="key-name" placeholder="ci, laptop, …" value={name} onInput={(event) => setName(event.currentTarget.value)} />
        <fieldset>
          <legend>Scopes</legend>
          <div class="checks">
            {CHOOSABLE.map((scope) => (
              <label key={scope} class="check">
                <input type="checkbox" checked={scopes.has(scope)} onChange={(event) => toggle(scope, event.currentTarget.checked)} />
                <code>{scope}</code>
              </label>
            ))}
          </div>
        </fieldset>
        <button type="submit" disabled={scopes.size === 0}>
          Create key
        </button>
      </form>
      {error !== undefined && <ProblemView error={error} />}
      <h2>Your keys</h2>
      <LoadedView loaded={loaded} what="keys">
        {({ keys }) => (
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Starts with</th>
                <th scope="col">Scopes</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span class="visually-hidden">Delete</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr key={key.id}>
                  <td>{key.name ?? '—'}</td>
                  <td>
                    <code>{key.prefix}…</code>
                  </td>
                  <td>{key.scopes.join(', ')}</td>
                  <td>
                    <When iso={key.createdAt} />
                  </td>
                  <td>{key.lastUsedAt ? <When iso={key.lastUsedAt} /> : 'never'}</td>
                  <td>
                    <ConfirmButton
                      label={`Delete key ${key.name ?? key.prefix}`}
                      question={`Delete the key ${key.name ?? key.prefix}? Anything using it gets 401 from now on.`}
                      onConfirmed={() => void remove(key.id)}
                    >
                      Delete
                    </ConfirmButton>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </LoadedView>
    </>
  );
}
