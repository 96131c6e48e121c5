// A person's browser signing in to a remote MCP server through the service: from the URL that leads to
// the authorization server (POST /mcp/<id>/connect's, or a connect question's link after its 303), past
// the fake server's consent, to the service's callback.
import { expect } from 'vitest';
import { call } from '../client/request.ts';
import { CLICK_HEADERS, openLink } from '../client/browser-headers.ts';
import type { AgentEnv } from './agent-env.ts';

/** The browser's part of a sign-in: the authorization server's consent, then the service's callback. */
export async function consentAndReturn(url: string): Promise<void> {
  const consent = await fetch(url, { redirect: 'manual' });
  const landed = await openLink(consent.headers.get('location')!, CLICK_HEADERS);
  expect(landed.status).toBe(200);
}

/**
 * The environment's user connects the registered server `id` (POST /mcp/<id>/connect, then the browser),
 * through the environment's API or the one at `apiUrl`.
 */
export async function connectMcp(env: AgentEnv, id: string, apiUrl = env.api.url): Promise<void> {
  const started = await call<{ authorizationUrl: string }>(`${apiUrl}/mcp/${id}/connect`, { method: 'POST', headers: env.user.auth });
  expect(started.status, started.text).toBe(200);
  await consentAndReturn(started.body.authorizationUrl);
}
