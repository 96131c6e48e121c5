// A server's tool list as it came, searched for the credentials it was sent (lib/mcp/open.ts: its header
// secrets' values, credential-looking literal header values, the credential parts of its URL): every
// string, object keys included, at any depth. A listing that carries one is refused rather than masked
// (lib/mcp/tools.ts): a masked schema is not the server's (a `default`, `enum`, `const` or `pattern`
// turned into `[secret NAME]` describes input the server would refuse, a masked key renames a
// parameter), and it would be frozen into a revision for good; a server that publishes the credential
// it was given is one its owner has to hear about.

export interface SecretInListing {
  /** What the credential is ("the secret TOKEN", "the value of the header X-Api-Key"), never its value. */
  name: string;
  /** A JSON pointer to the string, or to the object whose key holds it (a key is never quoted). */
  where: string;
}

/**
 * The first credential found in `value` (`secrets`: what each is, and its value), or undefined. Iterative:
 * a listing may nest deeper than the stack.
 */
export function secretInListing(value: unknown, secrets: Iterable<readonly [string, string]>): SecretInListing | undefined {
  const named = [...secrets].filter(([, secret]) => secret.length > 0);
  if (named.length === 0) return undefined;
  const carried = (text: string) => named.find(([, secret]) => text.includes(secret))?.[0];
  const pending: { value: unknown; where: string }[] = [{ value, where: '' }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { value: current, where } = next;
    if (typeof current === 'string') {
      const name = carried(current);
      if (name) return { name, where };
    } else if (Array.isArray(current)) {
      current.forEach((item, index) => pending.push({ value: item, where: `${where}/${index}` }));
    } else if (typeof current === 'object' && current !== null) {
      for (const [key, item] of Object.entries(current)) {
        const name = carried(key);
        // The pointer stops at the object: the key itself is the secret's carrier.
        if (name) return { name, where: `${where} (a key)` };
        pending.push({ value: item, where: `${where}/${escapePointer(key)}` });
      }
    }
  }
  return undefined;
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
