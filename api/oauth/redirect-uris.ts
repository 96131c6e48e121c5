// The redirect URIs an OAuth client may have, registered (RFC 7591) or named by its metadata document:
// where a code goes must not be readable on the way, so HTTPS, plain HTTP only to this machine's
// loopback (a desktop client's local listener), or an application's own scheme (RFC 8252,
// `cursor://...`); the SDK refuses `javascript:` and the like already.
export const MAX_REDIRECT_URIS = 10;
const MAX_URI_CHARS = 2_000;

/** Why a redirect URI is refused, or undefined. */
export function redirectProblem(uri: string): string | undefined {
  if (uri.length > MAX_URI_CHARS) return `a redirect URI is longer than ${MAX_URI_CHARS} characters`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${uri}: not a URL`;
  }
  if (url.protocol === 'http:' && !['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)) {
    return `${uri}: plain http is allowed only to localhost; use https`;
  }
  if (url.protocol === 'file:') return `${uri}: not a redirect URI`;
  return undefined;
}

/** Why a client's list of redirect URIs is refused, or undefined. */
export function redirectListProblem(uris: readonly unknown[]): string | undefined {
  if (uris.length > MAX_REDIRECT_URIS) return `At most ${MAX_REDIRECT_URIS} redirect URIs`;
  return uris.map((uri) => redirectProblem(String(uri))).find((found) => found !== undefined);
}
