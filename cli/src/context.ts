// What every command needs from the command line and the profile: whether to print JSON, which
// profile to use, and a Client of the SDK logged in with that profile's key.
import { Client } from '@agent-service/sdk';
import type { Command } from 'commander';
import { DEFAULT_PROFILE, readConfig, type Profile } from './config.ts';
import { CliError } from './exit-codes.ts';

export interface GlobalOptions {
  json?: boolean;
  profile?: string;
}

export interface Context {
  json: boolean;
  profileName: string;
  /** The profile, or undefined when not logged in. */
  profile: Profile | undefined;
  /** A client logged in with the profile (or AGENT_SERVICE_API_KEY); throws when there is none. */
  client(): Client;
}

/** The context of the command being run (its options merged with the program's global ones). */
export function contextOf(command: Command): Context {
  const options = command.optsWithGlobals<GlobalOptions>();
  const profileName = options.profile ?? process.env.AGENT_SERVICE_PROFILE ?? DEFAULT_PROFILE;
  const profile = readConfig().profiles[profileName];
  return {
    json: Boolean(options.json),
    profileName,
    profile,
    client: () => clientOf(profile, profileName),
  };
}

/**
 * The key and address come from the profile; AGENT_SERVICE_API_KEY and AGENT_SERVICE_URL, when
 * set, win (a CI job has no profile).
 */
function clientOf(profile: Profile | undefined, profileName: string): Client {
  const apiKey = process.env.AGENT_SERVICE_API_KEY || profile?.key;
  const baseUrl = process.env.AGENT_SERVICE_URL || profile?.url;
  if (!apiKey || !baseUrl) {
    const which = profileName === DEFAULT_PROFILE ? '' : ` --profile ${profileName}`;
    throw new CliError(`Not logged in${which ? ` (profile ${profileName})` : ''}: run \`agent-service login${which}\` first`);
  }
  return new Client({ baseUrl, apiKey });
}
