// The device login page (/app/device?code=ABCD-EFGH): a program without a key (the CLI's login)
// shows a code and this address; the signed-in person sees what it asks for (its name, the scopes
// of the key it would get, how long the request lasts) and approves or denies it. Once only.
import { useState } from 'preact/hooks';
import type { DeviceAuthorization } from '@agent-service/sdk';
import { useClient } from '../auth/client-context.ts';
import { navigate, type Location } from '../router.tsx';
import { ProblemView } from '../ui/problem-view.tsx';
import { ScopeList } from '../ui/scope-list.tsx';
import { LoadedView } from '../ui/states.tsx';
import { timeLeft } from '../ui/time.ts';
import { useLoad } from '../ui/use-load.ts';

export function DevicePage({ location }: { location: Location }) {
  const code = location.query.get('code')?.trim();
  return (
    <>
      <h1>Approve a device login</h1>
      {code ? <DeviceRequest code={code} /> : <CodeForm />}
    </>
  );
}

function CodeForm() {
  const [code, setCode] = useState('');
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        if (code.trim()) navigate(`/device?code=${encodeURIComponent(code.trim().toUpperCase())}`);
      }}
    >
      <p>Enter the code the program (for example the CLI's login) shows you.</p>
      <label for="device-code">Code</label>
      <input
        id="device-code"
        placeholder="ABCD-EFGH"
        autoComplete="off"
        spellcheck={false}
        value={code}
        onInput={(event) => setCode(event.currentTarget.value)}
      />
      <button type="submit">Look up</button>
    </form>
  );
}

function DeviceRequest({ code }: { code: string }) {
  const client = useClient();
  const loaded = useLoad((signal) => client.device.get(code, { signal }), [client, code]);
  const [decided, setDecided] = useState<DeviceAuthorization | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);

  const decide = async (approve: boolean) => {
    setBusy(true);
    setError(undefined);
    try {
      setDecided(approve ? await client.device.approve(code) : await client.device.deny(code));
    } catch (failure) {
      setError(failure);
      loaded.reload();
    } finally {
      setBusy(false);
    }
  };

  return (
    <LoadedView loaded={loaded} what="the login request">
      {(fetched) => {
        const request = decided ?? fetched;
        return (
          <section class="card" aria-labelledby="device-heading">
            <h2 id="device-heading">
              <span class="muted-label">Code</span> <code>{request.userCode}</code>
            </h2>
            <dl class="facts">
              <dt>Program</dt>
              <dd>{request.clientName}</dd>
              <dt>Asked</dt>
              <dd>
                from <code>{request.requestedFrom ?? 'an unknown address'}</code>, at{' '}
                <time dateTime={request.requestedAt}>{new Date(request.requestedAt).toLocaleString()}</time>
              </dd>
              <dt>Key scopes</dt>
              <dd>{request.scopes.length ? <ScopeList scopes={request.scopes} /> : 'the same as your key'}</dd>
              <dt>Expires</dt>
              <dd>{timeLeft(request.expiresAt)}</dd>
              <dt>Status</dt>
              <dd>
                <span class={`badge ${request.status === 'approved' ? 'ok' : request.status === 'denied' ? 'bad' : 'warn'}`}>
                  {request.status}
                </span>
              </dd>
            </dl>
            {request.status === 'pending' ? (
              <>
                <p>Approve only a login you started yourself, just now. The program gets a new key of yours with these scopes.</p>
                <div class="toolbar">
                  <button type="button" disabled={busy} onClick={() => void decide(true)}>
                    Approve
                  </button>
                  <button type="button" class="danger" disabled={busy} onClick={() => void decide(false)}>
                    Deny
                  </button>
                </div>
              </>
            ) : (
              <p role="status">
                {request.status === 'approved'
                  ? 'Approved: the program signs in within a few seconds. You can close this page.'
                  : 'Denied: the program was told no. Nothing was created.'}
              </p>
            )}
            {error !== undefined && <ProblemView error={error} />}
          </section>
        );
      }}
    </LoadedView>
  );
}
