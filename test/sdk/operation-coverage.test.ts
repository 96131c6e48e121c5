// Every operation of the API has an SDK method (or a reason it has none), and the SDK imports nothing
// of the server: only types from contract/, and the pure contract modules its build bundles.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { OPERATIONS } from '../../contract/operations/index.ts';
import { OPERATION_METHODS } from '../../sdk/src/operation-methods.ts';
import { Client } from '../../sdk/src/index.ts';
import { BUNDLED_CONTRACT_MODULES } from '../../sdk/scripts/bundled-contract.mjs';

const client = new Client({ baseUrl: 'http://127.0.0.1:9', apiKey: 'sk_test' });

function methodAt(methodPath: string): unknown {
  return methodPath.split('.').reduce<unknown>((target, name) => (target as Record<string, unknown> | undefined)?.[name], client);
}

describe('operations and SDK methods', () => {
  test('every operation of contract/operations has an entry', () => {
    expect(Object.keys(OPERATION_METHODS).sort()).toEqual(Object.keys(OPERATIONS).sort());
  });

  test('every operation of the committed openapi.json has an entry', () => {
    const document = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../../openapi.json'), 'utf8')) as {
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    const ids = Object.values(document.paths).flatMap((item) => Object.values(item).map((operation) => operation.operationId));
    for (const id of ids) expect(OPERATION_METHODS, `openapi.json's ${id}`).toHaveProperty(id!);
  });

  test.each(Object.entries(OPERATION_METHODS))('%s', (id, method) => {
    if (typeof method === 'string') expect(typeof methodAt(method), `client.${method} for ${id}`).toBe('function');
    else expect(method.excluded.length).toBeGreaterThan(20);
  });
});

describe('the SDK imports nothing of the server', () => {
  const sdkSource = path.join(import.meta.dirname, '../../sdk/src');
  const files = fs.readdirSync(sdkSource, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));

  test.each(files)('%s', (file) => {
    const text = fs.readFileSync(path.join(sdkSource, file), 'utf8');
    for (const match of text.matchAll(/^(import|export)\s+(type\s+)?[^;]*?from\s+'([^']+)'/gms)) {
      const [, , typeOnly, specifier] = match;
      expect(specifier!.startsWith('.'), `${file} imports the package ${specifier}`).toBe(true);
      const resolved = path.relative(path.join(sdkSource, '../..'), path.resolve(path.dirname(path.join(sdkSource, file)), specifier!));
      if (resolved.startsWith('sdk/src/')) continue;
      expect(resolved.startsWith('contract/'), `${file} imports ${resolved}`).toBe(true);
      // It runs only the pure contract modules its build bundles.
      const bundled = BUNDLED_CONTRACT_MODULES.includes(resolved.slice('contract/'.length));
      expect(typeOnly || bundled, `${file} imports ${resolved} for more than its types`).toBeTruthy();
    }
  });
});
