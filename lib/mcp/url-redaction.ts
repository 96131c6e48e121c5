// A registered MCP server's URL often carries its credential (`?token=...`, `?api_key=...`, rarely
// `user:pass@`). Whoever may not change the server (a key without `agents:write`), and every error and
// event, gets the URL with its query string, fragment and userinfo replaced; its owner sees it whole.
import { valueMasker } from '../secret-mask.ts';

/** What stands in for a hidden part of a URL. */
export const REDACTED = '[redacted]';

/**
 * Query values this long or longer are masked on their own too (a server quoting the token it was
 * given); shorter ones (`v=2`, `format=json`) would mask ordinary words of a result.
 */
const MASKED_VALUE_CHARS = 8;

/** The URL with its userinfo, query string and fragment replaced by `[redacted]` (a text that is no URL, as is). */
export function redactedMcpUrl(raw: string): string {
  const url = parsed(raw);
  if (!url) return raw.replace(/[?#@].*$/s, REDACTED);
  const userinfo = url.username || url.password ? `${REDACTED}@` : '';
  const query = url.search ? `?${REDACTED}` : '';
  const fragment = url.hash ? `#${REDACTED}` : '';
  return `${url.protocol}//${userinfo}${url.host}${url.pathname}${query}${fragment}`;
}

/**
 * Replaces, in a text (an error, a result the server sent), the URL's credential-bearing parts wherever
 * they appear: the URL whole (as written and as parsed), its query string and fragment, its userinfo,
 * and each query value of MASKED_VALUE_CHARS or more (as written and decoded).
 */
export function urlCredentialMasker(raw: string): (text: string) => string {
  const url = parsed(raw);
  const redacted = redactedMcpUrl(raw);
  if (!url || redacted === url.href) return (text) => text;
  const replacements = new Map<string, string>();
  for (const whole of [raw, url.href]) replacements.set(whole, redacted);
  const userinfo = url.password ? `${url.username}:${url.password}@` : url.username ? `${url.username}@` : '';
  if (userinfo) replacements.set(userinfo, `${REDACTED}@`);
  for (const part of urlCredentialParts(raw)) {
    if (!replacements.has(part)) replacements.set(part, REDACTED);
  }
  // Longest first, so a whole URL is replaced before its query string is, and that before a value in it.
  return valueMasker(replacements);
}

/**
 * The parts of a URL that may carry a credential, as they could be quoted: its query string and fragment,
 * its password, and each query value of MASKED_VALUE_CHARS or more (as written and decoded).
 */
export function urlCredentialParts(raw: string): string[] {
  const url = parsed(raw);
  if (!url) return [];
  const parts = [url.search.slice(1), url.hash.slice(1), url.password, decodeURIComponentSafe(url.password), ...queryValues(url)];
  return [...new Set(parts.filter((part) => part.length > 0))];
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function queryValues(url: URL): string[] {
  const written = url.search
    .slice(1)
    .split('&')
    .map((pair) => pair.slice(pair.indexOf('=') + 1));
  const decoded = [...url.searchParams.values()];
  return [...written, ...decoded].filter((value) => value.length >= MASKED_VALUE_CHARS);
}

function parsed(raw: string): URL | undefined {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}
