// ajv errors to what a person fixing a bundle needs: one error per mistake, at the JSON pointer of
// the property concerned (a missing or unknown property is named in the path itself), in words.
// ajv reports combinator internals too (every branch of a oneOf, the "if" that chose "else", a type
// error followed by errors of keywords that could not apply); those are folded away here.
import type { ErrorObject } from 'ajv';
import type { FieldError } from '../workflow-safe/errors.ts';
import { childPointer, selfAndAncestors } from './pointer.ts';

export interface SchemaIssue extends FieldError {
  /** The ajv keyword behind the error ('parse' for problems found while parsing). */
  keyword: string;
}

type Schema = Record<string, unknown>;

/** `errors` must come from a schema with its references inlined (see inline-refs.ts). */
export function formatSchemaErrors(errors: readonly ErrorObject[]): SchemaIssue[] {
  // Indexed by instance path, so folding costs the depth of each path rather than the error count.
  const oneOfsAt = new Map<string, ErrorObject[]>();
  const typeErrorAt = new Map<string, ErrorObject>();
  for (const error of errors) {
    if (error.keyword === 'oneOf') oneOfsAt.set(error.instancePath, [...(oneOfsAt.get(error.instancePath) ?? []), error]);
  }
  /** An error of one branch of a failed oneOf at or above its value: the oneOf's own error says it. */
  const inFailedBranch = (error: ErrorObject) =>
    selfAndAncestors(error.instancePath).some((path) =>
      oneOfsAt.get(path)?.some((oneOf) => error.schemaPath.startsWith(`${oneOf.schemaPath}/`)),
    );
  for (const error of errors) {
    // A branch's type error (a string where the other branch wanted an object) is no verdict on the value.
    if (error.keyword === 'type' && !typeErrorAt.has(error.instancePath) && !inFailedBranch(error))
      typeErrorAt.set(error.instancePath, error);
  }
  const kept = errors.filter((error) => {
    if (error.keyword === 'if' || error.keyword === 'propertyNames') return false;
    // The branches of a failed oneOf are summed up by the oneOf error itself.
    if (inFailedBranch(error)) return false;
    for (const path of selfAndAncestors(error.instancePath)) {
      // Once a value has the wrong type, nothing else said about it or below it helps.
      const typeError = typeErrorAt.get(path);
      if (typeError !== undefined && typeError !== error) return false;
    }
    return true;
  });

  const seen = new Set<string>();
  const issues: SchemaIssue[] = [];
  for (const error of kept) {
    const issue = describe(error);
    const key = `${issue.path}\u0000${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
  }
  return issues;
}

function describe(error: ErrorObject): SchemaIssue {
  const params = error.params as Record<string, unknown>;
  const at = (path: string, message: string): SchemaIssue => ({ path, message, keyword: error.keyword });
  // Errors of propertyNames concern a key, not its value: point at the key.
  if (error.propertyName !== undefined) {
    return at(childPointer(error.instancePath, error.propertyName), `is not an allowed name: ${message(error, params)}`);
  }
  switch (error.keyword) {
    case 'required':
      return at(childPointer(error.instancePath, String(params.missingProperty)), 'is required');
    case 'additionalProperties': {
      const known = Object.keys((error.parentSchema?.properties as Schema | undefined) ?? {});
      const hint = known.length > 0 ? `; known properties here: ${known.join(', ')}` : '';
      return at(childPointer(error.instancePath, String(params.additionalProperty)), `is not a known property${hint}`);
    }
    case 'discriminator': {
      const tag = String(params.tag);
      const allowed = discriminatorValues(error.parentSchema, tag);
      const missing = params.tagValue === undefined;
      return at(childPointer(error.instancePath, tag), `${missing ? 'is required: ' : 'must be '}one of ${quoteList(allowed)}`);
    }
    case 'uniqueItems': {
      const [first, duplicate] = [Number(params.i), Number(params.j)].sort((a, b) => a - b);
      return at(childPointer(error.instancePath, String(duplicate)), `duplicates item ${first}`);
    }
    default:
      return at(error.instancePath, message(error, params));
  }
}

function message(error: ErrorObject, params: Record<string, unknown>): string {
  switch (error.keyword) {
    case 'type':
      return `must be ${typeList(params.type)}`;
    case 'enum':
      return `must be one of ${quoteList(params.allowedValues)}`;
    case 'const':
      return `must be ${JSON.stringify(params.allowedValue)}`;
    case 'pattern':
      return `must match the pattern ${String(params.pattern)}`;
    case 'format':
      return `must be a valid ${params.format === 'uri' ? 'URI' : String(params.format)}`;
    case 'minLength':
      return params.limit === 1 ? 'must not be empty' : `must be at least ${String(params.limit)} characters long`;
    case 'maxLength':
      return `must be at most ${String(params.limit)} characters long`;
    case 'minItems':
      return `must have at least ${plural(params.limit, 'item')}`;
    case 'maxItems':
      return `must have at most ${plural(params.limit, 'item')}`;
    case 'minProperties':
      return `must have at least ${plural(params.limit, 'entry', 'entries')}`;
    case 'maxProperties':
      return `must have at most ${plural(params.limit, 'entry', 'entries')}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `must be ${String(params.comparison)} ${String(params.limit)}`;
    case 'oneOf':
      return oneOfMessage(error.schema);
    case 'false schema':
      return 'is not allowed here';
    default:
      return error.message ?? 'is not valid';
  }
}

/** A oneOf whose branches each only require one property reads as "exactly one of these". */
function oneOfMessage(branches: unknown): string {
  const names = Array.isArray(branches)
    ? branches.map((branch: unknown) => {
        const required = (branch as Schema | undefined)?.required;
        return Array.isArray(required) && required.length === 1 ? String(required[0]) : undefined;
      })
    : [];
  if (names.length > 0 && names.every((name) => name !== undefined)) {
    return `must have exactly one of ${names.map((name) => JSON.stringify(name)).join(' or ')}`;
  }
  // Otherwise each branch in a word where it has one: "always", "ask", "never" or an object with "ask".
  const forms = Array.isArray(branches) ? branches.map((branch: unknown) => branchForm(branch as Schema)) : [];
  if (forms.length > 0 && forms.every((form) => form !== undefined)) return `must be ${forms.join(' or ')}`;
  return 'must match exactly one of the allowed forms';
}

/** One oneOf branch as a person reads it, if it is a simple one. */
function branchForm(branch: Schema | undefined): string | undefined {
  if (Array.isArray(branch?.enum)) return quoteList(branch.enum);
  if (branch?.const !== undefined) return JSON.stringify(branch.const);
  const required = branch?.required;
  if (branch?.type === 'object' && Array.isArray(required) && required.length > 0)
    return `an object with ${required.map((name) => JSON.stringify(name)).join(' and ')}`;
  if (typeof branch?.type === 'string') return typeList(branch.type);
  return undefined;
}

function discriminatorValues(parentSchema: unknown, tag: string): string[] {
  const branches = (parentSchema as Schema | undefined)?.oneOf;
  if (!Array.isArray(branches)) return [];
  return branches.flatMap((branch: unknown) => {
    const property = ((branch as Schema | undefined)?.properties as Schema | undefined)?.[tag] as Schema | undefined;
    if (property?.const !== undefined) return [String(property.const)];
    return Array.isArray(property?.enum) ? property.enum.map(String) : [];
  });
}

function typeList(type: unknown): string {
  const names = (Array.isArray(type) ? type : [type]).map(
    (name) => `${name === 'integer' || name === 'object' || name === 'array' ? 'an' : 'a'} ${String(name)}`,
  );
  if (names.length === 1) return names[0] ?? 'valid';
  return `${names.slice(0, -1).join(', ')} or ${names[names.length - 1] ?? ''}`;
}

function quoteList(values: unknown): string {
  return (Array.isArray(values) ? values : []).map((value) => JSON.stringify(value)).join(', ');
}

function plural(count: unknown, one: string, many = `${one}s`): string {
  return `${String(count)} ${count === 1 ? one : many}`;
}
