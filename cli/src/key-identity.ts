// Which of the user's keys a key is: GET /key lists keys by prefix only, never the key, so the
// listing whose prefix starts the key is this one.
import { PermissionDeniedError, type Client, type KeyListing } from '@agent-service/sdk';

/** The key's listing; undefined when the key may not read (`read` scope missing). */
export async function findOwnKey(client: Client, key: string): Promise<KeyListing | undefined> {
  try {
    const { keys } = await client.keys.list();
    return keys.filter((listing) => key.startsWith(listing.prefix)).sort((a, b) => b.prefix.length - a.prefix.length)[0];
  } catch (error) {
    if (error instanceof PermissionDeniedError) return undefined;
    throw error;
  }
}
