// Builds the CLI into dist/agent-service.js: one ES module for plain Node, with its packages and the
// repository's shared pure modules (the command resolver of contract/, the bundle validator of lib/)
// bundled in, so `npx agent-service` starts without tsx and without resolving anything at run time.
// The SDK (@agent-service/sdk) is bundled from its source, not from its dist/: npm runs the prepare
// scripts of workspaces concurrently (`npm ci` builds the SDK, the CLI and the dashboard at once), so
// this build can neither wait for the SDK's nor build it again without racing it over sdk/dist.
import fs from 'node:fs';
import path from 'node:path';
import console from 'node:console';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const cliDir = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const rootDir = path.dirname(cliDir);
const sdkDir = path.join(rootDir, 'sdk');
const outFile = path.join(cliDir, 'dist', 'agent-service.js');

const { version } = JSON.parse(fs.readFileSync(path.join(cliDir, 'package.json'), 'utf8'));
fs.rmSync(path.join(cliDir, 'dist'), { recursive: true, force: true });
await build({
  entryPoints: [path.join(cliDir, 'src', 'main.ts')],
  outfile: outFile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // jsonc-parser's "main" is a UMD build whose require() calls a bundle cannot follow; its ES module can be.
  mainFields: ['module', 'main'],
  logLevel: 'warning',
  define: { CLI_VERSION: JSON.stringify(version) },
  alias: { '@agent-service/sdk': path.join(sdkDir, 'src', 'index.ts') },
  // Bundled CommonJS packages (ajv) call require() for Node's modules; an ES module has none of its own.
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);",
  },
});
fs.chmodSync(outFile, 0o755);
// To stderr, as the SDK's build: npm pack --json prints its JSON on stdout.
console.error(`@agent-service/cli built into ${path.relative(rootDir, outFile)}`);
