// The SDK client of the signed-in person, for every page: the API is the page's own origin.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { Client } from '@agent-service/sdk';

/**
 * What the page shows is live: never an answer from the HTTP cache. (Revalidating would also turn
 * the API's answers into 304s, which its contract does not list.)
 */
const uncachedFetch: typeof fetch = (input, init) => fetch(input, { ...init, cache: 'no-store' });

export function createClient(apiKey: string): Client {
  return new Client({ baseUrl: window.location.origin, apiKey, fetch: uncachedFetch });
}

export interface Session {
  client: Client;
  signOut(): void;
}

export const SessionContext = createContext<Session | undefined>(undefined);

export function useClient(): Client {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useClient outside a signed-in page');
  return session.client;
}
