// What a browser sends when a person opens a link, and what a link scanner sends: the same browser
// User-Agent, but only a person's click is a user-activated top-level navigation (Fetch Metadata:
// `Sec-Fetch-User: ?1` with `Sec-Fetch-Mode: navigate`), which is what answers an approval on a GET.
// Sent with node:http: fetch itself sets `Sec-Fetch-Mode: cors`, as the Fetch standard says it must.
import http from 'node:http';

export const BROWSER_USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';

/** A person clicking a link (in a mail, a chat, or pasting it into the address bar). */
export const CLICK_HEADERS: Readonly<Record<string, string>> = {
  'user-agent': BROWSER_USER_AGENT,
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'sec-fetch-user': '?1',
  'sec-fetch-mode': 'navigate',
  'sec-fetch-dest': 'document',
  'sec-fetch-site': 'cross-site',
};

/** A mail security scanner opening every link with a browser's User-Agent, no person involved. */
export const SCANNER_HEADERS: Readonly<Record<string, string>> = {
  'user-agent': BROWSER_USER_AGENT,
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
};

/** A GET of `url` with exactly these headers (HEAD with `method`); its status, body and any redirect's target. */
export function openLink(
  url: string,
  headers: Readonly<Record<string, string>> = CLICK_HEADERS,
  method: 'GET' | 'HEAD' = 'GET',
): Promise<{ status: number; text: string; location?: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          text: Buffer.concat(chunks).toString('utf8'),
          ...(response.headers.location ? { location: response.headers.location } : {}),
        }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}
