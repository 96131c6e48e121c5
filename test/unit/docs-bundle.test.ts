// The bundles the docs ask readers to deploy stay valid: the text after each page's marker is run
// through the same validator as POST /deploy (the secrets it grants exist, as the page has the reader
// store them). The complete bundle of docs/bundle.md also leaves out no field of the schema, so the page
// that documents every field shows every field.
import fs from 'node:fs';
import { expect, test } from 'vitest';
import { validateBundle } from '../../lib/bundle/index.ts';
import { BUNDLE_SCHEMA } from '../../contract/bundle-schema.ts';

/** The ```jsonc block right after `<!-- marker -->` in a page of docs/. */
function markedBundle(page: string, marker: string): string {
  const text = fs.readFileSync(new URL(`../../docs/${page}`, import.meta.url), 'utf8');
  const match = new RegExp(`<!-- ${marker} -->\\s*\`\`\`jsonc\\n([\\s\\S]*?)\\n\`\`\``).exec(text);
  expect(match, `docs/${page} marks its bundle with <!-- ${marker} -->`).not.toBeNull();
  return match![1]!;
}

test("the tutorial's bundle deploys with the two secrets the tutorial stores, and fires on a cron schedule", () => {
  const result = validateBundle(markedBundle('tutorial.md', 'tutorial-bundle'), {
    existingSecretKeys: new Set(['OPENROUTER_API_KEY', 'SLACK_BOT_TOKEN']),
  });
  expect(result).toMatchObject({
    ok: true,
    bundle: { name: 'planner', triggers: [{ kind: 'cron' }], userChannels: [{ provider: 'slack' }] },
  });
});

test('the complete bundle of docs/bundle.md deploys and uses every field of the schema', () => {
  const result = validateBundle(markedBundle('bundle.md', 'complete-bundle'), {
    existingSecretKeys: new Set(['HELPDESK_TOKEN', 'SLACK_BOT_TOKEN']),
  });
  expect(result).toMatchObject({ ok: true });
  const used = Object.keys((result as { bundle: object }).bundle);
  const fields = Object.keys((BUNDLE_SCHEMA as { properties: object }).properties).filter((field) => field !== '$schema');
  expect(used.sort()).toEqual(fields.sort());
});
