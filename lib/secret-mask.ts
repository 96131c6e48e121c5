// What a server answers may echo the secrets the service sent it (a header read back, an error quoting
// the request): every secret value in such a text is replaced by its name before the model, an event or
// a user reads it, so a secret bound to one host cannot be carried to another by the model.

/** Replaces every value of `secrets` (by name) in a text with `[secret NAME]`, longest values first. */
export function secretMasker(secrets: ReadonlyMap<string, string>): (text: string) => string {
  return valueMasker([...secrets].map(([name, value]) => [value, `[secret ${name}]`] as const));
}

/**
 * Replaces each value in a text with what stands for it (`[value, by]` pairs), longest values first, so a
 * value that contains another is replaced whole. Empty values are ignored.
 */
export function valueMasker(replacements: Iterable<readonly [string, string]>): (text: string) => string {
  const ordered = [...replacements].filter(([value]) => value.length > 0).sort((a, b) => b[0].length - a[0].length);
  if (ordered.length === 0) return (text) => text;
  return (text) => ordered.reduce((masked, [value, by]) => masked.split(value).join(by), text);
}
