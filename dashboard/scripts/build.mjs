// Builds the dashboard into dist/ with Vite: index.html and hashed assets, no inline script or style
// (the API serves them under /app/ with a Content-Security-Policy that allows neither).
// The page bundles the SDK from its source (sdk/src, TypeScript that runs in browsers), not from
// sdk/dist: npm runs the workspaces' prepare scripts in parallel, so the SDK's own build may be
// emptying sdk/dist while this one runs.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const dashboardDir = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const sdkEntry = path.join(path.dirname(dashboardDir), 'sdk', 'src', 'index.ts');

await build({
  root: dashboardDir,
  base: '/app/',
  configFile: false,
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  resolve: { alias: { '@agent-service/sdk': sdkEntry } },
  build: {
    outDir: path.join(dashboardDir, 'dist'),
    emptyOutDir: true,
    // The polyfill would be an extra script; every browser the page supports has modulepreload.
    modulePreload: { polyfill: false },
    // Images and fonts as files, never data: URLs inlined into CSS or scripts.
    assetsInlineLimit: 0,
  },
});
