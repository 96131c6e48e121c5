// Where a production API puts the key of the admin its first start creates: a file under DATA_DIR that
// only the service's own user can read, never its output, which container platforms ship to log stores.
import fs from 'node:fs/promises';
import path from 'node:path';

export const FIRST_ADMIN_KEY_FILE = 'first-admin-api-key';

/** Writes the key to DATA_DIR/first-admin-api-key, mode 0600; refuses to overwrite one left there. */
export async function writeFirstAdminKey(dataDir: string, key: string): Promise<string> {
  const file = path.resolve(dataDir, FIRST_ADMIN_KEY_FILE);
  await fs.mkdir(path.dirname(file), { recursive: true });
  // `wx`: a file already there belongs to an earlier first start; it is the operator's to remove.
  await fs.writeFile(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  return file;
}
