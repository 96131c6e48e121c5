// What an API key may do. A new key has every scope unless narrowed, and a key can only mint keys
// whose scopes it holds itself, so a narrowed key can never widen its own power.
export const SCOPES = [
  'agents:write',
  'sessions:write',
  'read',
  'secrets:write',
  'keys:write',
  'webhooks:write',
  'approvals:answer',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
