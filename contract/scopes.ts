// What an API key may do. A new key has every scope of the key that made it unless narrowed, and a
// key can only mint keys whose scopes it holds itself, so a narrowed key can never widen its own power.
export const SCOPES = [
  'agents:write',
  'sessions:write',
  'read',
  'secrets:write',
  'keys:write',
  'webhooks:write',
  'approvals:answer',
  // Admin actions (/admin/*). Only keys of an admin user may hold it, and it counts only there.
  'admin',
] as const;

export type Scope = (typeof SCOPES)[number];

/** Every scope a user may hold: an admin user may hold `admin`, no one else. */
export function scopesFor(user: { isAdmin: boolean }): readonly Scope[] {
  return user.isAdmin ? SCOPES : SCOPES.filter((scope) => scope !== 'admin');
}

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
