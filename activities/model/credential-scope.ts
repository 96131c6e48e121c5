// Whose provider credentials a model call uses: the operator's (the key and base URL of the service's
// environment), which every user without their own shares, or a user's own (a key or base URL they
// granted as a secret). Two things depend on it. What one call's provider said about a model (a context
// window in its error, context-windows.ts) is believed only for calls with the same credentials. And
// the prompt cache behind the operator's key is shared by every tenant: how much of a request it served
// tells whether someone else sent the same long prefix, so those counts are shown to a user only when
// the cache is theirs alone (step-usage.ts).
import { createHash } from 'node:crypto';
import type { ProviderId } from '../../contract/bundle-constants.ts';
import type { Config } from '../../lib/config.ts';
import type { ProviderCredentials } from './providers.ts';

/** The scope of calls made with the operator's own key and base URL. */
export const OPERATOR_CREDENTIALS = 'operator';

export interface CallCredentials {
  /** OPERATOR_CREDENTIALS, or `own:` and a digest of the user's base URL and key (never the key itself). */
  scope: string;
  /**
   * The user may see how much of a request the prompt cache served: the cache holds their requests alone
   * (their own base URL, or their own key at the provider's own address; their key sent to a base URL the
   * operator set, a gateway or a self-hosted server, may still reach a cache every tenant shares), or the
   * operator said the tenants may see a shared cache's counts (SHARED_CACHE_COUNTS).
   */
  showsCacheCounts: boolean;
}

export function callCredentials(
  providerId: string,
  credentials: ProviderCredentials,
  config: Pick<Config, 'providers' | 'sharedCacheCounts'>,
): CallCredentials {
  const operator = config.providers[providerId as ProviderId];
  const ownBaseUrl = credentials.baseUrlFromSecret === true;
  // A user's secret that holds the operator's own key is the operator's key.
  const ownKey = credentials.apiKey !== undefined && credentials.apiKey !== operator?.apiKey;
  if (!ownBaseUrl && !ownKey) return { scope: OPERATOR_CREDENTIALS, showsCacheCounts: config.sharedCacheCounts };
  const digest = createHash('sha256')
    .update(`${credentials.baseUrl ?? ''}\n${credentials.apiKey ?? ''}`)
    .digest('hex')
    .slice(0, 32);
  const privateCache = ownBaseUrl || operator?.baseUrl === undefined;
  return { scope: `own:${digest}`, showsCacheCounts: privateCache || config.sharedCacheCounts };
}
