// login, logout, whoami: a profile holds a service address and a key (config.ts).
import { AuthenticationError, Client } from '@agent-service/sdk';
import type { Command } from 'commander';
import { DEFAULT_PROFILE, removeProfile, saveProfile, type Profile } from '../config.ts';
import { contextOf } from '../context.ts';
import { CliError } from '../exit-codes.ts';
import { withExamples } from '../help.ts';
import { findOwnKey } from '../key-identity.ts';
import { deleteMintedKey } from '../minted-key.ts';
import { note, printFields, printJson } from '../output.ts';
import { promptHidden } from '../prompt.ts';
import { withSpinner } from '../spinner.ts';
import { err } from '../style.ts';
import { deviceLogin, registerLoginApprove } from './device-login.ts';

export const DEFAULT_URL = 'http://127.0.0.1:3000';

interface LoginOptions {
  key?: string | boolean;
  url?: string;
  scope?: string[];
}

export function registerAccount(program: Command): void {
  const login = program
    .command('login')
    .description('Log in: with an API key (--key, or pasted at a hidden prompt), or by approving this device from a logged-in session')
    .option('--key [key]', 'an API key; without a value it is asked for at a hidden prompt (or read from stdin)')
    .option('--url <url>', `the service's address (default: the profile's, AGENT_SERVICE_URL, or ${DEFAULT_URL})`)
    .option('--scope <scope...>', 'device login: the scopes the new key asks for (default: those of the approving key)')
    .action(async (options: LoginOptions, command: Command) => {
      const context = contextOf(command);
      const url = (options.url ?? process.env.AGENT_SERVICE_URL ?? context.profile?.url ?? DEFAULT_URL).replace(/\/+$/, '');
      const profile =
        options.key === undefined
          ? await deviceLogin(url, { scopes: options.scope, json: context.json })
          : await keyLogin(url, typeof options.key === 'string' ? options.key : await promptHidden('API key: '));
      // The key this profile held until now, if minted for it, is held by nobody once replaced.
      if (context.profile && context.profile.key !== profile.key) await deleteMintedKey(context.profile).catch(() => false);
      saveProfile(context.profileName, profile);
      if (context.json)
        printJson({ profile: context.profileName, url: profile.url, keyId: profile.keyId ?? null, minted: Boolean(profile.minted) });
      else note(`${err().green('Logged in')} to ${profile.url}${profileSuffix(context.profileName)}.`);
    });
  withExamples(login, [
    'agent-service login                                  # approve this device from a logged-in session',
    'agent-service login --key                            # paste a key at a hidden prompt',
    'agent-service login --url https://agents.example.com --key --profile work',
    'echo "$KEY" | agent-service login --key              # from a script',
  ]);
  registerLoginApprove(login);

  withExamples(
    program
      .command('logout')
      .description('Forget the profile; a key minted by `login` (device flow) is deleted on the service too')
      .action(async (_options: object, command: Command) => {
        const context = contextOf(command);
        const profile = context.profile;
        if (!profile) throw new CliError(`Not logged in${profileSuffix(context.profileName)}`);
        const deleted = await deleteMintedKey(profile);
        removeProfile(context.profileName);
        if (context.json) printJson({ profile: context.profileName, keyDeleted: deleted });
        else note(`Logged out${profileSuffix(context.profileName)}${deleted ? '; its key was deleted' : ''}.`);
      }),
    ['agent-service logout', 'agent-service logout --profile work'],
  );

  withExamples(
    program
      .command('whoami')
      .description('Show the service and the key this profile uses')
      .action(async (_options: object, command: Command) => {
        const context = contextOf(command);
        const client = context.client();
        const key = process.env.AGENT_SERVICE_API_KEY || context.profile?.key || '';
        const listing = await withSpinner('Asking the service', () => findOwnKey(client, key), { quiet: context.json });
        const url = process.env.AGENT_SERVICE_URL || context.profile?.url;
        if (context.json) {
          printJson({ profile: context.profileName, url, key: listing ?? null });
          return;
        }
        printFields([
          ['profile', context.profileName],
          ['service', url],
          ['key', listing ? `${listing.name} (${listing.prefix}…, ${listing.id})` : `${key.slice(0, 10)}… (this key may not read keys)`],
          ['scopes', listing?.scopes.join(', ')],
        ]);
      }),
    ['agent-service whoami', 'agent-service whoami --json'],
  );
}

/** Checks the key against the service before keeping it: a typo should fail here, not later. */
async function keyLogin(url: string, key: string): Promise<Profile> {
  const trimmed = key.trim();
  if (!trimmed) throw new CliError('No key given');
  const client = new Client({ baseUrl: url, apiKey: trimmed });
  const listing = await withSpinner(`Checking the key with ${url}`, () => findOwnKey(client, trimmed)).catch((error: unknown) => {
    if (error instanceof AuthenticationError) throw new CliError(`The service at ${url} refused this key`);
    throw error;
  });
  return { url, key: trimmed, ...(listing ? { keyId: listing.id } : {}) };
}

export function profileSuffix(name: string): string {
  return name === DEFAULT_PROFILE ? '' : ` (profile ${name})`;
}
