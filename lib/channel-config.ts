// A channel's config as declared holds `{{secrets.KEY}}` references; the activity that sends (and
// the API route that authenticates an inbound reply) replaces them with the user's secret values
// (store/secrets.ts resolveChannelConfig reads those and calls substituteSecrets).
import type { UserChannel } from '../contract/bundle.ts';
import { SECRET_KEY_PATTERN, SECRET_REFERENCE } from '../contract/bundle-constants.ts';

export type ResolvedConfig = Record<string, string | number | boolean>;

export function secretReferences(config: UserChannel['config']): string[] {
  const names = new Set<string>();
  for (const value of Object.values(config)) {
    if (typeof value !== 'string') continue;
    for (const match of value.matchAll(SECRET_REFERENCE)) if (SECRET_KEY_PATTERN.test(match[1]!)) names.add(match[1]!);
  }
  return [...names];
}

export class ChannelSecretMissingError extends Error {
  override name = 'ChannelSecretMissingError';
}

/**
 * Replaces every reference; a referenced secret that is missing or not granted is an error naming it
 * as `<label>.<field>` (a channel's `config`, the `http` tool's `headers`).
 */
export function substituteSecrets(config: UserChannel['config'], secrets: ReadonlyMap<string, string>, label = 'config'): ResolvedConfig {
  const resolved: ResolvedConfig = {};
  for (const [field, value] of Object.entries(config)) {
    resolved[field] =
      typeof value === 'string'
        ? value.replace(SECRET_REFERENCE, (whole, name: string) => {
            // Not a reference at all (a deploy refuses such a config): left as written.
            if (!SECRET_KEY_PATTERN.test(name)) return whole;
            const secret = secrets.get(name);
            if (secret === undefined)
              throw new ChannelSecretMissingError(`${label}.${field} references secret "${name}", which is not set or not granted`);
            return secret;
          })
        : value;
  }
  return resolved;
}
