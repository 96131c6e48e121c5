// Which page a path shows. Paths are below /app (router.tsx).
import type { ComponentChildren } from 'preact';
import { matchPath, type Location } from './router.tsx';
import { ApprovalPage } from './pages/approval.tsx';
import { ApprovalsPage } from './pages/approvals.tsx';
import { AgentPage } from './pages/agent.tsx';
import { AgentsPage } from './pages/agents.tsx';
import { DeployPage } from './pages/deploy.tsx';
import { DevicePage } from './pages/device.tsx';
import { EvalPage } from './pages/eval.tsx';
import { OAuthConsentPage } from './pages/oauth-consent.tsx';
import { HomePage } from './pages/home.tsx';
import { KeysPage } from './pages/keys.tsx';
import { NotFoundPage } from './pages/not-found.tsx';
import { SecretsPage } from './pages/secrets.tsx';
import { WebhooksPage } from './pages/webhooks.tsx';
import { SessionPage } from './pages/session.tsx';
import { SessionsPage } from './pages/sessions.tsx';
import { ToolServersPage } from './pages/tool-servers.tsx';
import { UsagePage } from './pages/usage.tsx';

interface Route {
  title: string;
  render(): ComponentChildren;
}

type Table = [pattern: string, title: string, page: (params: Record<string, string>, location: Location) => ComponentChildren][];

const TABLE: Table = [
  ['/', 'Overview', () => <HomePage />],
  ['/approvals', 'Approvals', () => <ApprovalsPage />],
  ['/approvals/:id', 'Approval', ({ id }) => <ApprovalPage id={id!} />],
  ['/agents', 'Agents', () => <AgentsPage />],
  ['/agents/:name', 'Agent', ({ name }) => <AgentPage name={name!} />],
  ['/agents/:name/sessions', 'Sessions', ({ name }) => <SessionsPage agent={name!} />],
  ['/sessions/:id', 'Session', ({ id }) => <SessionPage id={id!} />],
  ['/evals/:id', 'Eval', ({ id }) => <EvalPage id={id!} />],
  ['/deploy', 'Deploy', (_params, location) => <DeployPage agent={location.query.get('agent') ?? undefined} />],
  ['/tool-servers', 'Tool servers', () => <ToolServersPage />],
  ['/usage', 'Usage', () => <UsagePage />],
  ['/keys', 'Keys', () => <KeysPage />],
  ['/secrets', 'Secrets', () => <SecretsPage />],
  ['/webhooks', 'Webhooks', () => <WebhooksPage />],
  ['/device', 'Device login', (_params, location) => <DevicePage location={location} />],
  ['/oauth/consent', 'Allow an MCP client', (_params, location) => <OAuthConsentPage location={location} />],
];

export function resolveRoute(location: Location): Route {
  for (const [pattern, title, page] of TABLE) {
    const params = matchPath(pattern, location.path);
    if (params) return { title, render: () => page(params, location) };
  }
  return { title: 'Not found', render: () => <NotFoundPage /> };
}
