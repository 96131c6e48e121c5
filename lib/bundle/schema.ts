// schema/bundle.schema.json is the single description of the bundle's shape: the service validates
// with it and publishes it. It is compiled once, at the first check (with its $refs inlined, see
// inline-refs.ts for why): not when this module loads, which every CLI command and process start does,
// most of them to check no bundle (the compile is about a fifth of a second).
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import { BUNDLE_SCHEMA } from '../../contract/bundle-schema.ts';
import { addFormats } from './ajv-formats.ts';
import { inlineLocalRefs } from './inline-refs.ts';
import { formatSchemaErrors, type SchemaIssue } from './schema-errors.ts';

let compiled: ValidateFunction | undefined;

function bundleValidator(): ValidateFunction {
  if (compiled) return compiled;
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
  compiled = ajv.compile(inlineLocalRefs(BUNDLE_SCHEMA));
  return compiled;
}

/** Validates in place: defaults are written into `value`. Returns the problems found, if any. */
export function checkBundleSchema(value: unknown): SchemaIssue[] {
  const validate = bundleValidator();
  return validate(value) ? [] : formatSchemaErrors(validate.errors ?? []);
}
