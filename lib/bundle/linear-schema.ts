// Tenants' JSON Schemas (customTools[].parameters, jsonReply.schema) check what models send, on
// workers every user shares, so checking must take time in proportion to what is checked. Two of
// ajv's defaults do not: its `pattern` and `patternProperties` use JavaScript's backtracking RegExp
// (`"^(a+)+$"` against forty a's and a b never ends), and its `uniqueItems` compares every pair of
// non-scalar items. Here patterns run on RE2 (re2js: linear in the input, no lookaround and no
// backreferences, which deploy refuses with the pattern's place), and uniqueItems keys each item by
// its canonical JSON in a map.
import type { Ajv, SchemaValidateFunction } from 'ajv';
import type { RegExpEngine } from 'ajv/dist/types/index.js';
import { RE2JS } from 're2js';

/** ajv's `code.regExp`: a JSON Schema pattern (ECMA-262 syntax, Unicode) compiled by RE2. */
export const linearRegExp: RegExpEngine = Object.assign((pattern: string) => RE2JS.compile(RE2JS.translateRegExp(pattern)), {
  code: 'linearRegExp',
});

/** ajv with uniqueItems replaced by the linear check below; call before compiling. */
export function withLinearKeywords<T extends Ajv>(ajv: T): T {
  ajv.removeKeyword('uniqueItems');
  const validate: SchemaValidateFunction = (unique: boolean, data: unknown[]): boolean => {
    validate.errors = undefined;
    if (!unique) return true;
    const seen = new Map<string, number>();
    for (let j = 0; j < data.length; j++) {
      const key = canonicalJson(data[j]);
      const i = seen.get(key);
      if (i !== undefined) {
        validate.errors = [
          { keyword: 'uniqueItems', message: `must NOT have duplicate items (items ## ${j} and ${i} are identical)`, params: { i, j } },
        ];
        return false;
      }
      seen.set(key, j);
    }
    return true;
  };
  ajv.addKeyword({ keyword: 'uniqueItems', type: 'array', schemaType: 'boolean', errors: true, validate });
  return ajv;
}

/** JSON with object members sorted, so two values JSON Schema calls equal give the same text. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
