// The metrics and traces stack of docker-compose.yml cannot run here (no Docker engine), so this keeps
// it honest: every metric the Grafana dashboard queries is one the service exports (ours read from a
// real /metrics, the Temporal SDK's from the SDK's own source), Prometheus scrapes the api and worker
// on the ports their environment sets, the collector's pipeline names only components it defines and
// the apps send spans to its receiver, and Grafana's data source is the prometheus service. The checks
// are plain functions, first shown on small inline inputs, then run on the real files.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import '../../lib/metrics/http-metrics.ts';
import '../../lib/metrics/pool-metrics.ts';
import '../../lib/metrics/worker-metrics.ts';
import { register } from 'prom-client';
import { registerWorkerGauges } from '../../workers/metric-gauges.ts';
import { serveMetrics } from '../../lib/metrics/serve-metrics.ts';
import { freePort } from '../../dev/ports.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

type Yaml = Record<string, unknown>;
const parseYaml = (text: string): Yaml => {
  const doc = parseDocument(text, { merge: true, uniqueKeys: true });
  if (doc.errors.length) throw new Error(doc.errors.map((error) => error.message).join('; '));
  return (doc.toJS() ?? {}) as Yaml;
};
const isMap = (value: unknown): value is Yaml => typeof value === 'object' && value !== null && !Array.isArray(value);

// ---- Metric names ----------------------------------------------------------------------------------

/** The series names a family of each type shows Prometheus: a histogram's _bucket, _sum and _count. */
function seriesNames(families: Map<string, string>): Set<string> {
  const names = new Set<string>();
  for (const [name, type] of families) {
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix);
    else if (type === 'summary') for (const suffix of ['', '_sum', '_count']) names.add(name + suffix);
    else names.add(name);
  }
  return names;
}

/**
 * The Temporal SDK Core's metric families (name -> type) from its Rust source: each `counter`,
 * `histogram` or `gauge` made from `MetricParameters { name: ... }`, the name a literal or a constant
 * the sources define. Test modules (`#[cfg(test)] mod ...`, at a file's end) are left out. With the worker's settings
 * (workers/observability.ts sets none of Core's naming options) Prometheus sees them with the
 * `temporal_` prefix, counters without `_total` and durations in milliseconds without a unit suffix.
 */
function temporalFamilies(rustSources: string[]): Map<string, string> {
  const constants = new Map<string, string>();
  for (const source of rustSources) {
    for (const match of source.matchAll(/\b([A-Z][A-Z0-9_]*)\s*:\s*&str\s*=\s*"([a-z0-9_]+)"/g)) constants.set(match[1]!, match[2]!);
  }
  const families = new Map<string, string>();
  for (const source of rustSources) {
    const code = source.split(/^#\[cfg\(test\)\]\s*mod\s/m)[0]!;
    const made = /\b(counter|histogram|gauge)\w*\(\s*MetricParameters\s*\{\s*name:\s*(?:"([a-z0-9_]+)"|([A-Z][A-Z0-9_]*))\.into\(\)/g;
    for (const match of code.matchAll(made)) {
      const name = match[2] ?? constants.get(match[3]!);
      if (!name) throw new Error(`the Temporal SDK names a metric by ${match[3]}, a constant its sources do not define`);
      families.set(`temporal_${name}`, match[1]!);
    }
  }
  return families;
}

const PROMQL_WORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'inf',
  'nan',
]);

/** The metric names a PromQL expression selects: not its functions, label names, strings or durations. */
function metricNamesIn(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\$\{?\w+\}?/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names: string[] = [];
  for (const match of bare.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const after = bare.slice(match.index! + match[0].length).trimStart();
    if (after.startsWith('(') || PROMQL_WORDS.has(match[0].toLowerCase()) || /^\d/.test(match[0])) continue;
    if (/[0-9.]$/.test(bare.slice(0, match.index!).trimEnd()) && /^(ms|s|m|h|d|w|y|e)$/.test(match[0])) continue;
    names.push(match[0]);
  }
  return names;
}

interface Dashboard {
  panels?: Array<{
    title?: string;
    type?: string;
    datasource?: { uid?: string };
    targets?: Array<{ expr?: string; datasource?: { uid?: string } }>;
    panels?: Dashboard['panels'];
  }>;
}

/** Every query of a dashboard's panels (rows' nested panels included) with its panel's title. */
function queriesOf(dashboard: Dashboard): Array<{ panel: string; expr: string; datasource: string | undefined }> {
  const queries: Array<{ panel: string; expr: string; datasource: string | undefined }> = [];
  const walk = (panels: Dashboard['panels']) => {
    for (const panel of panels ?? []) {
      for (const target of panel.targets ?? []) {
        queries.push({ panel: panel.title ?? '?', expr: target.expr ?? '', datasource: target.datasource?.uid ?? panel.datasource?.uid });
      }
      walk(panel.panels);
    }
  };
  walk(dashboard.panels);
  return queries;
}

/** Queries naming a metric nothing exports, and whole-service gauges summed across workers instead of max. */
function dashboardProblems(dashboard: Dashboard, exported: Set<string>, wholeService: Set<string>): string[] {
  const problems: string[] = [];
  for (const { panel, expr } of queriesOf(dashboard)) {
    const names = metricNamesIn(expr);
    if (!names.length) problems.push(`"${panel}" queries no metric: ${expr}`);
    for (const name of names) if (!exported.has(name)) problems.push(`"${panel}" queries ${name}, which nothing exports`);
    if (names.some((name) => wholeService.has(name)) && !/^\s*max\b/.test(expr)) {
      problems.push(`"${panel}" does not take the max across workers of a whole-service gauge: ${expr}`);
    }
  }
  return problems;
}

// ---- Compose, Prometheus, the collector, Grafana -----------------------------------------------------

interface Service {
  image?: string;
  command?: string | string[];
  environment?: Record<string, unknown> | string[];
  volumes?: Array<string | { source?: string; target?: string }>;
  ports?: unknown[];
}
type Compose = { services?: Record<string, Service> };

function environmentOf(service: Service | undefined): Map<string, string> {
  const env = new Map<string, string>();
  if (Array.isArray(service?.environment)) {
    for (const entry of service.environment) env.set(entry.split('=')[0]!, entry.split('=').slice(1).join('='));
  } else for (const [name, value] of Object.entries(service?.environment ?? {})) env.set(name, String(value ?? ''));
  return env;
}

/** `${NAME:-default}` as Compose expands it with NAME unset. */
const withDefaults = (value: string) =>
  value.replace(/\$\{[A-Za-z_][A-Za-z0-9_]*(?::?-([^}]*))?\}/g, (_, fallback?: string) => fallback ?? '');

/** A service's bind mounts as container path -> repository path. */
function mountsOf(service: Service | undefined): Map<string, string> {
  const mounts = new Map<string, string>();
  for (const volume of service?.volumes ?? []) {
    const [source, target] = typeof volume === 'string' ? volume.split(':') : [volume.source, volume.target];
    if (source?.startsWith('./') && target) mounts.set(target, path.normalize(source));
  }
  return mounts;
}

/** The repository file a container path of a service reads, through its bind mounts. */
function fileInRepository(service: Service | undefined, containerPath: string): string | undefined {
  for (const [target, source] of mountsOf(service)) {
    if (containerPath === target) return source;
    if (containerPath.startsWith(`${target}/`)) return path.join(source, containerPath.slice(target.length + 1));
  }
  return undefined;
}

/** The host:port pairs a Prometheus configuration scrapes, from static targets and DNS discovery. */
function scrapeTargets(config: Yaml): Array<{ job: string; host: string; port: number }> {
  const targets: Array<{ job: string; host: string; port: number }> = [];
  for (const job of (config.scrape_configs ?? []) as Array<Record<string, unknown>>) {
    const name = String(job.job_name);
    for (const group of (job.static_configs ?? []) as Array<{ targets?: string[] }>) {
      for (const target of group.targets ?? []) {
        const [host, port] = target.split(':');
        targets.push({ job: name, host: host!, port: Number(port) });
      }
    }
    for (const group of (job.dns_sd_configs ?? []) as Array<{ names?: string[]; port?: number }>) {
      for (const host of group.names ?? []) targets.push({ job: name, host, port: Number(group.port) });
    }
  }
  return targets;
}

/** Scrape targets that are no Compose service, or not on the port that service's environment serves metrics on. */
function scrapeProblems(config: Yaml, compose: Compose): string[] {
  const problems: string[] = [];
  for (const { job, host, port } of scrapeTargets(config)) {
    const service = compose.services?.[host];
    if (!service) {
      problems.push(`job ${job} scrapes ${host}, which is no Compose service`);
      continue;
    }
    const env = environmentOf(service);
    const ports = ['METRICS_PORT', 'WORKER_METRICS_PORT'].filter((name) => env.has(name)).map((name) => Number(env.get(name)));
    if (!ports.includes(port))
      problems.push(`job ${job} scrapes ${host}:${port}, but ${host} serves metrics on ${ports.join(', ') || 'no port'}`);
    if (env.get('METRICS_HOST') !== '0.0.0.0')
      problems.push(`${host} binds its metrics port to ${env.get('METRICS_HOST') ?? '127.0.0.1'}: Prometheus cannot reach it`);
  }
  return problems;
}

/** Merges collector configuration files as the collector does with several --config: maps deeply, the rest replaced. */
function mergeConfigs(...configs: Yaml[]): Yaml {
  const merge = (into: Yaml, from: Yaml): Yaml => {
    const out: Yaml = { ...into };
    for (const [key, value] of Object.entries(from)) out[key] = isMap(value) && isMap(out[key]) ? merge(out[key], value) : value;
    return out;
  };
  return configs.reduce(merge, {});
}

/** Pipeline components a collector configuration uses but does not define, and pipelines missing a part. */
function collectorProblems(config: Yaml): string[] {
  const problems: string[] = [];
  const pipelines = ((config.service as Yaml | undefined)?.pipelines ?? {}) as Record<string, Record<string, unknown>>;
  if (!Object.keys(pipelines).length) problems.push('no pipeline');
  for (const [pipeline, parts] of Object.entries(pipelines)) {
    for (const kind of ['receivers', 'processors', 'exporters']) {
      const names = (parts[kind] ?? []) as string[];
      if (kind !== 'processors' && !names.length) problems.push(`pipeline ${pipeline} has no ${kind}`);
      const defined = (config[kind] ?? {}) as Yaml;
      for (const name of names)
        if (!(name in defined)) problems.push(`pipeline ${pipeline} uses ${kind.slice(0, -1)} ${name}, which is not defined`);
    }
  }
  return problems;
}

/** The port of the collector's OTLP/HTTP receiver (undefined when it has none). */
function otlpHttpPort(config: Yaml): number | undefined {
  const http = ((((config.receivers as Yaml | undefined)?.otlp as Yaml | undefined)?.protocols as Yaml | undefined)?.http ?? undefined) as
    { endpoint?: string } | null | undefined;
  if (http === undefined) return undefined;
  return Number((http?.endpoint ?? 'localhost:4318').split(':').pop());
}

const url = (value: string | undefined) => {
  try {
    return value ? new URL(value) : undefined;
  } catch {
    return undefined;
  }
};

// ---- On small inputs ---------------------------------------------------------------------------------

describe('the stack checks', () => {
  it('find the metric names of a query, and only them', () => {
    expect(
      metricNamesIn(
        'histogram_quantile(0.95, sum by (le, route) (rate(agent_service_http_request_duration_seconds_bucket{status=~"5..",route!="x"}[$__rate_interval])))',
      ),
    ).toEqual(['agent_service_http_request_duration_seconds_bucket']);
    expect(metricNamesIn('max by (state) (agent_service_turns) * 60 + sum(increase(cost_total[1h] offset 5m))')).toEqual([
      'agent_service_turns',
      'cost_total',
    ]);
    expect(metricNamesIn('up')).toEqual(['up']);
  });

  it('give a histogram its _bucket, _sum and _count series, and a counter its own name', () => {
    expect(
      seriesNames(
        new Map([
          ['a_seconds', 'histogram'],
          ['b_total', 'counter'],
          ['c', 'gauge'],
        ]),
      ),
    ).toEqual(new Set(['a_seconds_bucket', 'a_seconds_sum', 'a_seconds_count', 'b_total', 'c']));
  });

  it("read the Temporal SDK's metric families from its source, constants resolved and tests left out", () => {
    const constants = 'pub const SLOTS_NAME: &str = "worker_task_slots_available";';
    const made = `
      a: meter.counter(MetricParameters { name: "workflow_completed".into(), ..Default::default() }),
      b: meter.histogram_duration(MetricParameters {
          name: SLOTS_LATENCY.into(),
      }),
      c: gauge_with_in_mem(MetricParameters { name: SLOTS_NAME.into() }),
      
#[cfg(test)]
mod tests { fn t() { meter.counter(MetricParameters { name: "ctr".into() }); } }`;
    expect(() => temporalFamilies([constants, made])).toThrow(/SLOTS_LATENCY/);
    const families = temporalFamilies([`${constants} const SLOTS_LATENCY: &str = "schedule_to_start_latency";`, made]);
    expect(families).toEqual(
      new Map([
        ['temporal_workflow_completed', 'counter'],
        ['temporal_schedule_to_start_latency', 'histogram'],
        ['temporal_worker_task_slots_available', 'gauge'],
      ]),
    );
  });

  it('reject a query of an unknown metric, one with no metric, and a whole-service gauge summed', () => {
    const dashboard: Dashboard = {
      panels: [
        { title: 'ok', targets: [{ expr: 'max by (state) (turns)' }, { expr: 'rate(cost_total[5m])' }] },
        { type: 'row', title: 'row', panels: [{ title: 'nested', targets: [{ expr: 'rate(cost_totl[5m])' }] }] },
        { title: 'summed', targets: [{ expr: 'sum(turns)' }, { expr: 'vector(1)' }] },
      ],
    };
    expect(dashboardProblems(dashboard, new Set(['turns', 'cost_total']), new Set(['turns']))).toEqual([
      '"nested" queries cost_totl, which nothing exports',
      '"summed" does not take the max across workers of a whole-service gauge: sum(turns)',
      '"summed" queries no metric: vector(1)',
    ]);
  });

  it('reject a scrape target that is no service, a port the service does not serve, and a loopback-bound service', () => {
    const compose = parseYaml(`
services:
  api: { environment: { METRICS_HOST: 0.0.0.0, METRICS_PORT: '9464' } }
  worker: { environment: [WORKER_METRICS_PORT=9465] }
`) as Compose;
    const prometheus = parseYaml(`
scrape_configs:
  - job_name: api
    static_configs: [{ targets: ['api:9464', 'apii:9464'] }]
  - job_name: worker
    dns_sd_configs: [{ names: [worker], type: A, port: 9466 }]
`);
    expect(scrapeTargets(prometheus)).toHaveLength(3);
    expect(scrapeProblems(prometheus, compose)).toEqual([
      'job api scrapes apii, which is no Compose service',
      'job worker scrapes worker:9466, but worker serves metrics on 9465',
      'worker binds its metrics port to 127.0.0.1: Prometheus cannot reach it',
    ]);
  });

  it('merge collector files as the collector does, and reject a pipeline naming what no file defines', () => {
    const base = parseYaml(
      'receivers: { otlp: { protocols: { http: { endpoint: 0.0.0.0:4318 } } } }\nprocessors: { batch: {} }\nservice: { pipelines: { traces: { receivers: [otlp], processors: [batch] } } }',
    );
    const exporter = parseYaml('exporters: { debug: {} }\nservice: { pipelines: { traces: { exporters: [debug] } } }');
    expect(collectorProblems(base)).toEqual(['pipeline traces has no exporters']);
    expect(collectorProblems(mergeConfigs(base, exporter))).toEqual([]);
    expect(otlpHttpPort(base)).toBe(4318);
    const wrong = parseYaml(
      'exporters: { otlphttp: {} }\nservice: { pipelines: { traces: { exporters: [debug], processors: [batch, memory_limiter] } } }',
    );
    expect(collectorProblems(mergeConfigs(base, wrong))).toEqual([
      'pipeline traces uses processor memory_limiter, which is not defined',
      'pipeline traces uses exporter debug, which is not defined',
    ]);
  });
});

// ---- On the real files -------------------------------------------------------------------------------

/** Our families as Prometheus sees them: the real /metrics of a process with every metric registered. */
async function ourFamilies(): Promise<{ families: Map<string, string>; wholeService: Set<string> }> {
  const quiet = { warn() {}, info() {}, error() {}, debug() {} } as never;
  const before = new Set(register.getMetricsAsArray().map((metric) => metric.name));
  // Its gauges read PostgreSQL at scrape; without one, they log and leave their samples out, not their TYPE.
  registerWorkerGauges({} as never, quiet);
  const wholeService = new Set(
    register
      .getMetricsAsArray()
      .map((metric) => metric.name)
      .filter((name) => !before.has(name)),
  );
  const port = await freePort();
  const server = await serveMetrics({ host: '127.0.0.1', port, logger: quiet });
  try {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    // Only the TYPE lines: a first scrape may carry NaN samples (an event-loop histogram not yet filled).
    const families = new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((match) => [match[1]!, match[2]!] as const));
    return { families, wholeService };
  } finally {
    await server.close();
  }
}

const CORE = 'node_modules/@temporalio/core-bridge/sdk-core/crates';
const CORE_SOURCES = ['sdk-core/src/telemetry/metrics.rs', 'common/src/telemetry/metrics.rs', 'client/src/metrics.rs'];

describe('the observability stack of docker-compose.yml', () => {
  const compose = parseYaml(read('docker-compose.yml')) as Compose;
  const services = compose.services ?? {};

  it('has a collector, Prometheus and Grafana, each on a pinned image', () => {
    for (const [name, image] of [
      ['otel-collector', 'otel/opentelemetry-collector-contrib'],
      ['prometheus', 'prom/prometheus'],
      ['grafana', 'grafana/grafana'],
    ] as const) {
      expect(services[name]?.image, name).toMatch(new RegExp(`^${image}:v?\\d+\\.\\d+\\.\\d+$`));
    }
  });

  it('has Grafana query only metrics the api, the worker and the Temporal SDK export, whole-service gauges by their max', async () => {
    const { families, wholeService } = await ourFamilies();
    expect(wholeService).toEqual(
      new Set(['agent_service_turns', 'agent_service_postgres_notify_queue_usage', 'agent_service_approvals_waiting']),
    );
    // Core's names hold only with its default naming, which the worker keeps.
    expect(read('workers/observability.ts')).not.toMatch(/countersTotalSuffix|unitSuffix|useSecondsForDurations|metricPrefix/);
    const sources = CORE_SOURCES.map((file) => path.join(CORE, file));
    for (const file of sources) expect(fs.existsSync(path.join(ROOT, file)), `${file} (the Temporal SDK's source)`).toBe(true);
    const temporal = temporalFamilies(sources.map(read));
    expect(temporal.get('temporal_worker_task_slots_available')).toBe('gauge');
    const exported = seriesNames(new Map([...families, ...temporal]));
    const dashboard = JSON.parse(read('deploy/grafana/dashboards/agent-service.json')) as Dashboard;
    expect(queriesOf(dashboard).length).toBeGreaterThan(10);
    expect(dashboardProblems(dashboard, exported, seriesNames(new Map([...wholeService].map((name) => [name, 'gauge']))))).toEqual([]);
    // The metrics that matter each have a panel.
    const queried = new Set(queriesOf(dashboard).flatMap(({ expr }) => metricNamesIn(expr)));
    for (const name of [
      'agent_service_turn_duration_seconds_bucket',
      'agent_service_turn_first_token_seconds_bucket',
      'agent_service_turns',
      'agent_service_approvals_waiting',
      'agent_service_webhook_delivery_attempts_total',
      'agent_service_model_cost_usd_total',
      'agent_service_model_tokens_total',
      'agent_service_http_requests_total',
      'agent_service_http_request_duration_seconds_bucket',
    ]) {
      expect(queried, name).toContain(name);
    }
  });

  it('has every panel read the provisioned data source, which is the prometheus service', () => {
    const grafana = services.grafana;
    const provisioning = fileInRepository(grafana, '/etc/grafana/provisioning');
    expect(provisioning).toBeDefined();
    const sources = parseYaml(read(path.join(provisioning!, 'datasources/prometheus.yml'))).datasources as Array<{
      uid: string;
      type: string;
      url: string;
    }>;
    expect(sources).toHaveLength(1);
    const source = sources[0]!;
    expect(source.type).toBe('prometheus');
    const address = url(source.url);
    expect(address?.hostname).toBe('prometheus');
    expect(services.prometheus).toBeDefined();
    // Prometheus listens on 9090 unless its command says otherwise.
    const listen = [services.prometheus!.command ?? []].flat().find((flag) => flag.startsWith('--web.listen-address='));
    expect(Number(address?.port)).toBe(listen ? Number(listen.split(':').pop()) : 9090);
    const dashboard = JSON.parse(read('deploy/grafana/dashboards/agent-service.json')) as Dashboard;
    for (const { panel, datasource } of queriesOf(dashboard)) expect(datasource, panel).toBe(source.uid);
  });

  it('provisions the dashboard from the folder the compose file mounts, and makes it the home page', () => {
    const grafana = services.grafana;
    const providers = parseYaml(read(path.join(fileInRepository(grafana, '/etc/grafana/provisioning')!, 'dashboards/agent-service.yml')))
      .providers as Array<{ options: { path: string } }>;
    const folder = fileInRepository(grafana, providers[0]!.options.path);
    expect(folder).toBe(path.normalize('deploy/grafana/dashboards'));
    const home = environmentOf(grafana).get('GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH')!;
    expect(fs.existsSync(path.join(ROOT, fileInRepository(grafana, home)!))).toBe(true);
  });

  it('keeps Grafana behind a login: admin password required, no anonymous access, no sign-up', () => {
    const env = environmentOf(services.grafana);
    expect(env.get('GF_SECURITY_ADMIN_PASSWORD')).toMatch(/^\$\{GRAFANA_ADMIN_PASSWORD:\?.+\}$/);
    expect(env.get('GF_AUTH_ANONYMOUS_ENABLED')).toBe('false');
    expect(env.get('GF_USERS_ALLOW_SIGN_UP')).toBe('false');
  });

  it('has Prometheus scrape the api and the worker on the metrics ports their environment sets', () => {
    const prometheus = parseYaml(read(fileInRepository(services.prometheus, '/etc/prometheus/prometheus.yml')!));
    expect(new Set(scrapeTargets(prometheus).map((target) => target.host))).toEqual(new Set(['api', 'worker']));
    expect(scrapeProblems(prometheus, compose)).toEqual([]);
    // Served inside the network only: neither publishes its metrics port.
    for (const name of ['api', 'worker']) {
      const env = environmentOf(services[name]);
      const metricsPorts = ['METRICS_PORT', 'WORKER_METRICS_PORT'].filter((key) => env.has(key)).map((key) => env.get(key)!);
      expect(metricsPorts, name).toHaveLength(1);
      for (const port of services[name]!.ports ?? []) expect(String(port)).not.toMatch(new RegExp(`:${metricsPorts[0]}$`));
    }
  });

  it("has the collector's pipeline, with each exporter TRACE_BACKEND can pick, name only components it defines", () => {
    const collector = services['otel-collector'];
    const files = [collector?.command ?? []].flat().map((flag) => /^--config=(.+)$/.exec(flag)?.[1]);
    expect(files.every(Boolean)).toBe(true);
    const [base, chosen] = files as string[];
    // The default choice exists, and so does every other file beside it.
    expect(fs.existsSync(path.join(ROOT, fileInRepository(collector, withDefaults(chosen!))!))).toBe(true);
    const folder = path.dirname(fileInRepository(collector, base!)!);
    const baseConfig = parseYaml(read(fileInRepository(collector, base!)!));
    const choices = fs.readdirSync(path.join(ROOT, folder)).filter((file) => file.endsWith('.yaml') && file !== path.basename(base!));
    expect(choices.sort()).toEqual(['debug.yaml', 'otlphttp.yaml']);
    for (const choice of choices) {
      expect(collectorProblems(mergeConfigs(baseConfig, parseYaml(read(path.join(folder, choice))))), choice).toEqual([]);
    }
    // What otlphttp.yaml reads from its environment, the compose file passes on.
    const wanted = [...read(path.join(folder, 'otlphttp.yaml')).matchAll(/\$\{env:([A-Z_]+)/g)].map((match) => match[1]!);
    expect(wanted.length).toBeGreaterThan(0);
    for (const name of wanted) expect(environmentOf(collector).has(name), name).toBe(true);
  });

  it("sends the api's and worker's spans to the collector's OTLP/HTTP receiver", () => {
    const collector = services['otel-collector'];
    const base = [collector?.command ?? []].flat()[0]!.replace('--config=', '');
    const port = otlpHttpPort(parseYaml(read(fileInRepository(collector, base)!)));
    expect(port).toBe(4318);
    for (const name of ['api', 'worker']) {
      const endpoint = url(environmentOf(services[name]).get('OTEL_EXPORTER_OTLP_ENDPOINT'));
      expect(endpoint?.hostname, name).toBe('otel-collector');
      expect(Number(endpoint?.port), name).toBe(port);
      expect(endpoint?.protocol, name).toBe('http:');
    }
  });
});
