// Builds the dashboard into dist/ with Vite: index.html and hashed assets, no inline script or style
// (the API serves them under /app/ with a Content-Security-Policy that allows neither).
// The page imports the SDK's built package; npm does not promise to run the SDK's prepare script
// before this one, so the SDK is built here first when its dist/ is missing.
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const dashboardDir = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const sdkDir = path.join(path.dirname(dashboardDir), 'sdk');

if (!fs.existsSync(path.join(sdkDir, 'dist', 'index.js'))) {
  execFileSync(process.execPath, [path.join(sdkDir, 'scripts', 'build.mjs')], { cwd: sdkDir, stdio: ['ignore', 2, 2] });
}

await build({
  root: dashboardDir,
  base: '/app/',
  configFile: false,
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: path.join(dashboardDir, 'dist'),
    emptyOutDir: true,
    // The polyfill would be an extra script; every browser the page supports has modulepreload.
    modulePreload: { polyfill: false },
    // Images and fonts as files, never data: URLs inlined into CSS or scripts.
    assetsInlineLimit: 0,
  },
});
