// The scopes a new key may get, whether minted by POST /key or by approving a device login: those
// asked for (default: every scope of the calling key, but for a device login never `admin` unless it is
// asked for by name), never one the calling key lacks, and `admin` only for a user who is an admin.
import { ForbiddenError } from '../lib/workflow-safe/errors.ts';
import { scopesFor, type Scope } from '../contract/scopes.ts';
import type { Principal } from '../store/api-keys.ts';

export function scopesToGrant(
  caller: Principal,
  asked: readonly Scope[] | null | undefined,
  options: { adminOnlyByName?: boolean } = {},
): Scope[] {
  const allowed = scopesFor(caller);
  if (asked?.includes('admin') && !allowed.includes('admin'))
    throw new ForbiddenError('Only keys of an admin user may hold the "admin" scope');
  // A device login that names no scopes is a program asking for "whatever you have": it gets the
  // approver's scopes, but never `admin`, which only a request naming it can get (and the person sees).
  const fallback = options.adminOnlyByName ? caller.scopes.filter((scope) => scope !== 'admin') : caller.scopes;
  const scopes = (asked ?? fallback).filter((scope) => allowed.includes(scope));
  const beyond = scopes.filter((scope) => !caller.scopes.includes(scope));
  if (beyond.length) throw new ForbiddenError(`The calling key cannot grant scopes it lacks: ${beyond.join(', ')}`);
  return scopes;
}
