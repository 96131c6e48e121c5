// Profiles: where each login keeps its service address and key. One JSON file in the user's config
// directory ($XDG_CONFIG_HOME/agent-service, else ~/.config/agent-service; AGENT_SERVICE_CONFIG_DIR
// overrides both), readable by its owner only: it holds API keys.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface Profile {
  url: string;
  key: string;
  /** The key's id, when known: logout deletes a key this CLI minted itself. */
  keyId?: string;
  /** True when the key was minted for this CLI (device flow): logout then deletes it on the service. */
  minted?: boolean;
}

export interface ConfigFile {
  profiles: Record<string, Profile>;
}

export const DEFAULT_PROFILE = 'default';

export function configDir(): string {
  if (process.env.AGENT_SERVICE_CONFIG_DIR) return process.env.AGENT_SERVICE_CONFIG_DIR;
  const base = process.env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
  return path.join(base, 'agent-service');
}

export function configPath(): string {
  return path.join(configDir(), 'config.json');
}

export function readConfig(): ConfigFile {
  let text: string;
  try {
    text = fs.readFileSync(configPath(), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
    throw error;
  }
  const parsed = JSON.parse(text) as Partial<ConfigFile>;
  return { profiles: parsed.profiles ?? {} };
}

/** Writes the whole file through a temporary one, so a crash never leaves half a file; 0600 throughout. */
export function writeConfig(config: ConfigFile): void {
  const dir = configDir();
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = configPath();
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(temporary, file);
  // A file made by an older version, or by hand, gets the same mode.
  fs.chmodSync(file, 0o600);
}

export function saveProfile(name: string, profile: Profile): void {
  const config = readConfig();
  config.profiles[name] = profile;
  writeConfig(config);
}

export function removeProfile(name: string): void {
  const config = readConfig();
  delete config.profiles[name];
  writeConfig(config);
}
