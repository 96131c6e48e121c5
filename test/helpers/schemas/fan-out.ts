// A JSON Schema whose checking costs exponential time, for the tests of tenants' schema checks: each
// level's value is checked once per array branch of the `anyOf`, so a value no branch accepts at the
// bottom of `depth` nested arrays takes about 2^depth checks (hours at depth 40).

import type { JsonObject } from '../../../contract/bundle.ts';

/** `$defs` holding `node`, the recursive schema: put it beside a property `{ $ref: '#/$defs/node' }`. */
export const FAN_OUT_DEFS: JsonObject = {
  node: {
    anyOf: [
      { type: 'array', items: { $ref: '#/$defs/node' } },
      { type: 'array', minItems: 1, items: { $ref: '#/$defs/node' } },
      { type: 'number' },
    ],
  },
};

/** `depth` arrays, one inside the other, around a string no branch accepts. */
export function nestedArrays(depth: number): unknown {
  let tree: unknown = 'leaf';
  for (let level = 0; level < depth; level++) tree = [tree];
  return tree;
}
