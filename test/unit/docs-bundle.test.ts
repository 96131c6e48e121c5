// The bundle in docs/bundle.md that uses every field stays a valid bundle: the text after its marker is
// run through the same validator as POST /deploy (the secrets it grants exist), and it leaves out no
// field of the schema, so the page that documents every field shows every field.
import fs from 'node:fs';
import { expect, test } from 'vitest';
import { validateBundle } from '../../lib/bundle/index.ts';
import { BUNDLE_SCHEMA } from '../../contract/bundle-schema.ts';

test('the complete bundle of docs/bundle.md deploys and uses every field of the schema', () => {
  const page = fs.readFileSync(new URL('../../docs/bundle.md', import.meta.url), 'utf8');
  const match = /<!-- complete-bundle -->\s*```jsonc\n([\s\S]*?)\n```/.exec(page);
  expect(match, 'docs/bundle.md marks its complete bundle').not.toBeNull();
  const result = validateBundle(match![1]!, { existingSecretKeys: new Set(['HELPDESK_TOKEN', 'SLACK_BOT_TOKEN']) });
  expect(result).toMatchObject({ ok: true });
  const used = Object.keys((result as { bundle: object }).bundle);
  const fields = Object.keys((BUNDLE_SCHEMA as { properties: object }).properties).filter((field) => field !== '$schema');
  expect(used.sort()).toEqual(fields.sort());
});
