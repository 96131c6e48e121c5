// schema/bundle.schema.json is the single description of the bundle's shape: the service validates
// with it and publishes it. It is compiled once, when this module loads (with its $refs inlined,
// see inline-refs.ts for why).
import { Ajv2020 } from 'ajv/dist/2020.js';
import bundleSchema from '../../schema/bundle.schema.json' with { type: 'json' };
import { addFormats } from './ajv-formats.ts';
import { inlineLocalRefs } from './inline-refs.ts';
import { formatSchemaErrors, type SchemaIssue } from './schema-errors.ts';

/** The published JSON Schema of the bundle (draft 2020-12, as OpenAPI 3.1 uses). */
export const BUNDLE_SCHEMA: Readonly<Record<string, unknown>> = deepFreeze(bundleSchema);

const ajv = new Ajv2020({
  allErrors: true,
  useDefaults: true,
  strict: true,
  // Union types are how the schema says "a string or an object" without oneOf's noisy errors.
  allowUnionTypes: true,
  discriminator: true,
  // parentSchema on each error lets messages list the properties or kinds that are allowed.
  verbose: true,
});
addFormats(ajv);
const validate = ajv.compile(inlineLocalRefs(BUNDLE_SCHEMA));

/** Validates in place: defaults are written into `value`. Returns the problems found, if any. */
export function checkBundleSchema(value: unknown): SchemaIssue[] {
  return validate(value) ? [] : formatSchemaErrors(validate.errors ?? []);
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
