// How long the API's HTTP server keeps a connection open between requests. Node's default is 5 s: a load
// balancer or proxy that keeps its connections to the API idle longer (by default 60 s for AWS's ALB and
// for nginx's upstream keep-alive, 600 s for Google Cloud's) sends a request on one the API is closing,
// and its client gets a 502 or a reset with no fault anywhere, so the API must be the side that waits
// longer. A client that reads the `Keep-Alive: timeout=` the API announces (Node's fetch, under the SDK
// and the CLI) lets go of an idle connection a second or two before it.
import type http from 'node:http';
import type { Config } from '../lib/config.ts';

export function applyHttpTimeouts(server: http.Server, config: Pick<Config, 'httpKeepAliveTimeoutMs'>): void {
  server.keepAliveTimeout = config.httpKeepAliveTimeoutMs;
}
