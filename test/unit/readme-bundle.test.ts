// The README's bundle that uses every field stays a valid bundle: the text after its marker is run
// through the same validator as POST /deploy (the secrets it grants exist).
import fs from 'node:fs';
import { expect, test } from 'vitest';
import { validateBundle } from '../../lib/bundle/index.ts';
import { BUNDLE_SCHEMA } from '../../contract/bundle-schema.ts';

test('the complete bundle of the README deploys and uses every field of the schema', () => {
  const readme = fs.readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const match = /<!-- complete-bundle -->\s*```jsonc\n([\s\S]*?)\n```/.exec(readme);
  expect(match, 'the README marks its complete bundle').not.toBeNull();
  const result = validateBundle(match![1]!, { existingSecretKeys: new Set(['HELPDESK_TOKEN', 'SLACK_BOT_TOKEN']) });
  expect(result).toMatchObject({ ok: true });
  const used = Object.keys((result as { bundle: object }).bundle);
  const fields = Object.keys((BUNDLE_SCHEMA as { properties: object }).properties).filter((field) => field !== '$schema');
  expect(used.sort()).toEqual(fields.sort());
});
