// /agent/<name>/mcp: the agent as an MCP server over Streamable HTTP, served by the official SDK's
// transport in its stateless form: each POST gets a server of its own (api/mcp/agent-server.ts), so any
// API process answers any request and a restart loses nothing but calls in flight, whose turns go on.
// The initialize answer carries an Mcp-Session-Id the client sends back; it holds no state here, it
// only names the client's calls, so a cancellation finds the turn it cancels (api/mcp/cancellations.ts).
import type { Request } from 'express';
import { OPERATIONS } from '../../contract/operations/index.ts';
import { randomToken } from '../../lib/ids.ts';
import { findUnstorableText } from '../../lib/storable-text.ts';
import { getRevision } from '../../store/agents.ts';
import type { Bundle } from '../../lib/bundle/index.ts';
import type { ApiDeps } from '../context.ts';
import { defineRoute, type Reply } from '../route.ts';
import { loadOwnedAgent } from '../agents/owned-agent.ts';
import { normalPath } from '../middleware/auth.ts';
import { publicBaseUrl } from '../public-url.ts';
import { buildAgentServer } from '../mcp/agent-server.ts';
import { cancelCall } from '../mcp/cancellations.ts';
import { mcpServerSdk } from '../mcp/sdk.ts';

/** What a client's Mcp-Session-Id may be (visible ASCII, as MCP says), so it can key a row. */
const CLIENT_SESSION = /^[\x21-\x7E]{1,128}$/;

const NOT_OFFERED: Reply = { status: 405, headers: { allow: 'POST' } };

/** A JSON-RPC error answered over HTTP, as the transport answers one. */
function rpcError(status: number, code: number, message: string): Reply {
  return { status, body: { jsonrpc: '2.0', error: { code, message }, id: null } };
}

const hasMethod = (message: unknown, method: string) =>
  typeof message === 'object' && message !== null && (message as { method?: unknown }).method === method;

/** Whether a request carries a progressToken: its answer is streamed, with the progress notifications first. */
const wantsProgress = (message: unknown) =>
  (message as { params?: { _meta?: { progressToken?: unknown } } } | null)?.params?._meta?.progressToken !== undefined;

/**
 * The body as JSON, left as text by the app (api/app.ts) so a malformed one gets the protocol's parse
 * error; parsed already when the path reached Express in another spelling (a trailing slash, say).
 */
function parsed(req: Request): { ok: true; value: unknown } | { ok: false } {
  if (typeof req.body === 'object' && req.body !== null) return { ok: true, value: req.body as unknown };
  if (typeof req.body !== 'string') return { ok: false };
  try {
    return { ok: true, value: JSON.parse(req.body) };
  } catch {
    return { ok: false };
  }
}

export function agentMcpRoutes(deps: ApiDeps) {
  // Where an MCP client finds how to sign in (RFC 9728): the agent's protected-resource metadata.
  const challenge = (req: Request, sentCredential: boolean) => {
    const metadata = `${publicBaseUrl(deps.config, req)}/.well-known/oauth-protected-resource${normalPath(req.path)}`;
    return `Bearer${sentCredential ? ' error="invalid_token",' : ''} resource_metadata="${metadata}"`;
  };
  return [
    defineRoute(OPERATIONS.postAgentMcp, {
      bodyCheckedByHandler: true,
      challenge,
      // A tool call follows its turn: it holds its connection like a waiting send, and counts as one.
      holdsConnection: (req) => {
        const body = parsed(req);
        return body.ok && hasMethod(body.value, 'tools/call');
      },
      async handle({ req, res, params, principal }) {
        const body = parsed(req);
        if (!body.ok) return rpcError(400, -32700, 'Parse error: the body is not JSON');
        // The current revision of MCP has no batches; one message per POST also bounds what a request costs.
        if (Array.isArray(body.value)) return rpcError(400, -32600, 'Invalid Request: send one JSON-RPC message per request, not a batch');
        const unstorable = findUnstorableText(body.value, '')[0];
        if (unstorable) return rpcError(400, -32602, `Invalid params: ${unstorable.path} ${unstorable.message}`);
        const agent = await loadOwnedAgent(deps.db, principal!.userId, params.name!);
        const header = req.get('mcp-session-id');
        const clientSession = header !== undefined && CLIENT_SESSION.test(header) ? header : undefined;
        await cancelCall(deps, req, principal!, clientSession, body.value);

        const sdk = await mcpServerSdk();
        let bundle: Promise<Bundle> | undefined;
        const gone = new AbortController();
        const server = buildAgentServer({
          sdk,
          agent,
          bundle: () => (bundle ??= getRevision(deps.db, agent.id, agent.revision).then((revision) => revision!.bundle)),
          call: { deps, req, principal: principal!, clientSession, signal: gone.signal },
        });
        // JSON answers, but for a call that asked for progress: its notifications need the SSE form.
        const transport = new sdk.StreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: !wantsProgress(body.value),
        });
        res.on('close', () => {
          gone.abort();
          void server.close().catch(() => undefined);
        });
        await server.connect(transport);
        // Gone while connecting: the close above found no transport to end.
        if (res.destroyed) {
          await server.close();
          return undefined;
        }
        if (hasMethod(body.value, 'initialize')) res.setHeader('mcp-session-id', `mcp_${randomToken(130)}`);
        await transport.handleRequest(req, res, body.value);
        return undefined;
      },
    }),
    defineRoute(OPERATIONS.getAgentMcp, { challenge, handle: () => NOT_OFFERED }),
    defineRoute(OPERATIONS.deleteAgentMcp, { challenge, handle: () => NOT_OFFERED }),
  ];
}
