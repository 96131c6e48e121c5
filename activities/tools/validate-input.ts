// Tool inputs are checked against the tool's JSON Schema before anything runs: a model that sends
// a wrong argument gets told what was wrong, as a tool error it can correct, instead of a tool
// running on garbage. The dialect follows lib/bundle/json-schema-check.ts: draft-07 unless the
// schema's $schema names draft 2020-12. Tenants' patterns and uniqueItems are checked in linear time
// (lib/bundle/linear-schema.ts): these checks run on workers every user shares.
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { JsonObject } from '../../contract/bundle.ts';
import { linearRegExp, withLinearKeywords } from '../../lib/bundle/linear-schema.ts';

const DRAFT_2020 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;
// Lenient like the deploy check (unknown keywords are hints to the model); a fresh instance per
// schema, so one user's $id values never meet another's.
const OPTIONS: Options = {
  strict: false,
  logger: false,
  validateFormats: false,
  allErrors: true,
  meta: false,
  validateSchema: false,
  addUsedSchema: false,
  code: { regExp: linearRegExp },
};
const MAX_CACHED = 500;
const MAX_REPORTED = 5;
const cache = new Map<string, ValidateFunction>();

/** What is wrong with `input` for a tool with this schema, or undefined when it is valid. */
export function toolInputProblem(schema: JsonObject, input: unknown): string | undefined {
  let validate: ValidateFunction;
  try {
    validate = compiledSchema(schema);
  } catch (error) {
    return `The tool's input schema does not compile: ${error instanceof Error ? error.message : String(error)}`;
  }
  let valid: boolean;
  try {
    valid = validate(input) as boolean;
  } catch (error) {
    // A schema that recurses into itself without consuming the input ($ref: '#') overflows the stack.
    return `The tool's input schema could not be checked: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (valid) return undefined;
  const reasons = [...new Set((validate.errors ?? []).map((error) => describeSchemaError(error)))].slice(0, MAX_REPORTED);
  return `Invalid input: ${reasons.join('; ') || 'it does not match the input schema'}.`;
}

/** The schema compiled once (cached by its text) in its own dialect; throws when it does not compile. */
export function compiledSchema(schema: JsonObject): ValidateFunction {
  const key = JSON.stringify(schema);
  const hit = cache.get(key);
  if (hit) return hit;
  const { $schema: declared, ...body } = schema;
  const ajv = withLinearKeywords(typeof declared === 'string' && DRAFT_2020.test(declared) ? new Ajv2020(OPTIONS) : new Ajv(OPTIONS));
  const validate = ajv.compile(body);
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
  cache.set(key, validate);
  return validate;
}

/** One schema error in words a model can act on; `root` names the value checked. */
export function describeSchemaError(error: ErrorObject, root = 'the input'): string {
  const where = error.instancePath === '' ? root : error.instancePath;
  const params = error.params as { additionalProperty?: string; missingProperty?: string; allowedValues?: unknown[] };
  if (error.keyword === 'additionalProperties') return `${where} has an unknown property "${params.additionalProperty}"`;
  if (error.keyword === 'required') return `${where} is missing the required property "${params.missingProperty}"`;
  const allowed = Array.isArray(params.allowedValues) ? ` (${params.allowedValues.map((value) => JSON.stringify(value)).join(', ')})` : '';
  return `${where} ${error.message ?? 'is not valid'}${allowed}`;
}
