// `npm run search-attributes`: registers this service's search attributes (SessionId, AgentId, UserId,
// Kind) on TEMPORAL_NAMESPACE, reached with the same TEMPORAL_* settings as the processes, and exits.
// Once per namespace; running it again changes nothing. (Temporal Cloud registers them in its own
// console or tcld instead: its frontend does not take this call.)
import { Connection } from '@temporalio/client';
import { loadConfig } from '../lib/config.ts';
import { temporalConnectionOptions } from '../lib/temporal.ts';
import { registerSearchAttributes } from '../lib/search-attribute-registry.ts';

const config = loadConfig();
const connection = await Connection.connect(temporalConnectionOptions(config));
try {
  const added = await registerSearchAttributes(connection, config.temporalNamespace);
  console.log(
    added.length
      ? `registered ${added.join(', ')} on namespace "${config.temporalNamespace}"`
      : `namespace "${config.temporalNamespace}" has every search attribute already`,
  );
} catch (error) {
  console.error(`could not register the search attributes on "${config.temporalNamespace}": ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await connection.close();
}
