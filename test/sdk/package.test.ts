// The published form: `npm pack` in sdk/ gives a tarball that installs offline into an empty folder
// (it has no dependencies), typechecks there with strict settings and no skipLibCheck (so its
// declarations need nothing of this repository), and runs under plain `node` against the service.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect } from 'vitest';
import { apiTest } from '../helpers/harness/fixtures.ts';

const test = apiTest();
const root = path.join(import.meta.dirname, '../..');
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'sdk-consumer-'));
afterAll(() => fs.rmSync(folder, { recursive: true, force: true }));

// Besides the client, it runs the contract's rules the package carries (dist/contract/): a turn's
// event filter, and the header checks of verifyWebhook.
const CONSUMER = `import {
  Client,
  NotFoundError,
  WebhookMissingHeaderError,
  turnEventFilter,
  verifyWebhook,
  type SessionEvent,
  type TurnStream,
} from '@agent-service/sdk';

const client = new Client();
const health = await client.health.retrieve();
let stream: TurnStream | undefined;
const describe = (event: SessionEvent): string => (event.type === 'message.part.delta' ? event.delta : event.type);
void stream;
void describe;
const ofTurn = turnEventFilter('msg_1');
const started = { seq: 1, at: '', sessionId: 'ses_1', type: 'turn.started', turnId: 'msg_1' } as SessionEvent;
const unsigned = await verifyWebhook('{}', {}, 'whsec_' + btoa('k'.repeat(32))).catch((error: unknown) => error);
try {
  await client.sessions.retrieve('ses_missing');
} catch (error) {
  console.log(
    JSON.stringify({
      ok: health.ok,
      notFound: error instanceof NotFoundError,
      status: (error as NotFoundError).status,
      turnFilter: [ofTurn(started), ofTurn({ ...started, turnId: 'msg_2' } as SessionEvent)],
      unsignedRefused: unsigned instanceof WebhookMissingHeaderError,
    }),
  );
}
`;

test('the tarball installs into an empty folder, typechecks and runs under plain node', { timeout: 180_000 }, async ({ api, user }) => {
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', folder], {
      cwd: path.join(root, 'sdk'),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  ) as Array<{ filename: string; files: Array<{ path: string }> }>;
  const files = packed[0]!.files.map((file) => file.path);
  expect(files).toContain('dist/index.js');
  expect(files).toContain('dist/contract.d.ts');
  expect(files).toEqual(expect.arrayContaining(['dist/contract/turn-events.js', 'dist/contract/webhook-signing.js']));
  expect(files.filter((file) => file.startsWith('src/') || file.includes('.tsc'))).toEqual([]);

  fs.writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', `./${packed[0]!.filename}`], { cwd: folder, stdio: 'pipe' });
  const installed = JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  expect(Object.keys(installed.dependencies)).toEqual(['@agent-service/sdk']);
  expect(fs.readdirSync(path.join(folder, 'node_modules')).filter((name) => !name.startsWith('.'))).toEqual(['@agent-service']);

  fs.writeFileSync(path.join(folder, 'main.ts'), CONSUMER);
  fs.writeFileSync(
    path.join(folder, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        skipLibCheck: false,
        lib: ['ES2023', 'DOM'],
        types: [],
        outDir: 'out',
      },
      files: ['main.ts'],
    }),
  );
  execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', folder], { cwd: folder, stdio: 'pipe' });

  // Not execFileSync: the API under test runs in this process and must go on answering.
  const { stdout: output } = await promisify(execFile)(process.execPath, [path.join(folder, 'out/main.js')], {
    cwd: folder,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, AGENT_SERVICE_URL: api.url, AGENT_SERVICE_API_KEY: user.apiKey },
  });
  expect(JSON.parse(output)).toEqual({ ok: true, notFound: true, status: 404, turnFilter: [true, false], unsignedRefused: true });
});
