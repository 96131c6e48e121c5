// Every setting the service reads from its environment, parsed and checked once. Nothing else in
// the service reads process.env (lib/temporal-tls-config.ts parses the environment handed to it
// here; only `npm start`'s launcher reads a few settings of its own), so the main table of
// docs/configuration.md is this file, as test/unit/docs-configuration.test.ts checks.
import { ConfigError } from './config-error.ts';
import { temporalSecurity, type TemporalSecurity } from './temporal-tls-config.ts';
import path from 'node:path';
import { isHttpUrl } from './urls.ts';
import { PROVIDER_IDS, type ProviderId } from '../contract/bundle-constants.ts';
import { DEFAULT_CLIENT_TOOL_TIMEOUT_MS, type TurnSettings } from './workflow-safe/turn-settings.ts';
import { parseCidrList } from './refused-addresses.ts';
import type { ApprovalSettings } from './workflow-safe/approvals.ts';
import { parseModelPrice, type ModelPrice } from './model-prices.ts';

/** Task queue of the workers. TASK_QUEUE overrides it so that several deployments, or test runs, can
 * share one Temporal namespace without taking each other's tasks. */
const DEFAULT_TASK_QUEUE = 'agent-service';

/** How the approval channels reach their providers. */
export interface ChannelSettings {
  slackApiBaseUrl: string;
  telegramApiBaseUrl: string;
  /** One request to a provider's API (or one SMTP exchange). */
  requestTimeoutMs: number;
  /**
   * SMTP without TLS, allowed only to a relay on a loopback address, and only when the operator says so:
   * otherwise an email channel that is not `secure` requires STARTTLS (a man in the middle who strips it
   * would see the login in clear).
   */
  smtpPlaintextLoopback: boolean;
}

export interface Config {
  env: 'production' | 'development' | 'test';
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  temporalAddress: string | undefined;
  temporalNamespace: string;
  /** Workflow payloads written to Temporal as ciphertext (lib/payload-codec.ts); off only to measure its cost. */
  temporalPayloadEncryption: boolean;
  /** Where operators reach the Temporal Web UI: GET /session links a session's workflows there. */
  temporalUiUrl: string | undefined;
  /** Web origins (the Temporal Web UI's) allowed to call the payload codec endpoint from a browser. */
  codecCorsOrigins: string[];
  /** TLS, mutual TLS and API key for the Temporal frontend (lib/temporal-tls-config.ts). */
  temporal: TemporalSecurity;
  /** Deadline of every call the API makes to Temporal (503 with Retry-After beyond). */
  temporalCallTimeoutMs: number;
  /** Longest orderly stop of an API or worker process after SIGTERM: past it, it logs the step it waited on and exits 1. */
  shutdownDeadlineMs: number;
  /** How long the API keeps an idle client connection open for its next request (api/http-timeouts.ts). */
  httpKeepAliveTimeoutMs: number;
  /** PostgreSQL pool bounds: a stalled database answers 503 instead of queueing requests forever. */
  database: { connectTimeoutMs: number; statementTimeoutMs: number; preparedStatements: boolean };
  /** The task queue workers poll and the API starts workflows on. */
  taskQueue: string;
  publicBaseUrl: string | undefined;
  adminApiKey: string | undefined;
  serviceMasterKey: string | undefined;
  /** Master keys rotated out, still accepted for reading (SERVICE_MASTER_KEY_PREVIOUS, comma-separated). */
  previousMasterKeys: string[];
  logLevel: string;
  /** Express 'trust proxy' setting: hops of proxies whose X-Forwarded-For is believed. */
  trustProxy: number;
  limits: Limits;
  /** Model provider keys and base URLs from the environment; a user's granted secret of the same name wins. */
  providers: Record<ProviderId, ProviderEnv>;
  /**
   * SHARED_CACHE_COUNTS: a message's usage shows its prompt-cache counts behind the operator's credentials
   * too, not only behind a user's own (activities/model/credential-scope.ts). For one tenant, or tenants
   * who may learn what the others send. @default false
   */
  sharedCacheCounts: boolean;
  turns: TurnSettings;
  /** When a conversation is compacted, and what the model is shown of it (docs/models.md, "Long conversations"). */
  context: ContextSettings;
  /** What a model call costs where no provider says, and which models a send may choose (docs/sessions.md, Budgets). */
  pricing: PricingSettings;
  /** Outbound requests to addresses users chose (webhooks, channels, tools): see lib/outbound.ts. */
  outbound: { allowCidrs: string[] };
  webhooks: WebhookSettings;
  approvals: ApprovalSettings & {
    /** Longest `?wait=` of GET /approval/<id>, in seconds. */
    maxWaitSeconds: number;
    /** How long the API waits for the approval workflow to confirm a create or an answer (503 beyond). */
    confirmTimeoutMs: number;
  };
  /** Approval channel providers: API base URLs (so tests reach local fakes) and timeouts. */
  channels: ChannelSettings;
  schedules: { catchupWindowMs: number };
  /** Webhook triggers: the largest body, and firings per trigger in one rate-limit window. */
  triggers: { bodyBytes: number; rateLimitPoints: number };
  /** Skills given by URL, fetched at deploy: one fetch's deadline and the most bytes a skill may have. */
  skills: { fetchTimeoutMs: number; maxBytes: number };
  /**
   * Remote MCP servers: registered per user (at most `serversPerUser`), connected to at deploy within
   * `connectTimeoutMs`, a call answered within `callTimeoutMs` and `resultMaxBytes`.
   */
  mcp: {
    serversPerUser: number;
    connectTimeoutMs: number;
    callTimeoutMs: number;
    resultMaxBytes: number;
    /** One listing of a server's tools (deploy, GET /mcp/<id>), connecting and every page, ends by this. */
    listTimeoutMs: number;
    /** Listings one user may have running at once in one API process; past it, 429. */
    listingsPerUser: number;
  };
  /** The API's periodic clean-up: uploaded files no row names (after a grace period), expired Idempotency-Keys. */
  /**
   * `sendSweepMs`: how often the API wakes session workflows of sends none has read for as long (a
   * wake-up signal lost with an API process or while Temporal was down); 0: never.
   */
  housekeeping: { intervalMs: number; mediaOrphanGraceMs: number; sendSweepMs: number };
  /** Device logins (the CLI's): how long a code lives, and codes one client address may ask for per rate-limit window. */
  device: { codeTtlMs: number; codeRateLimitPoints: number };
  oauth: {
    accessTokenTtlSeconds: number;
    refreshTokenTtlDays: number;
    registrationsPerWindow: number;
    /** Private ranges a client ID metadata document may be read from (none by default). */
    clientDocumentAllowCidrs: string[];
  };
  /** Prometheus `/metrics` of each process, on a port of its own (lib/metrics/): not served while its port is unset. */
  metrics: { host: string; apiPort: number | undefined; workerPort: number | undefined };
  /**
   * OpenTelemetry traces (lib/tracing.ts), sent over OTLP/HTTP; off while no endpoint is set.
   * `captureContent`: the GenAI spans (lib/genai-spans.ts) also carry prompts, replies, tool arguments
   * and results, and approval questions and answers. Off by default: a trace backend is rarely
   * where a tenant's conversations belong.
   */
  tracing: { endpoint: string | undefined; serviceName: string | undefined; captureContent: boolean };
}

export interface WebhookSettings {
  /** Waits between delivery attempts; one attempt more than entries, then the delivery has failed. */
  retryScheduleMs: number[];
  /** One attempt: connect, send, and the receiver's status line. */
  attemptTimeoutMs: number;
  maxSubscriptionsPerUser: number;
}

export interface Limits {
  /** Largest JSON or bundle body, in bytes. */
  jsonBodyBytes: number;
  /** Requests per user, all its keys together (or per IP when unauthenticated), in one window. */
  rateLimitPoints: number;
  rateLimitWindowSeconds: number;
  /** Failed authentications per client address in one window before 429. */
  authFailuresPerWindow: number;
  /** A stream writes one message.part.delta event per this many ms on average (bursts of a few at once). */
  deltaFlushMs: number;
  /** Milliseconds between keep-alive comments on SSE streams, so proxies do not time them out. */
  sseHeartbeatMs: number;
  /** Largest uploaded file, in bytes (413 beyond). */
  uploadBytes: number;
  /** Connections one user holds open in one API process: SSE streams, waiting sends, ?wait= reads (429 beyond). */
  openStreamsPerUser: number;
  /** API keys one user may hold (403 beyond). */
  keysPerUser: number;
  /** Cron triggers across one user's live agents (a deploy past it is a 403). */
  schedulesPerUser: number;
  /** Unanswered approvals of one user (403 for a new one beyond; ask_my_user gets a tool error). */
  openApprovalsPerUser: number;
  /** Bytes of uploads one user's sessions keep (403 beyond). */
  storedBytesPerUser: number;
  /**
   * Model steps, tool calls and compactions one user runs at once, all its sessions together; beyond, a
   * turn waits (turn.queued).
   */
  runningTurnsPerUser: number;
  /**
   * Sends of one user, all its sessions together, taken and waiting for their turns to end (429 with
   * Retry-After beyond): what bounds the work a user can queue while the workers catch up.
   */
  queuedSendsPerUser: number;
  /**
   * How deep a chain of agents calling agents may go (docs/tools.md): a session a person opened is at
   * 0, the child of its agent's call at 1; a call that would open a child past this is refused.
   */
  agentCallDepth: number;
  /** Eval runs of one user running at once (429 with Retry-After for another). */
  evalRunsPerUser: number;
  /** Stored eval sets of one user, and versions kept of one set (403 beyond). */
  evalSetsPerUser: number;
  evalSetVersions: number;
  /** Scripts of the `code` tool one user runs at once per worker process: at most one fewer than its threads (one per core, 2 to 4). */
  codeScriptsPerUser: number;
  /** Bytes of files (images, PDFs, text) the model is sent in one step: the files of the whole conversation. */
  turnFileBytes: number;
  /** Bytes of files one worker keeps between the model steps of its turns, all turns together (0: none kept). */
  workerFileCacheBytes: number;
  /** How long one check of a value against a tenant's JSON Schema may run (in a thread) before it is refused as too costly. */
  schemaCheckTimeoutMs: number;
  /** Activities one worker runs at once; a streaming model step holds one for its whole stream. */
  workerConcurrentActivities: number;
  /**
   * Whether a worker takes the activities its workflow tasks schedule in the answer to those tasks (eager
   * dispatch), saving a round trip through Temporal's matching; off (the default), each goes through a
   * poll, and a worker's death never leaves one started but unrecorded (workers/worker-life.ts).
   */
  workerEagerActivities: boolean;
  /** What one model step may stream: output tokens (each streamed piece counts as one) and bytes; the turn fails beyond. */
  stepOutputTokens: number;
  stepOutputBytes: number;
  /** Whether `stepOutputTokens` is also sent to the provider as its output limit (only when the operator set it). */
  sendStepOutputTokens: boolean;
}

export interface ContextSettings {
  /** Percent of the model's context window past which a step first compacts the conversation. */
  compactAtPercent: number;
  /** Percent of the window the most recent messages, kept whole by a compaction, may take. */
  keepPercent: number;
  /** Per provider, the model that writes the summaries (else the agent's own model). */
  compactionModels: Partial<Record<ProviderId, string>>;
  /** Context windows set by the operator (`providerId:modelId` or `modelId`), in tokens. */
  windows: Record<string, number>;
  /** The window assumed for a model nothing else names. */
  defaultWindowTokens: number;
  /** Longest tool result the model is shown whole; longer ones are cut, with a note (storage keeps them whole). */
  toolResultMaxChars: number;
}

export interface PricingSettings {
  /** Prices set by the operator (`providerId:modelId` or `modelId`), over the service's own table. */
  modelPrices: Record<string, ModelPrice>;
  /** What a call of a model with no known price is held and charged at while a budget applies; unset, it is refused. */
  unpricedModelPrice: ModelPrice | undefined;
  /** The models a send may choose for its turn (`[providerId:]modelId`, a trailing `*`); undefined: any. */
  sendModels: string[] | undefined;
}

export interface ProviderEnv {
  apiKey: string | undefined;
  /** Includes the API version path (e.g. `https://api.openai.com/v1`), as the AI SDK providers expect. */
  baseUrl: string | undefined;
}

type Env = Record<string, string | undefined>;

export { ConfigError };

function int(env: Env, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`;
    throw new ConfigError(`${name} must be an integer ${range}, got "${raw}"`);
  }
  return value;
}

function onOff(env: Env, name: string, fallback: boolean): boolean {
  const raw = str(env, name);
  if (raw === undefined) return fallback;
  if (raw === 'on' || raw === 'true') return true;
  if (raw === 'off' || raw === 'false') return false;
  throw new ConfigError(`${name} must be on or off, got "${raw}"`);
}

function str(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw ? raw : undefined;
}

function httpUrl(env: Env, name: string): string | undefined {
  const raw = str(env, name);
  if (raw === undefined) return undefined;
  if (!isHttpUrl(raw)) throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
  return raw;
}

/** Comma-separated integers; unset or empty means the fallback. */
function intList(env: Env, name: string, fallback: number[], min: number): number[] {
  const raw = str(env, name);
  if (raw === undefined) return fallback;
  const values = raw.split(',').map((part) => part.trim());
  if (!values.every((value) => /^\d+$/.test(value) && Number(value) >= min)) {
    throw new ConfigError(`${name} must be comma-separated integers >= ${min}, got "${raw}"`);
  }
  return values.map(Number);
}

/** `key=value` pairs, comma-separated; the key is what precedes the last `=` (model ids may hold `:` and `/`). */
function pairs(env: Env, name: string, example: string): Array<[string, string]> {
  const raw = str(env, name);
  if (raw === undefined) return [];
  return raw.split(',').map((entry) => {
    const at = entry.lastIndexOf('=');
    const key = entry.slice(0, at).trim();
    const value = entry.slice(at + 1).trim();
    if (at <= 0 || !key || !value) throw new ConfigError(`${name} must be comma-separated ${example} pairs, got "${entry.trim()}"`);
    return [key, value];
  });
}

function contextWindows(env: Env): Record<string, number> {
  const name = 'MODEL_CONTEXT_WINDOWS';
  return Object.fromEntries(
    pairs(env, name, '[providerId:]modelId=tokens').map(([key, value]) => {
      if (!/^\d+$/.test(value) || Number(value) < 1_000)
        throw new ConfigError(`${name}: ${key} must be a number of tokens >= 1000, got "${value}"`);
      return [key, Number(value)];
    }),
  );
}

function compactionModels(env: Env): Partial<Record<ProviderId, string>> {
  const name = 'COMPACTION_MODELS';
  return Object.fromEntries(
    pairs(env, name, 'providerId=modelId').map(([key, value]) => {
      if (!(PROVIDER_IDS as readonly string[]).includes(key))
        throw new ConfigError(`${name}: "${key}" is not a provider (${PROVIDER_IDS.join(', ')})`);
      return [key, value];
    }),
  );
}

function modelPrices(env: Env): Record<string, ModelPrice> {
  const name = 'MODEL_PRICES';
  return Object.fromEntries(
    pairs(env, name, '[providerId:]modelId=input/output').map(([key, value]) => [key, parseModelPrice(value, `${name}: ${key}`)]),
  );
}

/** `none` allows no model but the agent's own; unset, any. */
function sendModels(env: Env): string[] | undefined {
  const raw = str(env, 'SEND_MODELS');
  if (raw === undefined) return undefined;
  if (raw === 'none') return [];
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
}

function optional<T>(raw: string | undefined, parse: (raw: string) => T): T | undefined {
  return raw === undefined ? undefined : parse(raw);
}

function percent(env: Env, name: string, fallback: number, min: number): number {
  const value = int(env, name, fallback, min);
  if (value > 100) throw new ConfigError(`${name} must be a percentage (at most 100), got "${env[name]}"`);
  return value;
}

function optionalPort(env: Env, name: string): number | undefined {
  if (str(env, name) === undefined) return undefined;
  const port = int(env, name, 0, 1);
  if (port > 65_535) throw new ConfigError(`${name} must be a port number (1-65535), got "${env[name]}"`);
  return port;
}

function cidrList(env: Env, name: string): string[] {
  const entries = (str(env, name) ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  try {
    parseCidrList(entries);
  } catch (error) {
    throw new ConfigError(`${name}: ${(error as Error).message}`);
  }
  return entries;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** About a day in all: 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h, 12 h (ten attempts). */
const DEFAULT_RETRY_SCHEDULE_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000, 43_200_000];

/** Shortest ADMIN_API_KEY: an operator-chosen key must not be guessable (a generated one has 130 bits). */
export const ADMIN_API_KEY_MIN_CHARS = 32;

/** ADMIN_API_KEY, refused when it is short or could never be sent as one bearer token (see api/middleware/auth.ts). */
function adminApiKey(env: Env): string | undefined {
  const key = str(env, 'ADMIN_API_KEY');
  if (key === undefined) return undefined;
  if (key.length < ADMIN_API_KEY_MIN_CHARS)
    throw new ConfigError(
      `ADMIN_API_KEY must have at least ${ADMIN_API_KEY_MIN_CHARS} characters, got ${key.length} (generate one with \`openssl rand -hex 32\`)`,
    );
  if (key.length > 200 || /\s/.test(key)) throw new ConfigError('ADMIN_API_KEY must be at most 200 characters without whitespace');
  return key;
}

function provider(env: Env, apiKeyName: string, baseUrlName: string): ProviderEnv {
  return { apiKey: str(env, apiKeyName), baseUrl: httpUrl(env, baseUrlName) };
}

export function loadConfig(env: Env = process.env): Config {
  const approvalSettings: ApprovalSettings = {
    defaultExpiryMs: int(env, 'APPROVAL_DEFAULT_EXPIRY_MS', 7 * DAY_MS, 1_000),
    maxExpiryMs: int(env, 'APPROVAL_MAX_EXPIRY_MS', 30 * DAY_MS, 1_000),
    dispatchMaxAttempts: int(env, 'APPROVAL_DISPATCH_MAX_ATTEMPTS', 5, 1),
    dispatchRetryInitialMs: int(env, 'APPROVAL_DISPATCH_RETRY_INITIAL_MS', 2_000, 10),
  };
  const temporalCallTimeoutMs = int(env, 'TEMPORAL_CALL_TIMEOUT_MS', 10_000, 100);
  const nodeEnv = env.NODE_ENV === 'production' || env.NODE_ENV === 'test' ? env.NODE_ENV : 'development';
  const config: Config = {
    env: nodeEnv,
    port: int(env, 'PORT', 3000),
    host: str(env, 'HOST') ?? '127.0.0.1',
    dataDir: path.resolve(str(env, 'DATA_DIR') ?? '.data'),
    databaseUrl: str(env, 'DATABASE_URL'),
    temporalAddress: str(env, 'TEMPORAL_ADDRESS'),
    temporalNamespace: str(env, 'TEMPORAL_NAMESPACE') ?? 'default',
    temporal: temporalSecurity(env),
    temporalPayloadEncryption: onOff(env, 'TEMPORAL_PAYLOAD_ENCRYPTION', true),
    temporalUiUrl: httpUrl(env, 'TEMPORAL_UI_URL')?.replace(/\/+$/, ''),
    codecCorsOrigins: (str(env, 'CODEC_CORS_ORIGINS') ?? '')
      .split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
    temporalCallTimeoutMs,
    // Under Kubernetes' default 30 s between SIGTERM and SIGKILL, so the log says what a stop waited on.
    shutdownDeadlineMs: int(env, 'SHUTDOWN_DEADLINE_MS', 25_000, 1_000),
    // Above the 60 s idle timeout of common load balancers and proxies (api/http-timeouts.ts).
    httpKeepAliveTimeoutMs: int(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 65_000, 1_000, 900_000),
    database: {
      connectTimeoutMs: int(env, 'DATABASE_CONNECT_TIMEOUT_MS', 5_000, 100),
      statementTimeoutMs: int(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 30_000, 0),
      preparedStatements: onOff(env, 'DATABASE_PREPARED_STATEMENTS', true),
    },
    taskQueue: str(env, 'TASK_QUEUE') ?? DEFAULT_TASK_QUEUE,
    publicBaseUrl: str(env, 'PUBLIC_BASE_URL'),
    adminApiKey: adminApiKey(env),
    serviceMasterKey: str(env, 'SERVICE_MASTER_KEY'),
    previousMasterKeys: (str(env, 'SERVICE_MASTER_KEY_PREVIOUS') ?? '')
      .split(',')
      .map((key) => key.trim())
      .filter(Boolean),
    logLevel: str(env, 'LOG_LEVEL') ?? (nodeEnv === 'test' ? 'silent' : 'info'),
    trustProxy: int(env, 'TRUST_PROXY_HOPS', 0),
    sharedCacheCounts: onOff(env, 'SHARED_CACHE_COUNTS', false),
    providers: {
      openrouter: provider(env, 'OPENROUTER_API_KEY', 'OPENROUTER_BASE_URL'),
      openai: provider(env, 'OPENAI_API_KEY', 'OPENAI_BASE_URL'),
      anthropic: provider(env, 'ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL'),
      'openai-compatible': provider(env, 'OPENAI_COMPATIBLE_API_KEY', 'OPENAI_COMPATIBLE_BASE_URL'),
    },
    limits: {
      jsonBodyBytes: int(env, 'JSON_BODY_LIMIT_BYTES', 1024 * 1024, 1024),
      rateLimitPoints: int(env, 'RATE_LIMIT_POINTS', 600, 1),
      rateLimitWindowSeconds: int(env, 'RATE_LIMIT_WINDOW_SECONDS', 60, 1),
      authFailuresPerWindow: int(env, 'AUTH_FAILURE_LIMIT_POINTS', 30, 1),
      deltaFlushMs: int(env, 'DELTA_FLUSH_MS', 40, 1),
      sseHeartbeatMs: int(env, 'SSE_HEARTBEAT_MS', 15_000, 50),
      uploadBytes: int(env, 'UPLOAD_LIMIT_BYTES', 25 * 1024 * 1024, 1),
      // SSE_STREAMS_PER_KEY is what this was called when it counted per key; still read as a fallback.
      // 200: waiting sends count too now, and a team's one user sends a hundred at once (bench turn-throughput).
      openStreamsPerUser: int(env, 'OPEN_STREAMS_PER_USER', int(env, 'SSE_STREAMS_PER_KEY', 200, 1), 1),
      keysPerUser: int(env, 'KEYS_PER_USER', 100, 1),
      schedulesPerUser: int(env, 'SCHEDULES_PER_USER', 100, 0),
      openApprovalsPerUser: int(env, 'OPEN_APPROVALS_PER_USER', 1000, 1),
      storedBytesPerUser: int(env, 'STORED_BYTES_PER_USER', 1024 * 1024 * 1024, 0),
      runningTurnsPerUser: int(env, 'RUNNING_TURNS_PER_USER', 150, 1),
      queuedSendsPerUser: int(env, 'QUEUED_SENDS_PER_USER', 500, 1),
      agentCallDepth: int(env, 'AGENT_CALL_DEPTH_LIMIT', 4, 1, 32),
      evalRunsPerUser: int(env, 'EVAL_RUNS_PER_USER', 5, 1),
      evalSetsPerUser: int(env, 'EVAL_SETS_PER_USER', 100, 1),
      evalSetVersions: int(env, 'EVAL_SET_VERSIONS', 100, 1),
      // At most one fewer than the code sandbox's threads (activities/tools/code.ts), so one user never holds them all.
      codeScriptsPerUser: int(env, 'CODE_SCRIPTS_PER_USER', 2, 1, 3),
      turnFileBytes: int(env, 'TURN_FILE_BYTES_LIMIT', 50 * 1024 * 1024, 1),
      workerFileCacheBytes: int(env, 'WORKER_FILE_CACHE_BYTES', 256 * 1024 * 1024, 0),
      workerConcurrentActivities: int(env, 'WORKER_MAX_CONCURRENT_ACTIVITIES', 200, 1),
      workerEagerActivities: onOff(env, 'WORKER_EAGER_ACTIVITIES', false),
      schemaCheckTimeoutMs: int(env, 'SCHEMA_CHECK_TIMEOUT_MS', 2_000, 1),
      stepOutputTokens: int(env, 'MODEL_STEP_MAX_OUTPUT_TOKENS', 32_768, 1),
      stepOutputBytes: int(env, 'MODEL_STEP_MAX_OUTPUT_BYTES', 1024 * 1024, 1),
      // Providers refuse a max_tokens above a model's own limit (16384 for gpt-4o), so the default is
      // enforced here only; an operator who sets it chooses a value their models accept.
      sendStepOutputTokens: str(env, 'MODEL_STEP_MAX_OUTPUT_TOKENS') !== undefined,
    },
    turns: {
      // A step whose worker died is tried again this long after its last heartbeat (every quarter of it).
      stepHeartbeatTimeoutMs: int(env, 'MODEL_STEP_HEARTBEAT_TIMEOUT_MS', 8_000, 1_000),
      stepMaxAttempts: int(env, 'MODEL_STEP_MAX_ATTEMPTS', 5, 1),
      stepRetryInitialIntervalMs: int(env, 'MODEL_STEP_RETRY_INITIAL_MS', 1_000, 10),
      workflowTaskTimeoutMs: int(env, 'WORKFLOW_TASK_TIMEOUT_MS', 5_000, 1_000),
      maxSteps: int(env, 'TURN_MAX_STEPS', 25, 1),
      sessionIdleMs: int(env, 'SESSION_IDLE_MS', 5 * 60_000, 1_000),
      clientToolTimeoutMs: int(env, 'CLIENT_TOOL_TIMEOUT_MS', DEFAULT_CLIENT_TOOL_TIMEOUT_MS, 1_000),
      approvals: approvalSettings,
    },
    context: {
      compactAtPercent: percent(env, 'COMPACTION_THRESHOLD_PERCENT', 80, 10),
      keepPercent: percent(env, 'COMPACTION_KEEP_PERCENT', 30, 1),
      compactionModels: compactionModels(env),
      windows: contextWindows(env),
      defaultWindowTokens: int(env, 'MODEL_CONTEXT_WINDOW_DEFAULT', 128_000, 1_000),
      toolResultMaxChars: int(env, 'TOOL_RESULT_MAX_CHARS', 40_000, 1_000),
    },
    pricing: {
      modelPrices: modelPrices(env),
      unpricedModelPrice: optional(str(env, 'UNPRICED_MODEL_PRICE'), (raw) => parseModelPrice(raw, 'UNPRICED_MODEL_PRICE')),
      sendModels: sendModels(env),
    },
    outbound: { allowCidrs: cidrList(env, 'OUTBOUND_ALLOW_CIDRS') },
    webhooks: {
      retryScheduleMs: intList(env, 'WEBHOOK_RETRY_SCHEDULE_MS', DEFAULT_RETRY_SCHEDULE_MS, 1),
      attemptTimeoutMs: int(env, 'WEBHOOK_ATTEMPT_TIMEOUT_MS', 15_000, 100),
      maxSubscriptionsPerUser: int(env, 'WEBHOOK_SUBSCRIPTIONS_PER_USER', 20, 1),
    },
    approvals: {
      ...approvalSettings,
      maxWaitSeconds: int(env, 'APPROVAL_MAX_WAIT_SECONDS', 60, 1),
      confirmTimeoutMs: int(env, 'APPROVAL_CONFIRM_TIMEOUT_MS', temporalCallTimeoutMs, 100),
    },
    schedules: { catchupWindowMs: int(env, 'SCHEDULE_CATCHUP_WINDOW_MS', 5 * 60_000, 1_000) },
    skills: {
      fetchTimeoutMs: int(env, 'SKILL_FETCH_TIMEOUT_MS', 10_000, 100),
      maxBytes: int(env, 'SKILL_MAX_BYTES', 256 * 1024, 1),
    },
    mcp: {
      serversPerUser: int(env, 'MCP_SERVERS_PER_USER', 20, 0),
      // A call connects (at most twice: Streamable HTTP, then HTTP+SSE) and then calls, all within the tool
      // activity's 2 minutes (workflows/turn.ts): 2 × 15 s + 90 s leaves room for its own start.
      connectTimeoutMs: int(env, 'MCP_CONNECT_TIMEOUT_MS', 10_000, 100, 15_000),
      callTimeoutMs: int(env, 'MCP_CALL_TIMEOUT_MS', 60_000, 100, 90_000),
      resultMaxBytes: int(env, 'MCP_RESULT_MAX_BYTES', 1024 * 1024, 1024),
      listTimeoutMs: int(env, 'MCP_LIST_TIMEOUT_MS', 20_000, 100, 120_000),
      listingsPerUser: int(env, 'MCP_LISTINGS_PER_USER', 4, 1),
    },
    triggers: {
      bodyBytes: int(env, 'TRIGGER_BODY_LIMIT_BYTES', 1024 * 1024, 1),
      rateLimitPoints: int(env, 'TRIGGER_RATE_LIMIT_POINTS', 60, 1),
    },
    housekeeping: {
      intervalMs: int(env, 'HOUSEKEEPING_INTERVAL_MS', 10 * 60_000, 0),
      sendSweepMs: int(env, 'SEND_SWEEP_INTERVAL_MS', 5_000, 0),
      mediaOrphanGraceMs: int(env, 'MEDIA_ORPHAN_GRACE_MS', 60 * 60_000, 1_000),
    },
    device: {
      codeTtlMs: int(env, 'DEVICE_CODE_TTL_MS', 10 * 60_000, 1_000),
      codeRateLimitPoints: int(env, 'DEVICE_CODE_RATE_LIMIT_POINTS', 10, 1),
    },
    oauth: {
      accessTokenTtlSeconds: int(env, 'OAUTH_ACCESS_TOKEN_TTL_SECONDS', 3600, 1, 86_400),
      refreshTokenTtlDays: int(env, 'OAUTH_REFRESH_TOKEN_TTL_DAYS', 90, 1, 3650),
      registrationsPerWindow: int(env, 'OAUTH_REGISTRATIONS_PER_WINDOW', 20, 1),
      clientDocumentAllowCidrs: cidrList(env, 'OAUTH_CLIENT_DOCUMENT_ALLOW_CIDRS'),
    },
    channels: {
      slackApiBaseUrl: httpUrl(env, 'SLACK_API_BASE_URL') ?? 'https://slack.com/api',
      telegramApiBaseUrl: httpUrl(env, 'TELEGRAM_API_BASE_URL') ?? 'https://api.telegram.org',
      requestTimeoutMs: int(env, 'CHANNEL_REQUEST_TIMEOUT_MS', 15_000, 100),
      smtpPlaintextLoopback: onOff(env, 'SMTP_PLAINTEXT_LOOPBACK', false),
    },
    metrics: {
      host: str(env, 'METRICS_HOST') ?? '127.0.0.1',
      apiPort: optionalPort(env, 'METRICS_PORT'),
      workerPort: optionalPort(env, 'WORKER_METRICS_PORT'),
    },
    tracing: {
      endpoint: httpUrl(env, 'OTEL_EXPORTER_OTLP_ENDPOINT'),
      serviceName: str(env, 'OTEL_SERVICE_NAME'),
      // The name the OpenTelemetry GenAI instrumentations read for the same choice.
      captureContent: onOff(env, 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT', false),
    },
  };
  if (config.approvals.defaultExpiryMs > config.approvals.maxExpiryMs) {
    throw new ConfigError('APPROVAL_DEFAULT_EXPIRY_MS must not exceed APPROVAL_MAX_EXPIRY_MS');
  }
  if (config.turns.clientToolTimeoutMs! > config.approvals.maxExpiryMs) {
    throw new ConfigError('CLIENT_TOOL_TIMEOUT_MS must not exceed APPROVAL_MAX_EXPIRY_MS');
  }
  if (config.context.keepPercent >= config.context.compactAtPercent) {
    throw new ConfigError(
      'COMPACTION_KEEP_PERCENT must be below COMPACTION_THRESHOLD_PERCENT (what is kept must leave room below the threshold)',
    );
  }
  if (config.env === 'production') {
    if (!config.serviceMasterKey) throw new ConfigError('SERVICE_MASTER_KEY is required when NODE_ENV=production');
    if (!config.databaseUrl) throw new ConfigError('DATABASE_URL is required when NODE_ENV=production');
    if (!config.temporalAddress) throw new ConfigError('TEMPORAL_ADDRESS is required when NODE_ENV=production');
  }
  return config;
}
