// The device flow of `login` (RFC 8628 in shape): placeholder until the service offers it.
import type { Command } from 'commander';
import type { Profile } from '../config.ts';
import { promptHidden } from '../prompt.ts';
import { CliError } from '../exit-codes.ts';

export async function deviceLogin(url: string, _options: { scopes?: string[]; json: boolean }): Promise<Profile> {
  if (!process.stdin.isTTY) throw new CliError('No key: pass --key, or pipe one into `agent-service login --key`');
  const key = await promptHidden('API key: ');
  return { url, key };
}

export function registerLoginApprove(_login: Command): void {}
