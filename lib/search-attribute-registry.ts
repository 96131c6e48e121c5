// The search attributes this service writes (lib/workflow-safe/search-attributes.ts) on a Temporal namespace: which
// are missing, and registering them. A workflow started with an attribute its namespace lacks is
// refused, so a worker checks at start and stops naming the missing ones rather than fail every run.
import proto from '@temporalio/proto';
import type { Connection } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { SEARCH_ATTRIBUTES } from './workflow-safe/search-attributes.ts';

// The package is CommonJS: its namespace comes through the default export under Node's ESM loader.
const { INDEXED_VALUE_TYPE_KEYWORD } = proto.temporal.api.enums.v1.IndexedValueType;

type OperatorConnection = Pick<Connection | NativeConnection, 'operatorService'>;

/** Names of this service's attributes the namespace lacks (or has with another type). */
export async function missingSearchAttributes(connection: OperatorConnection, namespace: string): Promise<string[]> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  return SEARCH_ATTRIBUTES.filter(({ name }) => customAttributes?.[name] !== INDEXED_VALUE_TYPE_KEYWORD).map(({ name }) => name);
}

/** Registers the missing ones; returns their names (none: all were there). */
export async function registerSearchAttributes(connection: OperatorConnection, namespace: string): Promise<string[]> {
  const missing = await missingSearchAttributes(connection, namespace);
  if (missing.length === 0) return [];
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(missing.map((name) => [name, INDEXED_VALUE_TYPE_KEYWORD])),
  });
  return missing;
}

/** What an operator runs when a namespace lacks them. */
export function registrationHint(namespace: string): string {
  const flags = SEARCH_ATTRIBUTES.map(({ name, type }) => `--name ${name} --type ${type}`).join(' ');
  return `run \`npm run search-attributes\` with the same TEMPORAL_* settings, or \`temporal operator search-attribute create --namespace ${namespace} ${flags}\``;
}
