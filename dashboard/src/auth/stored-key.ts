// The API key of the signed-in person. Kept in sessionStorage: it lives as long as the tab, is not
// sent with any request by the browser (unlike a cookie) and never appears in a URL or history.
const STORAGE_KEY = 'agent-service.api-key';

export function readStoredKey(): string | undefined {
  try {
    return sessionStorage.getItem(STORAGE_KEY) ?? undefined;
  } catch {
    // Storage refused (a privacy setting): the person signs in again on each load.
    return undefined;
  }
}

export function storeKey(apiKey: string): void {
  try {
    sessionStorage.setItem(STORAGE_KEY, apiKey);
  } catch {
    // Kept in memory only; see readStoredKey.
  }
}

export function forgetKey(): void {
  try {
    sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // Nothing was stored.
  }
}
