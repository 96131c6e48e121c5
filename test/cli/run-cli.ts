// Runs the built `agent-service` binary (cli/dist, what `npx agent-service` runs) as a separate
// plain-node process, each test with a config directory of its own, as a user would.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.join(import.meta.dirname, '../..');
export const CLI = path.join(root, 'cli/dist/agent-service.js');

/** `npm ci` builds it; a checkout that was never installed builds it here once. */
export function ensureBuilt(): void {
  if (!fs.existsSync(CLI)) execFileSync(process.execPath, [path.join(root, 'cli/scripts/build.mjs')], { stdio: 'inherit' });
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** AGENT_SERVICE_CONFIG_DIR: where profiles are kept. */
  configDir: string;
  /** Written to stdin, which is then closed (stdin is empty otherwise). */
  input?: string;
  env?: Record<string, string>;
  cwd?: string;
}

export function newConfigDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'agent-service-cli-'));
}

/** The environment of a user's shell: no colours (NO_COLOR), none of the test process's settings. */
export function cliEnv(configDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: configDir, AGENT_SERVICE_CONFIG_DIR: configDir, NO_COLOR: '1', ...extra };
}

export function startCli(args: string[], options: CliOptions): ChildProcess {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: cliEnv(options.configDir, options.env),
    cwd: options.cwd ?? options.configDir,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin!.end(options.input ?? '');
  return child;
}

export function runCli(args: string[], options: CliOptions): Promise<CliResult> {
  const child = startCli(args, options);
  return outcome(child);
}

export function outcome(child: ChildProcess): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Logs a config directory in with a key, as `login --key` with the key piped in. */
export async function loginWith(configDir: string, url: string, key: string): Promise<void> {
  const result = await runCli(['login', '--key', '--url', url], { configDir, input: `${key}\n` });
  if (result.code !== 0) throw new Error(`login failed (${result.code}): ${result.stderr}`);
}
