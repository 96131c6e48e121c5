// The published schema and the hand-written Bundle type must not drift apart, and the schema must
// close every object it describes.
import fs from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { BUNDLE_SCHEMA, CHANNEL_PROVIDERS, type Bundle } from '../../lib/bundle/index.ts';

type Schema = Record<string, unknown>;
const fileSchema = JSON.parse(fs.readFileSync(new URL('../../schema/bundle.schema.json', import.meta.url), 'utf8')) as Schema;

// A compile error here means a Bundle property is missing from this list or is not in Bundle.
const BUNDLE_PROPERTIES: Record<keyof Bundle, true> = {
  name: true,
  model: true,
  instructions: true,
  skills: true,
  customTools: true,
  workspaceFiles: true,
  mcps: true,
  toolPolicies: true,
  safeTools: true,
  triggers: true,
  strictSecrets: true,
  secretGrants: true,
  jsonReply: true,
  command: true,
  agents: true,
  userChannels: true,
  workflows: true,
};

/** Objects whose content is free by design: JSON Schemas and reply defaults written by the user. */
const FREE_OBJECTS = new Set([
  '/$defs/customTool/properties/parameters',
  '/$defs/jsonReply/properties/schema',
  '/$defs/jsonReply/properties/defaults',
]);

function* subschemas(node: unknown, path = ''): Generator<[string, Schema]> {
  if (node === null || typeof node !== 'object') return;
  if (!Array.isArray(node)) yield [path, node as Schema];
  for (const [key, child] of Object.entries(node)) {
    if (key === 'enum' || key === 'const' || key === 'default' || key === 'required') continue;
    yield* subschemas(child, `${path}/${key}`);
  }
}

describe('bundle schema', () => {
  it('is what the service serves and validates with', () => {
    expect(BUNDLE_SCHEMA).toEqual(fileSchema);
    expect(Object.isFrozen(BUNDLE_SCHEMA)).toBe(true);
  });

  it('compiles in strict mode', () => {
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, discriminator: true, validateFormats: false });
    expect(() => ajv.compile(fileSchema)).not.toThrow();
  });

  it('describes exactly the properties of the Bundle type, plus $schema', () => {
    expect(Object.keys(fileSchema.properties as Schema).sort()).toEqual(['$schema', ...Object.keys(BUNDLE_PROPERTIES)].sort());
  });

  it('closes every object it describes', () => {
    for (const [path, schema] of subschemas(fileSchema)) {
      // A discriminated union is closed by each of its branches, which are checked on their own.
      if (schema.type !== 'object' || FREE_OBJECTS.has(path) || schema.oneOf !== undefined) continue;
      if (schema.properties !== undefined) expect([path, schema.additionalProperties]).toEqual([path, false]);
      else expect([path, typeof schema.additionalProperties]).toEqual([path, 'object']);
    }
  });

  it('lists the channel providers the code knows', () => {
    const userChannel = (fileSchema.$defs as Record<string, Schema>).userChannel as Schema;
    expect((userChannel.properties as Record<string, Schema>).provider?.enum).toEqual([...CHANNEL_PROVIDERS]);
  });
});
