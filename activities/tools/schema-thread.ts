// The thread that checks values against tenants' JSON Schemas (schema-checks.ts starts it). Patterns
// and uniqueItems are linear already (lib/bundle/linear-schema.ts), but a schema's own shape can cost
// exponential time: an anyOf whose branches recurse into the same value checks it again in each. Here
// such a check stalls only this thread, which its owner ends after SCHEMA_CHECK_TIMEOUT_MS, never the
// worker's event loop every user's turns share.
import { parentPort } from 'node:worker_threads';
import type { JsonObject } from '../../contract/bundle.ts';
import { compiledSchema, describeSchemaError } from './validate-input.ts';

export interface CheckRequest {
  id: number;
  schema: JsonObject;
  value: unknown;
  /** How the messages name the value checked: "the input", "the reply". */
  root: string;
}

/** Valid; or what is wrong, in words for the model (distinct, first ones first); or why it could not be checked. */
export type CheckAnswer = { id: number; valid: true } | { id: number; valid: false; errors: string[] } | { id: number; unusable: string };

/** More than any caller reports: the error list itself must not grow with an exponential check. */
const MAX_DESCRIBED = 20;

function check(request: CheckRequest): CheckAnswer {
  const { id } = request;
  let validate;
  try {
    validate = compiledSchema(request.schema);
  } catch (error) {
    return { id, unusable: `The schema does not compile: ${error instanceof Error ? error.message : String(error)}` };
  }
  try {
    if (validate(request.value)) return { id, valid: true };
  } catch (error) {
    // A schema that recurses into itself without consuming the value ($ref: '#') overflows the stack.
    return { id, unusable: `The value could not be checked: ${error instanceof Error ? error.message : String(error)}` };
  }
  const errors = new Set<string>();
  for (const error of validate.errors ?? []) {
    errors.add(describeSchemaError(error, request.root));
    if (errors.size >= MAX_DESCRIBED) break;
  }
  return { id, valid: false, errors: [...errors] };
}

parentPort!.on('message', (request: CheckRequest) => parentPort!.postMessage(check(request)));
// Loaded (ajv and the schema code imported): the owner starts a check's clock from here, not from the spawn.
parentPort!.postMessage({ ready: true });
