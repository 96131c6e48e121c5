// The redirect URI of every sign-in to a remote MCP server (`/mcp-oauth/callback`). Public: the `state`
// names the sign-in, its user and server, and is taken once. A person's browser arriving finishes it at
// once; any other GET (a link preview, a scanner, a script) gets a button that finishes it with POST, so
// fetching the URL alone spends nothing. Browsers get pages; `Accept: application/json` gets JSON.
import type { Request, Response } from 'express';
import { OPERATIONS } from '../../contract/operations/index.ts';
import { McpUnreachableError, ValidationError } from '../../lib/workflow-safe/errors.ts';
import { isLinkPreviewFetcher } from '../approvals/link-preview.ts';
import { sendPage, wantsHtml } from '../html-pages.ts';
import { connectedPage, finishButtonPage, notConnectedPage, unknownSignInPage } from '../mcp-oauth/pages.ts';
import { CALLBACK_PATH, CLIENT_DOCUMENT_PATH, type SignIns } from '../mcp-oauth/sign-in.ts';
import { clientMetadataDocument } from '../../lib/mcp/oauth/exchanges.ts';
import { publicBaseUrl } from '../public-url.ts';
import type { ApiDeps } from '../context.ts';
import { defineRoute, type Reply } from '../route.ts';

interface CallbackFields {
  code?: string;
  state?: string;
  error?: string;
  error_description?: string;
  iss?: string;
}

/** A top-level navigation of a browser (the authorization server's redirect), not a known preview fetcher. */
const isBrowserArriving = (req: Request) =>
  req.get('sec-fetch-mode') === 'navigate' && req.get('sec-fetch-dest') === 'document' && !isLinkPreviewFetcher(req.get('user-agent'));

const fieldsOf = (from: CallbackFields): Record<string, string> =>
  Object.fromEntries(
    (['code', 'state', 'error', 'error_description', 'iss'] as const).flatMap((name) =>
      typeof from[name] === 'string' ? [[name, from[name]]] : [],
    ),
  );

function reply(req: Request, res: Response, status: number, page: string, body: Record<string, unknown>): Reply | undefined {
  if (wantsHtml(req)) return sendPage(res, status, page);
  if (status >= 400) throw new ValidationError(String(body.detail));
  return { status, body };
}

export function mcpSignInRoutes(deps: ApiDeps, signIn: SignIns) {
  async function finish(req: Request, res: Response, fields: CallbackFields): Promise<Reply | undefined> {
    if (!fields.state) return reply(req, res, 400, unknownSignInPage(), { detail: 'The callback carries no state' });
    const done = await signIn.finish({
      state: fields.state,
      ...(fields.code ? { code: fields.code } : {}),
      ...(fields.error ? { error: fields.error } : {}),
      ...(fields.error_description ? { errorDescription: fields.error_description } : {}),
      ...(fields.iss !== undefined ? { iss: fields.iss } : {}),
    });
    switch (done.outcome) {
      case 'unknown':
        return reply(req, res, 400, unknownSignInPage(), {
          detail: 'No sign-in is under way with this state: it was used, or it is too old',
        });
      case 'refused':
        return reply(req, res, 400, notConnectedPage(`The authorization server said: ${done.reason}`), {
          detail: `The authorization server said: ${done.reason}`,
        });
      case 'failed':
        if (wantsHtml(req)) return sendPage(res, 502, notConnectedPage(done.reason));
        throw new McpUnreachableError(`The MCP server "${done.serverId}" could not be signed in to: ${done.reason}`);
      case 'connected':
        return reply(req, res, 200, connectedPage(done.serverId), { serverId: done.serverId, connected: true });
    }
  }

  return [
    defineRoute(OPERATIONS.getMcpClientDocument, {
      async handle({ req }) {
        const base = publicBaseUrl(deps.config, req);
        return { status: 200, body: clientMetadataDocument(`${base}${CLIENT_DOCUMENT_PATH}`, `${base}${CALLBACK_PATH}`) };
      },
    }),
    defineRoute(OPERATIONS.finishMcpSignIn, {
      async handle({ req, res, query }) {
        const fields = query as CallbackFields;
        if (!isBrowserArriving(req)) return sendPage(res, 200, finishButtonPage(CALLBACK_PATH, fieldsOf(fields)));
        return finish(req, res, fields);
      },
    }),
    defineRoute(OPERATIONS.finishMcpSignInByButton, {
      async handle({ req, res, body }) {
        return finish(req, res, body as CallbackFields);
      },
    }),
  ];
}
