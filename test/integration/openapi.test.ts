// /openapi.json is built from the contract's operations, and the routes attach handlers to them; this
// proves that every route Express serves is an operation and every operation is mounted.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { toOpenApiPath } from '../../api/route.ts';
import { startTestApi, type TestApi } from '../helpers/harness/api.ts';
import { call } from '../helpers/client/request.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => api?.close());

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

function mountedRoutes(stack: Layer[]): string[] {
  return stack.flatMap((layer) => {
    if (layer.route) return Object.keys(layer.route.methods).map((method) => `${method} ${toOpenApiPath(layer.route!.path)}`);
    return layer.handle?.stack ? mountedRoutes(layer.handle.stack) : [];
  });
}

test('every mounted route is an operation of /openapi.json, and every operation is mounted', async () => {
  const mounted = mountedRoutes((api.app as unknown as { router: { stack: Layer[] } }).router.stack);

  const document = (await call<{ paths: Record<string, Record<string, unknown>> }>(`${api.url}/openapi.json`)).body;
  const described = Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.keys(operations).map((method) => `${method} ${path}`),
  );
  expect(mounted.length).toBeGreaterThanOrEqual(5);
  expect(mounted.filter((route) => !described.includes(route))).toEqual([]);
  expect(described.sort()).toEqual([...new Set(mounted)].sort());
});

test('the document is OpenAPI 3.1 and its schemas compile', async () => {
  const document = (
    await call<
      Record<string, unknown> & {
        paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>;
      }
    >(`${api.url}/openapi.json`)
  ).body;
  expect(document.openapi).toBe('3.1.0');
  const ajv = new Ajv2020({ strict: false });
  ajv.addSchema({ $id: 'openapi', ...(document.components as object) });
  for (const operations of Object.values(document.paths)) {
    for (const operation of Object.values(operations)) {
      expect(Object.keys(operation.responses).length).toBeGreaterThan(0);
      expect(operation).toMatchObject({ operationId: expect.any(String), summary: expect.any(String) });
    }
  }
});
