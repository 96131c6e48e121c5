// /agent/<name>/a2a: the agent as an A2A agent (v1.0, JSON-RPC), its card beside it. The official A2A
// SDK speaks the protocol; api/a2a/request-handler.ts answers it from the service's own records, so the
// handler is built per request for its agent and user, and any API process serves any request.
import express from 'express';
import { OPERATIONS } from '../../contract/operations/index.ts';
import { getRevision } from '../../store/agents.ts';
import type { ApiDeps } from '../context.ts';
import { defineRoute } from '../route.ts';
import { publicBaseUrl } from '../public-url.ts';
import { loadOwnedAgent } from '../agents/owned-agent.ts';
import { runSubRouter } from '../sub-router.ts';
import { onClientGone } from '../streaming/client-gone.ts';
import { agentCard } from '../a2a/card.ts';
import { agentA2aHandler } from '../a2a/request-handler.ts';
import { a2aSdk } from '../a2a/sdk.ts';

export function agentA2aRoutes(deps: ApiDeps) {
  async function cardOf(req: express.Request, userId: string, name: string) {
    const agent = await loadOwnedAgent(deps.db, userId, name);
    const { bundle } = (await getRevision(deps.db, agent.id, agent.revision))!;
    const base = publicBaseUrl(deps.config, req);
    return { agent, card: agentCard(agent, bundle, { a2a: `${base}/agent/${encodeURIComponent(agent.name)}/a2a`, base }) };
  }

  return [
    defineRoute(OPERATIONS.getAgentA2aCard, {
      async handle({ req, params, principal }) {
        const [sdk, { card }] = await Promise.all([a2aSdk(), cardOf(req, principal!.userId, params.name!)]);
        // The card's JSON form (its one-of members as the protocol writes them), not the SDK's object.
        return { status: 200, body: sdk.core.AgentCard.toJSON(card) };
      },
    }),
    defineRoute(OPERATIONS.postAgentA2a, {
      bodyCheckedByHandler: true,
      // A message that follows its turn (a blocking send, a stream, a resubscription) holds its connection like
      // a waiting send, and counts as one; a read does not.
      holdsConnection: (req) =>
        ['SendMessage', 'SendStreamingMessage', 'SubscribeToTask'].includes(
          (req.body as { method?: unknown } | undefined)?.method as string,
        ),
      async handle({ req, res, params, principal }) {
        const [sdk, { agent, card }] = await Promise.all([a2aSdk(), cardOf(req, principal!.userId, params.name!)]);
        const gone = new AbortController();
        onClientGone(res, () => gone.abort());
        const requestHandler = agentA2aHandler({ deps, sdk, req, principal: principal!, agent, card, signal: gone.signal });
        const endpoint = express.Router().use(
          '/agent/:name/a2a',
          sdk.express.jsonRpcHandler({
            requestHandler,
            userBuilder: () => Promise.resolve({ isAuthenticated: true, userName: principal!.userId }),
          }),
        );
        return runSubRouter(endpoint, req, res);
      },
    }),
  ];
}
