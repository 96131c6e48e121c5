// The public contract (contract/) is what clients import instead of copying types: it must load in a
// browser and in a plain Node process with nothing of the server on its module graph. Bundled for a
// browser, a Node built-in would not resolve and pg, Temporal or Express would show in the inputs.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { expect, test } from 'vitest';

test('the contract bundles for a browser with nothing of the server in it, and runs in plain Node', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'contract-'));
  try {
    const outfile = path.join(dir, 'contract.mjs');
    const result = await build({
      entryPoints: ['contract/index.ts'],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      outfile,
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((input) => !input.startsWith('contract/') && !input.startsWith('schema/'))).toEqual([]);

    // No tsx, no loader: the bundle is plain JavaScript a client's build would produce.
    const probe = `
      const c = await import(${JSON.stringify(outfile)});
      console.log(JSON.stringify({
        notFound: c.problemType('not-found'), status: c.PROBLEMS['not-found'].status,
        schemaId: typeof c.BUNDLE_SCHEMA.$schema, scopes: c.SCOPES.length > 0, webhook: c.isWebhookEventType('session.completed'),
      }));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', probe]);
    expect(JSON.parse(stdout)).toEqual({
      notFound: 'https://agent-service.dev/problems/not-found',
      status: 404,
      schemaId: 'string',
      scopes: true,
      webhook: true,
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
