// The HTTP API as an Express app, without listening: server.ts listens, tests call it in-process.
import express, { type Express } from 'express';
import type { ApiDeps } from './context.ts';
import { traceMiddleware } from './middleware/trace.ts';
import { requestMetrics } from './middleware/request-metrics.ts';
import { requestSpan } from './middleware/request-span.ts';
import { notFoundHandler, problemHandler } from './middleware/problem.ts';
import { createRateLimiter } from './middleware/rate-limit.ts';
import { createStreamLimiter } from './streaming/stream-limiter.ts';
import { createAuthenticator } from './middleware/auth.ts';
import { mountRoutes, type RouteDef } from './route.ts';
import { healthRoutes } from './routes/health.ts';
import { keyRoutes } from './routes/keys.ts';
import { deviceRoutes } from './routes/device.ts';
import { adminRoutes } from './routes/admin.ts';
import { metaRoutes } from './routes/meta.ts';
import { deployRoutes } from './routes/deploy.ts';
import { DEPLOY_CONTENT_TYPES } from '../contract/operations/agents.ts';
import { agentRoutes } from './routes/agents.ts';
import { revisionRoutes } from './routes/revisions.ts';
import { evalRoutes } from './routes/evals.ts';
import { evalSetRoutes } from './routes/eval-sets.ts';
import { secretRoutes } from './routes/secrets.ts';
import { approverRoutes } from './routes/approvers.ts';
import { schemaRoutes } from './routes/schemas.ts';
import { sessionEventRoutes } from './routes/session-events.ts';
import { sessionRoutes } from './routes/sessions.ts';
import { sessionHistoryRoutes } from './routes/session-history.ts';
import { mediaRoutes } from './routes/media.ts';
import { createStorage } from '../lib/storage.ts';
import { webhookRoutes } from './routes/webhooks.ts';
import { approvalRoutes } from './routes/approvals.ts';
import { approvalLinkRoutes } from './routes/approval-links.ts';
import { inboundRoutes } from './routes/inbound.ts';
import { triggerRoutes } from './routes/triggers.ts';
import { toolRoutes } from './routes/tools.ts';
import { registeredToolsReader } from './agents/registered-tools.ts';
import { signInsOf } from './mcp-oauth/sign-in.ts';
import { mcpSignInRoutes } from './routes/mcp-sign-in.ts';
import { mcpServerRoutes } from './routes/mcp-servers.ts';
import { commandRoutes } from './routes/commands.ts';
import { agentMcpRoutes } from './routes/agent-mcp.ts';
import { agentA2aRoutes } from './routes/agent-a2a.ts';
import { oauthRoutes } from './routes/oauth.ts';
import { codecRoutes } from './routes/codec.ts';
import { usageRoutes } from './routes/usage.ts';
import { limitRoutes } from './routes/limits.ts';
import { budgetRoutes } from './routes/budgets.ts';
import { codecCors } from './middleware/codec-cors.ts';
import { serveDashboard } from './middleware/serve-dashboard.ts';

export interface App {
  app: Express;
  routes: RouteDef[];
}

export function createApp(deps: ApiDeps): App {
  const { limits } = deps.config;
  const app = express();
  app.disable('x-powered-by');
  // No ETag on API answers: a browser would otherwise turn a repeated GET into a 304 with no body, which
  // no operation documents and a client reading JSON cannot use (the dashboard's static files keep theirs).
  app.set('etag', false);
  app.set('trust proxy', deps.config.trustProxy);

  if (deps.config.tracing.endpoint) app.use(requestSpan());
  app.use(traceMiddleware({ logger: deps.logger }));
  app.use(requestMetrics());
  // The web page (dashboard/dist) under /app/, with its own Content-Security-Policy.
  app.use('/app', serveDashboard());
  // Bundles are parsed from their text (line/column errors, duplicate keys), so /deploy reads text.
  app.use('/deploy', express.text({ limit: limits.jsonBodyBytes, type: [...DEPLOY_CONTENT_TYPES] }));
  // Inbound provider replies are authenticated by signatures over the exact bytes received.
  app.use('/inbound', express.raw({ limit: limits.jsonBodyBytes, type: () => true }));
  // A webhook trigger takes any text body; it is decoded (and JSON checked) by its route.
  app.use('/trigger', express.raw({ limit: deps.config.triggers.bodyBytes, type: () => true }));
  // An agent's MCP endpoint parses its JSON itself: a malformed body gets the protocol's parse error.
  app.use(/^\/agent\/[^/]+\/mcp\/?$/i, express.text({ limit: limits.jsonBodyBytes, type: ['application/json'] }));
  // Anyone may register an OAuth client: a small document (api/oauth/clients.ts bounds what is kept).
  app.use('/oauth/register', express.json({ limit: '16kb', type: ['application/json'] }));
  app.use(express.json({ limit: limits.jsonBodyBytes, type: ['application/json', 'application/*+json'] }));
  app.use('/codec', codecCors(deps.config.codecCorsOrigins));
  // The answer page's buttons post an HTML form, and so does the sign-in callback's.
  app.use('/approval', express.urlencoded({ limit: limits.jsonBodyBytes, extended: false }));
  app.use('/mcp-oauth', express.urlencoded({ limit: '16kb', extended: false }));

  const limiter = createRateLimiter({
    db: deps.db,
    points: limits.rateLimitPoints,
    windowSeconds: limits.rateLimitWindowSeconds,
    prefix: 'req',
  });
  const streams = createStreamLimiter({ perUser: limits.openStreamsPerUser });
  // Remote MCP listings of deploys and GET /mcp/<id> share one bound per user (MCP_LISTINGS_PER_USER).
  const registeredTools = registeredToolsReader(deps);
  const mcpSignIns = signInsOf(deps);
  const routes: RouteDef[] = [
    ...healthRoutes(deps),
    ...keyRoutes(deps),
    ...deviceRoutes(deps),
    ...adminRoutes(deps),
    ...deployRoutes(deps, registeredTools),
    ...agentRoutes(deps),
    ...revisionRoutes(deps),
    ...evalRoutes(deps),
    ...evalSetRoutes(deps),
    ...secretRoutes(deps),
    ...approverRoutes(deps),
    ...sessionRoutes(deps),
    ...sessionEventRoutes(deps),
    ...sessionHistoryRoutes(deps),
    ...mediaRoutes(deps, deps.storage ?? createStorage(deps.config)),
    ...webhookRoutes(deps),
    ...approvalRoutes(deps),
    ...approvalLinkRoutes(deps),
    ...inboundRoutes(deps),
    ...triggerRoutes(deps),
    ...toolRoutes(deps),
    ...mcpServerRoutes(deps, registeredTools, mcpSignIns),
    ...mcpSignInRoutes(deps, mcpSignIns),
    ...commandRoutes(deps),
    ...agentMcpRoutes(deps),
    ...agentA2aRoutes(deps),
    ...oauthRoutes(deps),
    ...schemaRoutes(),
    ...metaRoutes(deps),
    ...codecRoutes(deps),
    ...usageRoutes(deps),
    ...limitRoutes(deps, { requests: limiter, streams }),
    ...budgetRoutes(deps),
  ];

  const failures = createRateLimiter({
    db: deps.db,
    points: limits.authFailuresPerWindow,
    windowSeconds: limits.rateLimitWindowSeconds,
    prefix: 'authfail',
  });
  const router = express.Router();
  mountRoutes(router, routes, { auth: createAuthenticator({ db: deps.db, failures }), limiter, streams });
  app.use(router);

  app.use(notFoundHandler);
  app.use(problemHandler);
  return { app, routes };
}
