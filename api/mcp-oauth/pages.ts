// The pages a person's browser lands on at the end of a sign-in to an MCP server (the callback).
import { escapeHtml } from '../../lib/escape-html.ts';
import { pageLayout } from '../html-pages.ts';

export function connectedPage(serverId: string): string {
  return pageLayout(
    'Connected',
    `<h1>Connected to “${escapeHtml(serverId)}”.</h1><p>Your agents can use it now; a turn that waited for it goes on.</p><p class="muted">You can close this page.</p>`,
  );
}

/** For a fetch that is not a person's browser arriving (a link preview, a scanner): nothing happens until the button. */
export function finishButtonPage(actionUrl: string, fields: Record<string, string>): string {
  const hidden = Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('');
  return pageLayout(
    'Finish connecting',
    `<h1>Finish connecting</h1><form method="post" action="${escapeHtml(actionUrl)}">${hidden}<div class="options"><button type="submit">Finish connecting</button></div></form>`,
  );
}

export function notConnectedPage(reason: string): string {
  return pageLayout(
    'Not connected',
    `<h1>Not connected.</h1><div class="question">${escapeHtml(reason)}</div><p class="muted">Nothing was stored. Start again from the dashboard's tool servers page, or with POST /mcp/&lt;id&gt;/connect.</p>`,
  );
}

export function unknownSignInPage(): string {
  return pageLayout(
    'Link not valid',
    `<h1>This sign-in was used already, or it is too old.</h1><p class="muted">Nothing was stored. Start again from the dashboard's tool servers page, or with POST /mcp/&lt;id&gt;/connect.</p>`,
  );
}
