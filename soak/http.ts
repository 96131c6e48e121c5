// Requests as a careful client makes them through the balancer while processes die under it: a
// connection that breaks, or a 502/503/504, is tried again after a short pause (a send with the same
// Idempotency-Key, so it is taken once), up to a deadline. Every retry is counted for the report.
import { setTimeout as sleep } from 'node:timers/promises';

export interface JsonAnswer<T> {
  status: number;
  body: T;
  /** Requests sent to get it: 1 unless a connection broke or the service answered 502, 503 or 504. */
  attempts: number;
}

export interface SoakHttp {
  /** JSON in and out. Only for requests that may be sent again (a send carries an Idempotency-Key). */
  json<T = Record<string, unknown>>(
    path: string,
    init?: { method?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<JsonAnswer<T>>;
  /** The raw response of one attempt (for SSE), with the same retries until a response comes. */
  open(path: string, init: { method?: string; body?: unknown; headers?: Record<string, string>; signal?: AbortSignal }): Promise<Response>;
  readonly retries: number;
  /** The failures that were tried again, by what they were (a status, or the network error's words). */
  readonly failures: Record<string, number>;
}

const RETRY_STATUSES = new Set([502, 503, 504]);
const PAUSE_MS = 200;
/** A request still failing after this long fails the soak: no process came back. */
const DEADLINE_MS = 90_000;

export function soakHttp(baseUrl: string, apiKey: string): SoakHttp {
  let retries = 0;
  const failures: Record<string, number> = {};
  const auth = { authorization: `Bearer ${apiKey}` };

  /** The response of the first attempt that got one, and how many attempts that took. */
  async function counted(
    path: string,
    init: { method?: string; body?: unknown; headers?: Record<string, string>; signal?: AbortSignal },
  ): Promise<{ response: Response; attempts: number }> {
    const deadline = Date.now() + DEADLINE_MS;
    for (let attempts = 1; ; attempts++) {
      let failure: string;
      try {
        const response = await fetch(`${baseUrl}${path}`, {
          method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
          headers: { ...auth, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
          body: init.body === undefined ? undefined : JSON.stringify(init.body),
          signal: init.signal,
        });
        if (!RETRY_STATUSES.has(response.status)) return { response, attempts };
        failure = `${response.status} ${await response.text().catch(() => '')}`;
      } catch (error) {
        if (init.signal?.aborted) throw error;
        failure = (error as Error).message;
      }
      if (Date.now() > deadline) throw new Error(`${init.method ?? 'GET'} ${path} kept failing for ${DEADLINE_MS / 1000} s: ${failure}`);
      retries += 1;
      const what = failure.slice(0, 80);
      failures[what] = (failures[what] ?? 0) + 1;
      await sleep(PAUSE_MS);
    }
  }

  return {
    open: async (path, init) => (await counted(path, init)).response,
    async json(path, init = {}) {
      // The body is read within the retries: a connection cut mid-body is a failed attempt too.
      const deadline = Date.now() + DEADLINE_MS;
      for (let sent = 0; ;) {
        const { response, attempts } = await counted(path, init);
        sent += attempts;
        try {
          const text = await response.text();
          return { status: response.status, body: (text ? JSON.parse(text) : undefined) as never, attempts: sent };
        } catch (error) {
          if (Date.now() > deadline) throw error;
          retries += 1;
        }
      }
    },
    get retries() {
      return retries;
    },
    failures,
  };
}
