// Where a secret may be sent in a tool's request headers. The model picks a tool call's URL, and
// anyone who can start a turn (a sessions:write key, a stranger through a trigger URL) can ask it to
// pick theirs: a granted secret filled into the headers of any URL would be one prompt away from
// leaving. So each secret names its hosts, and a header carrying it anywhere else is refused.
// Provider keys and channel configs are sent only where the service itself sends them.

// The hosts' syntax (SECRET_HOST_PATTERN) is in contract/bundle-constants.ts, which clients share.

/** May a secret with these hosts be sent to `hostname` (a URL's, lower-case as URL gives it)? */
export function secretMayGoTo(hosts: readonly string[], hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return hosts.some((allowed) => (allowed.startsWith('*.') ? host.endsWith(allowed.slice(1)) : host === allowed));
}

/**
 * Why a secret among these may not go to the URL's host, naming the secret and the host, never the
 * value; undefined when every one may. The `http` tool's headers and a remote MCP server's are held to it.
 */
export function secretHostRefusal(secrets: ReadonlyMap<string, { hosts: readonly string[] }>, url: string): string | undefined {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
  } catch {
    return 'The URL is not a valid absolute URL.';
  }
  for (const [name, secret] of secrets) {
    if (secret.hosts.length === 0) {
      return (
        `The secret ${name} may not be sent in request headers: it names no hosts it may go to. ` +
        `Its owner can allow some with PUT /secret/${name} {"value": ..., "hosts": ["api.example.com"]}.`
      );
    }
    if (!secretMayGoTo(secret.hosts, host)) {
      return `The secret ${name} may be sent only to ${secret.hosts.join(', ')}, not to ${host}.`;
    }
  }
  return undefined;
}
