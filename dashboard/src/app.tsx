// The page: sign-in until there is a key, then the shell with its pages.
import { useMemo, useState } from 'preact/hooks';
import { createClient, SessionContext, type Session } from './auth/client-context.ts';
import { forgetKey, readStoredKey, storeKey } from './auth/stored-key.ts';
import { SignIn } from './pages/sign-in.tsx';
import { Shell } from './shell.tsx';

export function App() {
  const [apiKey, setApiKey] = useState(readStoredKey);
  const session = useMemo<Session | undefined>(
    () =>
      apiKey
        ? {
            client: createClient(apiKey),
            signOut() {
              forgetKey();
              setApiKey(undefined);
            },
          }
        : undefined,
    [apiKey],
  );
  if (!session) {
    return (
      <SignIn
        onSignedIn={(key) => {
          storeKey(key);
          setApiKey(key);
        }}
      />
    );
  }
  return (
    <SessionContext.Provider value={session}>
      <Shell />
    </SessionContext.Provider>
  );
}
