// What a server answers may echo the secrets the service sent it (a header read back, an error quoting
// the request): every secret value in such a text is replaced by its name before the model, an event or
// a user reads it, so a secret bound to one host cannot be carried to another by the model.

/** Replaces every value of `secrets` (by name) in a text with `[secret NAME]`, longest values first. */
export function secretMasker(secrets: ReadonlyMap<string, string>): (text: string) => string {
  const values = [...secrets].filter(([, value]) => value.length > 0).sort((a, b) => b[1].length - a[1].length);
  if (values.length === 0) return (text) => text;
  return (text) => values.reduce((masked, [name, value]) => masked.split(value).join(`[secret ${name}]`), text);
}
