// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { BUNDLED_CONTRACT_MODULES } from './sdk/scripts/bundled-contract.mjs';

// The lib/ modules workflow code may run (and core/, which workflows run) are those in lib/workflow-safe/:
// deterministic, no I/O, importing only each other. Every other lib/ module is refused there (lib/storage.ts,
// lib/outbound.ts and lib/temporal.ts do I/O); a module moves into the folder on purpose, and the folder
// says what it may do.
const WORKFLOW_SAFE_DIR = 'lib/workflow-safe';
// What replayed code may not import: Temporal's client side, I/O packages, Node's modules.
const NOT_IN_WORKFLOW_CODE = [
  '@temporalio/client',
  '@temporalio/activity',
  '@temporalio/worker',
  'pg',
  'express',
  'pino',
  'ai',
  '@ai-sdk/*',
];

// The layers of the service, bottom up (docs/development.md, "The layers"). Each folder may import local code only
// from the folders listed for it, and `typeOnly` folders only for their types; an import against
// this fails the lint step of `npm test`. Packages are restricted where the layer's job says so.
const LAYERS = {
  schema: { may: [] },
  // The public contract: types, schemas and constants a client imports; runs in a browser.
  contract: {
    may: ['schema'],
    packages: ['@temporalio/*', 'pg', 'express', 'pino', 'ai', '@ai-sdk/*', 'ajv', 'ajv/*'],
    builtins: true,
    why: 'the contract runs in a browser and does no I/O',
  },
  lib: { may: ['schema', 'contract'] },
  // The session and turn rules, and the shapes workflows and activities share: pure functions and
  // classes the workflows wire to handlers, timers and activities, tested with plain unit tests.
  core: {
    may: ['contract', 'lib'],
    workflowSafeLibOnly: true,
    onlyRelative: true,
    builtins: true,
    why: 'core/ is pure: no Temporal, no package, no I/O (a workflow wires it to Temporal)',
  },
  store: {
    may: ['contract', 'lib', 'core', 'schema'],
    packages: ['@temporalio/*', 'express', 'ai', '@ai-sdk/*'],
    why: 'the store only reads and writes PostgreSQL',
  },
  workflows: {
    may: ['contract', 'lib', 'core'],
    workflowSafeLibOnly: true,
    typeOnly: ['activities'],
    packages: NOT_IN_WORKFLOW_CODE,
    builtins: true,
    why: 'workflow code is replayed: deterministic, no I/O (use an activity), and it talks to Temporal only through @temporalio/workflow',
  },
  clients: { may: ['contract', 'lib', 'core', 'workflows'], packages: ['pg', 'express'], why: 'a workflow client only talks to Temporal' },
  // Not workflows/: what an activity shares with a workflow lives in core/ (a workflow is reached
  // through clients/).
  activities: { may: ['contract', 'lib', 'core', 'schema', 'store', 'clients'], packages: ['express'] },
  // Not workflows/: a workflow is reached through clients/, the one door from the API and the activities.
  api: { may: ['contract', 'lib', 'core', 'schema', 'store', 'clients'], typeOnly: ['activities'] },
  workers: { may: ['contract', 'lib', 'core', 'store', 'workflows', 'activities'] },
  // The SDK (@agent-service/sdk) is published alone and runs in browsers: it takes types from the
  // contract (its build writes them into its package), runs only the pure contract modules its build
  // bundles (sdk/scripts/bundled-contract.mjs), and no package or Node module at all.
  sdk: {
    // Its source; sdk/examples use the package as any program would.
    root: 'sdk/src',
    may: [],
    typeOnly: ['contract'],
    runsFrom: { contract: BUNDLED_CONTRACT_MODULES },
    onlyRelative: true,
    why: 'the SDK has no dependencies and runs in a browser (a Node-only feature loads its module dynamically)',
  },
  // The CLI (@agent-service/cli) is a client like any other: the SDK package, plus the shared pure
  // pieces its build bundles (the contract's command resolver, lib/bundle's validator); never the
  // service's own folders.
  cli: {
    root: 'cli/src',
    may: ['contract', 'lib'],
    why: 'the CLI talks to the service only through @agent-service/sdk',
  },
  // The dashboard is a web page: it talks to the API only through @agent-service/sdk, and may run the
  // contract's pure modules; never the service's folders, server packages or Node modules.
  dashboard: {
    root: 'dashboard/src',
    may: ['contract'],
    packages: ['@temporalio/*', 'pg', 'express', 'pino', 'ai', '@ai-sdk/*', 'ajv', 'ajv/*'],
    builtins: true,
    why: 'the dashboard runs in a browser and talks to the service only through @agent-service/sdk',
  },
};
const FOLDERS = [...Object.keys(LAYERS), 'dev', 'bench', 'soak', 'test'];
const PACKAGES_NAMED_LIKE_FOLDERS = ['!@modelcontextprotocol/**', '!@a2a-js/**'];
const NODE_BUILTINS = ['node:*', 'fs', 'path', 'http', 'https', 'net', 'crypto', 'child_process', 'os'];

function layerRules() {
  return Object.entries(LAYERS).map(([folder, layer]) => {
    const allowed = new Set([folder, ...layer.may, ...(layer.typeOnly ?? [])]);
    const patterns = [
      ...FOLDERS.filter((other) => !allowed.has(other)).map((other) => ({
        // A package path may hold a folder's name (`@modelcontextprotocol/sdk/...`): it is not that folder.
        group: [`**/${other}/**`, ...PACKAGES_NAMED_LIKE_FOLDERS],
        message: `${folder}/ may import only from ${[folder, ...layer.may].join(', ')}/ (docs/development.md, "The layers").`,
      })),
      ...(layer.typeOnly ?? []).map((other) => {
        const runs = layer.runsFrom?.[other] ?? [];
        return {
          group: [`**/${other}/**`, ...runs.map((module) => `!**/${other}/${module}`)],
          allowTypeImports: true,
          message:
            `${folder}/ may import only types from ${other}/` +
            (runs.length ? ` (and run ${runs.join(', ')}, which its build bundles)` : '') +
            ' (docs/development.md, "The layers").',
        };
      }),
      ...(layer.workflowSafeLibOnly
        ? [
            {
              regex: '(^|/)lib/(?!workflow-safe/)',
              message: `${folder}/ may import from lib/ only the modules safe in workflow code (${WORKFLOW_SAFE_DIR}/).`,
            },
          ]
        : []),
      ...(layer.packages ? [{ group: layer.packages, message: `Not in ${folder}/: ${layer.why ?? 'another layer does this'}.` }] : []),
      ...(layer.builtins ? [{ group: NODE_BUILTINS, message: `Not in ${folder}/: ${layer.why}.` }] : []),
      ...(layer.onlyRelative ? [{ regex: '^[^.]', message: `Not in ${folder}/: ${layer.why}.` }] : []),
    ];
    return {
      files: [`${layer.root ?? folder}/**/*.ts`, `${layer.root ?? folder}/**/*.tsx`],
      rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns }] },
    };
  });
}

export default tseslint.config(
  { ignores: ['node_modules/', '.data/', '**/dist/', 'dist.*/', 'coverage/', 'dashboard/vendor/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'always'],
      'no-console': 'off',
    },
  },
  ...layerRules(),
  // The workflow-safe lib/ modules keep to what workflow code may do: other safe modules only, no I/O.
  // (This block replaces lib/'s own import rule for these files, so it repeats lib/'s layers.)
  {
    files: [`${WORKFLOW_SAFE_DIR}/**/*.ts`],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: FOLDERS.filter((other) => !['lib', 'schema', 'contract'].includes(other)).map((other) => `**/${other}/**`),
              message: 'lib/ may import only from lib, schema, contract/ (docs/development.md, "The layers").',
            },
            {
              // `../x.ts` from here is a lib/ module outside the folder (`../../contract/` is another layer's).
              regex: '^\\.\\./(?!\\.\\./)',
              message: `A workflow-safe lib/ module imports only other workflow-safe modules (${WORKFLOW_SAFE_DIR}/).`,
            },
            {
              group: [...NOT_IN_WORKFLOW_CODE, ...NODE_BUILTINS],
              message: 'Not in a workflow-safe lib/ module: workflow code is replayed and does no I/O.',
            },
          ],
        },
      ],
    },
  },
  // A workflow's summary and details stay readable in Temporal only when written through
  // readableMetadata (lib/workflow-safe/readable-metadata.ts); a bare one would be encrypted, or, if someone marked
  // it by hand, could carry what should not be readable.
  {
    files: ['workflows/**/*.ts', 'clients/**/*.ts', 'activities/**/*.ts', 'api/**/*.ts', 'workers/**/*.ts', 'bench/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'Property[key.name=/^static(Summary|Details)$/]',
          message: 'Write a workflow summary and details with readableMetadata() from lib/workflow-safe/readable-metadata.ts.',
        },
      ],
    },
  },
);
