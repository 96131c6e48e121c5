// Tenants' schemas checked in linear time keep JSON Schema's meaning: uniqueItems compares items as
// JSON values (members in any order, 1 and 1.0 alike), patterns search unanchored as ECMA-262 does.
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { linearRegExp, withLinearKeywords } from '../../lib/bundle/linear-schema.ts';

const compile = (schema: object) =>
  withLinearKeywords(new Ajv({ strict: false, allErrors: true, code: { regExp: linearRegExp } })).compile(schema);

describe('uniqueItems', () => {
  const unique = compile({ type: 'array', uniqueItems: true });

  it('finds equal values whatever their members order', () => {
    expect(
      unique([
        { a: 1, b: [1, { c: 2, d: 3 }] },
        { b: [1, { d: 3, c: 2 }], a: 1 },
      ]),
    ).toBe(false);
    expect(unique.errors?.[0]).toMatchObject({ keyword: 'uniqueItems', params: { i: 0, j: 1 } });
  });

  it('tells apart values that differ in type, order or depth', () => {
    expect(unique([1, '1', [1], { '1': 1 }, null, [1, 2], [2, 1], true, 'true', 1.5])).toBe(true);
    expect(unique([1, 1.0])).toBe(false);
  });

  it('uniqueItems: false allows duplicates; non-arrays are not its business', () => {
    expect(compile({ uniqueItems: false })([1, 1])).toBe(true);
    expect(unique('not an array')).toBe(false);
    expect(compile({ uniqueItems: true })('not an array')).toBe(true);
  });
});

describe('patterns', () => {
  it('search anywhere in the string, with Unicode classes and escapes', () => {
    const validate = compile({ type: 'string', pattern: '\\d{3}-\\p{L}+' });
    expect(validate('order 123-été')).toBe(true);
    expect(validate('12-x')).toBe(false);
  });

  it('a pattern that backtracks for ever in a RegExp ends at once', () => {
    expect(compile({ type: 'string', pattern: '^(a+)+$' })(`${'a'.repeat(5000)}b`)).toBe(false);
  });

  it('patternProperties use the same engine', () => {
    const validate = compile({ type: 'object', patternProperties: { '^(x+)+$': { type: 'number' } } });
    expect(validate({ xxxx: 'not a number' })).toBe(false);
    expect(validate({ [`${'x'.repeat(5000)}y`]: 'anything' })).toBe(true);
  });
});
