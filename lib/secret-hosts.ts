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
