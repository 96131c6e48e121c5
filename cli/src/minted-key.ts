// A key the device flow minted for a profile belongs to that profile alone: nobody else holds it, so
// when the profile lets go of it (logout, or a new login over it) it is deleted on the service.
import { AuthenticationError, Client, PermissionDeniedError } from '@agent-service/sdk';
import type { Profile } from './config.ts';
import { warn } from './output.ts';

/** Deletes the profile's key if it was minted for it; true when it was deleted now. */
export async function deleteMintedKey(profile: Profile): Promise<boolean> {
  if (!profile.minted || !profile.keyId) return false;
  try {
    await new Client({ baseUrl: profile.url, apiKey: profile.key }).keys.delete(profile.keyId);
    return true;
  } catch (error) {
    // A key deleted already (or by someone else) is gone all the same.
    if (error instanceof AuthenticationError) return false;
    // A key minted without keys:write cannot delete itself: say which one is left.
    if (error instanceof PermissionDeniedError) {
      warn(`the key ${profile.keyId} may not delete itself: delete it with \`agent-service keys rm ${profile.keyId}\``);
      return false;
    }
    throw error;
  }
}
