// The API serves the dashboard under /app/: the built page with a strict Content-Security-Policy,
// any /app/ path as the page (it routes in the browser), a missing asset as 404, and a clear 503
// when the page was never built.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import { beforeAll, expect } from 'vitest';
import { apiTest } from '../helpers/harness/fixtures.ts';
import { serveDashboard } from '../../api/middleware/serve-dashboard.ts';
import { ensureDashboardBuilt } from './build.ts';

const test = apiTest();
beforeAll(() => ensureDashboardBuilt());

test('/app/ is the built page under a CSP without inline script or style, and its assets load', async ({ api }) => {
  const response = await fetch(`${api.url}/app/`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/html/);
  const csp = response.headers.get('content-security-policy')!;
  expect(csp).toContain("default-src 'self'");
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("style-src 'self'");
  expect(csp).not.toContain('unsafe-inline');
  const html = await response.text();
  // Every script is a file of the page's own; no inline code in the page.
  expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  expect(html).not.toMatch(/<style|\bstyle=/);
  const assets = [...html.matchAll(/(?:src|href)="(\/app\/assets\/[^"]+)"/g)].map((match) => match[1]!);
  expect(assets.length).toBeGreaterThanOrEqual(2);
  for (const asset of assets) {
    const file = await fetch(`${api.url}${asset}`);
    expect(file.status).toBe(200);
    expect(file.headers.get('cache-control')).toContain('immutable');
  }
});

test('a page path is answered with the page; a missing asset is a 404, not the page', async ({ api }) => {
  const page = await fetch(`${api.url}/app/agents/helper?tab=revisions`);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('<div id="root">');
  expect((await fetch(`${api.url}/app/assets/missing-123.js`)).status).toBe(404);
  const bare = await fetch(`${api.url}/app`, { redirect: 'manual' });
  expect(bare.status).toBe(301);
  expect(bare.headers.get('location')).toBe('/app/');
});

test('without a build, /app/ answers 503 saying how to build it', async () => {
  const app = express();
  app.use((req, _res, next) => {
    req.traceId = 'trace-test';
    next();
  });
  app.use('/app', serveDashboard({ dir: path.join(os.tmpdir(), 'no-dashboard-here') }));
  const server = http.createServer(app).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/app/agents`);
    expect(response.status).toBe(503);
    const problem = (await response.json()) as { detail: string; traceId: string };
    expect(problem.detail).toContain('npm run build --workspace dashboard');
    expect(problem.traceId).toBe('trace-test');
  } finally {
    server.close();
  }
});
