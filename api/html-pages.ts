// The small HTML pages people reach from a link or a redirect (an approval's answer link, the end of a
// sign-in to an MCP server): one look, no script, nothing loaded, and headers that keep the URL's token
// out of caches and referrers.
import type { Request, Response } from 'express';
import { escapeHtml } from '../lib/escape-html.ts';

export const PAGE_HEADERS = {
  'Cache-Control': 'no-store',
  // A token is in the URL: never send it onwards as a referrer.
  'Referrer-Policy': 'no-referrer',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
};

export function pageLayout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow"><title>${escapeHtml(title)}</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#1f2328}
.question{white-space:pre-wrap;background:#f6f8fa;border-radius:8px;padding:1rem;margin:1rem 0}
.options{display:flex;flex-wrap:wrap;gap:.5rem}
button{font:inherit;padding:.5rem 1.25rem;border-radius:6px;border:1px solid #1f6feb;background:#1f6feb;color:#fff;cursor:pointer}
textarea{font:inherit;width:100%;box-sizing:border-box;margin:.5rem 0;min-height:4rem}
.muted{color:#59636e;font-size:.9rem}
</style></head><body>${body}</body></html>`;
}

/**
 * For a page whose form goes on to another site (a sign-in's button, answered by a redirect to the
 * authorization server): browsers hold that redirect to `form-action` too.
 */
export const ONWARD_FORM_HEADERS = {
  ...PAGE_HEADERS,
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' https: http:; frame-ancestors 'none'",
};

export function sendPage(res: Response, status: number, html: string, headers: Record<string, string> = PAGE_HEADERS): undefined {
  res.status(status).set(headers).type('html').send(html);
  return undefined;
}

export function wantsHtml(req: Request): boolean {
  return req.accepts(['html', 'json']) === 'html';
}

/**
 * A person's click: a top-level navigation the user set off (Fetch Metadata, sent by every current
 * browser). Mail security scanners open every link with a browser's User-Agent, but not as a click: they
 * get a page whose button acts, so their fetch changes nothing and the person's click still counts.
 */
export function isClick(req: Request): boolean {
  return req.get('sec-fetch-user') === '?1' && req.get('sec-fetch-mode') === 'navigate';
}
