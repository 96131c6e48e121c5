// Sign-in with an API key. The key is checked against the API before it is kept (sessionStorage,
// see auth/stored-key.ts). The input has no name: even a form submitted without the script would not
// put the key in a URL.
import { useState } from 'preact/hooks';
import { AuthenticationError, PermissionDeniedError } from '@agent-service/sdk';
import { createClient } from '../auth/client-context.ts';
import { ProblemView } from '../ui/problem-view.tsx';

export function SignIn({ onSignedIn }: { onSignedIn(apiKey: string): void }) {
  const [apiKey, setApiKey] = useState('');
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const key = apiKey.trim();
    if (!key) return;
    setBusy(true);
    setError(undefined);
    try {
      await createClient(key).keys.list({ maxRetries: 0 });
      onSignedIn(key);
    } catch (failure) {
      // A valid key without the read scope may still answer approvals or approve a device login.
      if (failure instanceof PermissionDeniedError) onSignedIn(key);
      else setError(failure);
    } finally {
      setBusy(false);
    }
  };

  // Signing in keeps the address: a device login link (/app/device?code=) or an MCP client's sign-in
  // (/app/oauth/consent?request=) opens its request after.
  const forDevice = window.location.pathname.startsWith('/app/device');
  const forClient = window.location.pathname.startsWith('/app/oauth/consent');
  return (
    <main id="content" class="sign-in">
      <h1>
        {forDevice ? 'Sign in to approve a device login' : forClient ? 'Sign in to allow an MCP client' : 'Sign in to the agent service'}
      </h1>
      <p>
        Paste an API key (<code>sk_…</code>). It is kept in this tab only and forgotten when you sign out or close the tab. The first start
        of the service prints an admin key; <code>POST /key</code> or the CLI makes more.
      </p>
      <form onSubmit={(event) => void submit(event)}>
        <label for="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autoComplete="off"
          spellcheck={false}
          required
          value={apiKey}
          onInput={(event) => setApiKey(event.currentTarget.value)}
        />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      {error !== undefined && (
        <>
          {error instanceof AuthenticationError && <p>That key was not accepted: check it was copied whole and has not been deleted.</p>}
          <ProblemView error={error} />
        </>
      )}
    </main>
  );
}
