// The entry point: `new Client({ baseUrl, apiKey })` and a property per resource of the API.
import type { CreateApprovalBody } from './contract.ts';
import { AgentServiceError } from './errors.ts';
import { Admin } from './resources/admin.ts';
import { Agents } from './resources/agents.ts';
import { ApprovalHandle, Approvals } from './resources/approvals.ts';
import { Approvers } from './resources/approvers.ts';
import { Device } from './resources/device.ts';
import { OAuth } from './resources/oauth.ts';
import { eventsFunction, type EventsFunction } from './resources/events.ts';
import { Evals } from './resources/evals.ts';
import { Health } from './resources/health.ts';
import { Keys } from './resources/keys.ts';
import { Mcps } from './resources/mcps.ts';
import { Meta } from './resources/meta.ts';
import { Runs } from './resources/runs.ts';
import { Secrets } from './resources/secrets.ts';
import { Sessions } from './resources/sessions.ts';
import { ToolResults } from './resources/tool-results.ts';
import { Usage } from './resources/usage.ts';
import { Limits } from './resources/limits.ts';
import { Webhooks } from './resources/webhooks.ts';
import { Transport, type FetchLike, type RequestOptions } from './transport.ts';

export interface ClientOptions {
  /** The service's address, e.g. `http://127.0.0.1:3000`. Default: AGENT_SERVICE_URL. */
  baseUrl?: string;
  /** An API key (`sk_...`). Default: AGENT_SERVICE_API_KEY. Public calls (health) work without. */
  apiKey?: string;
  /** Retries of a failed call (sdk/README.md, "Errors": retries). Default 2. */
  maxRetries?: number;
  /** How long a call waits for an answer (for a stream: its headers). Default 60 s. */
  timeoutMs?: number;
  /** Another fetch (a proxy agent, a test double). Default: the platform's. */
  fetch?: FetchLike;
  /** Headers sent with every call. */
  defaultHeaders?: Record<string, string>;
}

/** The environment where there is one (Node, Deno, Bun); nothing in a browser. */
function environment(name: string): string | undefined {
  const process = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  return process?.env?.[name] || undefined;
}

export class Client {
  readonly agents: Agents;
  readonly sessions: Sessions;
  /** `client.events(sessionId, {after, follow, signal})`: every event once, in seq order; `.list()` for one page. */
  readonly events: EventsFunction;
  readonly toolResults: ToolResults;
  readonly approvals: Approvals;
  /** Who may answer your approvals, and groups of them (`/approver`, `/approver-group`). */
  readonly approvers: Approvers;
  readonly runs: Runs;
  /** Eval runs: a revision run against written cases or recorded sessions, each case graded (docs/evals.md). */
  readonly evals: Evals;
  readonly keys: Keys;
  /** Device login (RFC 8628 in shape): how a program without a key gets one approved by a logged-in user. */
  readonly device: Device;
  /** The consent side of OAuth for agents' MCP URLs: read an authorization, allow or deny it. */
  readonly oauth: OAuth;
  readonly secrets: Secrets;
  readonly webhooks: Webhooks;
  readonly admin: Admin;
  readonly health: Health;
  /** Tool servers a bundle names in `mcps`: the built-in ones, and remote MCP servers you register (`/mcps`, `/mcp/<id>`). */
  readonly mcps: Mcps;
  /** The older name of `mcps` (the same object), kept so code written for it goes on working. */
  readonly toolServers: Mcps;
  /** Tokens and cost per agent and per day (`GET /usage`). */
  readonly usage: Usage;
  /** Your limits per user and what you hold against each (`GET /limits`). */
  readonly limits: Limits;
  readonly meta: Meta;
  private readonly transport: Transport;

  constructor(options: ClientOptions = {}) {
    const baseUrl = options.baseUrl ?? environment('AGENT_SERVICE_URL');
    if (!baseUrl) throw new AgentServiceError('No baseUrl: pass one or set AGENT_SERVICE_URL');
    const fetchImpl = options.fetch ?? globalThis.fetch?.bind(globalThis);
    if (!fetchImpl) throw new AgentServiceError('No fetch on this platform: pass options.fetch');
    this.transport = new Transport({
      baseUrl,
      apiKey: options.apiKey ?? environment('AGENT_SERVICE_API_KEY'),
      maxRetries: options.maxRetries ?? 2,
      timeoutMs: options.timeoutMs ?? 60_000,
      fetch: fetchImpl,
      defaultHeaders: options.defaultHeaders,
    });
    this.agents = new Agents(this.transport);
    this.sessions = new Sessions(this.transport);
    this.events = eventsFunction(this.transport);
    this.toolResults = new ToolResults(this.transport);
    this.approvals = new Approvals(this.transport);
    this.approvers = new Approvers(this.transport);
    this.runs = new Runs(this.transport);
    this.evals = new Evals(this.transport);
    this.keys = new Keys(this.transport);
    this.device = new Device(this.transport);
    this.oauth = new OAuth(this.transport);
    this.secrets = new Secrets(this.transport);
    this.webhooks = new Webhooks(this.transport);
    this.admin = new Admin(this.transport);
    this.health = new Health(this.transport);
    this.mcps = new Mcps(this.transport);
    this.toolServers = this.mcps;
    this.usage = new Usage(this.transport);
    this.limits = new Limits(this.transport);
    this.meta = new Meta(this.transport);
  }

  /**
   * Asks a person a question and returns a handle to wait for the answer. `agent` sends it over
   * that agent's channels (`channels`: only those of these providers); `sessionId` records it in
   * that session. Sent once, even when retried.
   */
  async askHuman(question: CreateApprovalBody, options?: RequestOptions): Promise<ApprovalHandle> {
    const approval = await this.approvals.create(question, options);
    return new ApprovalHandle(this.transport, approval);
  }
}
