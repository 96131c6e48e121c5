// Tenants' schemas are checked in threads with a time budget: a schema whose anyOf branches recurse into
// the same value (exponential work: each level checks the value below it once per branch) is answered
// "too costly" once the budget runs out, the thread is replaced, and the checks after it are served.
import { afterAll, describe, expect, test } from 'vitest';
import { schemaChecks } from '../../activities/tools/schema-checks.ts';
import type { JsonObject } from '../../contract/bundle.ts';
import { FAN_OUT_DEFS, nestedArrays } from '../helpers/schemas/fan-out.ts';

const checks = schemaChecks({ timeoutMs: 1_000, threads: 2 });
afterAll(() => checks.close());

const COLOUR: JsonObject = { type: 'object', properties: { colour: { enum: ['red', 'blue'] } }, required: ['colour'] };
const FAN_OUT: JsonObject = { type: 'object', properties: { tree: { $ref: '#/$defs/node' } }, $defs: FAN_OUT_DEFS };

describe('schemaChecks', () => {
  test('valid and invalid values, in words naming the value', async () => {
    expect(await checks.check(COLOUR, { colour: 'red' }, 'the input')).toEqual({ valid: true });
    expect(await checks.check(COLOUR, { colour: 'green' }, 'the reply')).toEqual({
      valid: false,
      errors: ['/colour must be equal to one of the allowed values ("red", "blue")'],
    });
    expect(await checks.check(COLOUR, {}, 'the reply')).toEqual({
      valid: false,
      errors: ['the reply is missing the required property "colour"'],
    });
  });

  test('an exponential check is answered too costly, and the next checks are served by a new thread', { timeout: 30_000 }, async () => {
    // Depth 40 is about 2^40 branch checks: hours on the event loop.
    const [costly, meanwhile] = await Promise.all([
      checks.check(FAN_OUT, { tree: nestedArrays(40) }, 'the input'),
      checks.check(COLOUR, { colour: 'blue' }, 'the input'),
    ]);
    expect(meanwhile).toEqual({ valid: true });
    // Whichever budget runs out first: the time, or the heap its growing error list takes.
    expect(costly).toEqual({
      valid: false,
      unusable: expect.stringMatching(
        /^Checking it against the schema took (longer than 1000 ms|more than 128 MiB): the schema is too costly/,
      ),
    });
    expect(await checks.check(FAN_OUT, { tree: nestedArrays(3) }, 'the input')).toMatchObject({ valid: false, errors: expect.any(Array) });
    expect(await checks.check(FAN_OUT, { tree: [[1], [2, [3]]] }, 'the input')).toEqual({ valid: true });
  });

  test('a thread that fails after its answer ends alone: the process goes on, and the next check gets a new thread', async () => {
    // The same as a thread ended for its time that reaches its heap limit while ending: an error nobody waits for.
    const failing = schemaChecks({
      timeoutMs: 1_000,
      threads: 1,
      threadCode: { from: import.meta.url, module: '../helpers/threads/fails-after-answering' },
    });
    try {
      expect(await failing.check(COLOUR, {}, 'the input')).toEqual({ valid: true });
      // It fails 10 ms after its answer; on a machine as busy as a full CI run's, 200 ms was once too short
      // for its end to reach the owner (the next check then met the thread ending: "the checking thread stopped").
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(await failing.check(COLOUR, {}, 'the input')).toEqual({ valid: true });
    } finally {
      await failing.close();
    }
  });

  test('a schema that does not compile is said so', async () => {
    expect(await checks.check({ type: 'object', properties: { a: { $ref: '#/$defs/missing' } } }, {}, 'the input')).toMatchObject({
      valid: false,
      unusable: expect.stringContaining('The schema does not compile'),
    });
  });
});
