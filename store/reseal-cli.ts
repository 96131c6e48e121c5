// `npm run reseal`: after a master key rotation, seals every secret and webhook secret again under
// the current master key (SERVICE_MASTER_KEY), opening each under the previous key that sealed it
// (SERVICE_MASTER_KEY_PREVIOUS), and says how many it moved. It runs beside the service, and
// running it again moves only what is left. Keys are named by their ids, never by their values.
import { loadConfig, type Config } from '../lib/config.ts';
import { loadMasterKeys, type MasterKey } from '../lib/master-key.ts';
import { createPool } from './db.ts';
import { resealAll } from './reseal.ts';

function fail(message: string): never {
  console.error(`reseal: ${message}`);
  process.exit(1);
}

function batchSizeArgument(args: readonly string[]): number {
  const given = args.find((arg) => arg.startsWith('--batch-size='));
  if (!given) return 100;
  const size = Number(given.slice('--batch-size='.length));
  if (!Number.isInteger(size) || size < 1) fail('--batch-size must be a whole number of rows, at least 1');
  return size;
}

const batchSize = batchSizeArgument(process.argv.slice(2));
let config: Config;
let keys: MasterKey[];
try {
  config = loadConfig();
  // Checked before the keys are loaded: without it a key would be generated under DATA_DIR, one no
  // service process may know.
  if (!config.serviceMasterKey) fail('SERVICE_MASTER_KEY is not set: it is the key everything is sealed under again.');
  if (!config.databaseUrl) fail('DATABASE_URL is not set: it names the database whose secrets are resealed.');
  keys = loadMasterKeys(config);
} catch (error) {
  fail((error as Error).message);
}

const [current, ...previous] = keys;
console.log(`current master key ${current!.id}; previous ${previous.map((key) => key.id).join(', ') || 'none'}`);
const db = createPool(config.databaseUrl, 1, config.database);
try {
  for (const count of await resealAll(db, keys, batchSize)) {
    console.log(`${count.label}: ${count.resealed} resealed, ${count.alreadyCurrent} already under ${current!.id}`);
  }
} catch (error) {
  console.error(`reseal: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await db.end();
}
