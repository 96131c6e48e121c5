// A bundle carries JSON Schemas of its own (jsonReply.schema, customTools[].parameters). They must
// compile, or the first model reply or tool call would fail long after the deploy said yes.
//
// Dialect: draft-07, what tool-calling schemas are written in, unless the schema's $schema names
// draft 2020-12. The meta-schema check runs on one long-lived instance per dialect (it registers
// nothing); the compile itself runs on a fresh instance without meta-schemas (cheap to make),
// because compiling registers the schema's $id values, and one user's ids must neither collide with
// nor linger for the next user's.
import { Ajv, type ErrorObject, type Options } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { RE2JSException } from 're2js';
import { linearRegExp, withLinearKeywords } from './linear-schema.ts';

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;
const DRAFT_2020 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;

// Unknown keywords are annotations to a model provider, so user schemas are not held to strict mode.
const lenient: Options = { strict: false, logger: false, validateFormats: false };
// Compiled as workers will compile it: patterns by RE2 (lib/bundle/linear-schema.ts), so a pattern
// RE2 cannot run (lookaround, backreferences) is refused here rather than at the first tool call.
const throwaway: Options = { ...lenient, meta: false, validateSchema: false, addUsedSchema: false, code: { regExp: linearRegExp } };
/** The long-lived meta-schema checkers, made at the first check: each compiles its meta-schemas when made. */
let metaCheckers: { draft07: Ajv; draft2020: Ajv2020 } | undefined;

/** Why `schema` is not a usable JSON Schema, or undefined when it compiles. */
export function jsonSchemaProblem(schema: Record<string, unknown>): string | undefined {
  // The dialect is decided here, so $schema is left out of what ajv sees (it knows only one spelling).
  const { $schema: declared, ...body } = schema;
  let dialect: 'draft07' | 'draft2020';
  if (declared === undefined || (typeof declared === 'string' && DRAFT_07.test(declared))) dialect = 'draft07';
  else if (typeof declared === 'string' && DRAFT_2020.test(declared)) dialect = 'draft2020';
  else return 'is not a supported JSON Schema: $schema must name draft-07 or draft 2020-12, or be left out (draft-07)';

  try {
    metaCheckers ??= { draft07: new Ajv(lenient), draft2020: new Ajv2020(lenient) };
    const checker = metaCheckers[dialect];
    if (!checker.validateSchema(body)) {
      return `is not a valid JSON Schema: ${firstReason(checker.errors)}`;
    }
    withLinearKeywords(dialect === 'draft07' ? new Ajv(throwaway) : new Ajv2020(throwaway)).compile(body);
    return undefined;
  } catch (error) {
    if (error instanceof RE2JSException) {
      return `has a pattern the service cannot run: ${error.message} (patterns run on RE2, in linear time: lookahead, lookbehind and backreferences are not supported)`;
    }
    return `does not compile as a JSON Schema: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** The first meta-schema error is the specific one; those after it are its anyOf echoes. */
function firstReason(errors: ErrorObject[] | null | undefined): string {
  const first = errors?.[0];
  if (!first) return 'rejected by the meta-schema';
  const allowed = (first.params as { allowedValues?: unknown[] }).allowedValues;
  const where = first.instancePath === '' ? 'the schema' : first.instancePath;
  return `${where} ${first.message ?? 'is not valid'}${Array.isArray(allowed) ? ` (${allowed.map(String).join(', ')})` : ''}`;
}
