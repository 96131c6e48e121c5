// Bearer-key authentication and authorisation. 401 when the key is missing, malformed, unknown or
// deleted; 403 when a valid key lacks the scope the route needs. Admin routes need both: a key of an
// admin user, holding the `admin` scope (so an admin's key narrowed to `read` administers nothing). Failed
// attempts are rate limited per client address, so keys cannot be guessed at speed: past the limit the
// address is refused whatever key it sends, a right one too, until the window ends.
import type { Request } from 'express';
import type { Db } from '../../store/db.ts';
import { authenticate, touchKey, type Principal } from '../../store/api-keys.ts';
import { ForbiddenError, UnauthorizedError } from '../../lib/workflow-safe/errors.ts';
import type { Scope } from '../../contract/scopes.ts';
import type { RateLimiter } from './rate-limit.ts';

export type AuthRequirement =
  | { kind: 'public' }
  /** `publicWhen`: a path shared by a keyed and a keyless form (an approval id or a signed token). */
  | { kind: 'scope'; scope: Scope; publicWhen?: (req: Request) => boolean }
  /** A key of an admin user with the `admin` scope. */
  | { kind: 'admin' };

const BEARER = /^Bearer\s+(\S{1,200})$/i;

/** A path as a grant's resource is kept: lower case, without a trailing slash (Express routes both alike). */
export function normalPath(path: string): string {
  return path.toLowerCase().replace(/\/+$/, '') || '/';
}
const TOUCH_INTERVAL_MS = 60_000;

export interface Authenticator {
  require(req: Request, requirement: AuthRequirement): Promise<Principal | undefined>;
}

export function createAuthenticator(options: { db: Db; failures: RateLimiter }): Authenticator {
  async function identify(req: Request): Promise<Principal> {
    const header = req.get('authorization');
    const match = header ? BEARER.exec(header) : null;
    const address = `ip:${req.ip ?? 'unknown'}`;
    // An address that spent its failures is refused whatever its key: a good guess from it gets the same
    // 429 as a bad one, so guessing on past the limit learns nothing. Asked beside the key's lookup, so a
    // request waits for one round trip to PostgreSQL, not two.
    const [, principal] = await Promise.all([
      options.failures.refuseIfSpent(address),
      match ? authenticate(options.db, match[1]!) : undefined,
    ]);
    if (!principal) {
      await options.failures.consume(address);
      throw new UnauthorizedError(
        header ? 'The API key is invalid or has been deleted' : 'Send an API key as "Authorization: Bearer <key>"',
      );
    }
    // Recording use costs a write; the lookup already says whether the last record is fresh enough.
    if (!principal.lastUsedAt || Date.now() - principal.lastUsedAt.getTime() > TOUCH_INTERVAL_MS) {
      touchKey(options.db, principal.keyId).catch((error: unknown) => req.log.warn({ err: error }, 'could not record key use'));
    }
    return principal;
  }

  return {
    async require(req, requirement) {
      if (requirement.kind === 'public') return undefined;
      if (requirement.kind === 'scope' && requirement.publicWhen?.(req)) return undefined;
      const principal = await identify(req);
      if (requirement.kind === 'admin') {
        if (!principal.isAdmin) throw new ForbiddenError('This operation needs a key of an admin user');
        if (!principal.scopes.includes('admin')) throw new ForbiddenError('This operation needs the "admin" scope');
      }
      // An OAuth grant was asked for one MCP URL (its `resource`): elsewhere it is no credential at all.
      if (principal.resource !== null && normalPath(req.path) !== principal.resource) {
        throw new UnauthorizedError(`This token was issued for ${principal.resource} only`);
      }
      if (requirement.kind === 'scope' && !principal.scopes.includes(requirement.scope)) {
        throw new ForbiddenError(`This operation needs the "${requirement.scope}" scope`);
      }
      return principal;
    },
  };
}
