// The lint's sdk layer (eslint.config.js): sdk/src may import only types from contract/, run only the
// pure contract modules its build bundles, and no package or Node module, so the published SDK
// carries nothing of the server. Each probe is linted with the project's own config; a rule that
// stopped refusing would fail here.
import { ESLint } from 'eslint';
import { expect, test } from 'vitest';

const eslint = new ESLint({
  ruleFilter: ({ ruleId }) => ruleId === '@typescript-eslint/no-restricted-imports',
  overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: null } } },
});

async function refusals(code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\n`, { filePath: 'sdk/src/probe.ts' });
  return result!.messages.map((message) => message.message);
}

test.each([
  ["import { createApp } from '../../api/app.ts';", 'sdk/ may import only from sdk/'],
  ["import { loadConfig } from '../../lib/config.ts';", 'sdk/ may import only from sdk/'],
  ["import { getSession } from '../../store/sessions.ts';", 'sdk/ may import only from sdk/'],
  ["import { OPERATIONS } from '../../contract/operations/index.ts';", 'sdk/ may import only types from contract/'],
  ["import { TERMINAL_TURN_EVENTS } from '../../contract/events.ts';", 'sdk/ may import only types from contract/'],
  ["import fs from 'node:fs';", 'Not in sdk/'],
  ["import { Webhook } from 'standardwebhooks';", 'Not in sdk/'],
])('refused: %s', async (code, expected) => {
  const found = await refusals(code);
  expect(found).toHaveLength(1);
  expect(found[0]).toContain(expected);
});

test('types from contract/, the contract modules the build bundles and the SDK’s own modules pass', async () => {
  expect(
    await refusals(
      [
        "import type { SessionEvent } from '../../contract/events.ts';",
        "import { turnEventFilter } from '../../contract/turn-events.ts';",
        "import { Transport } from './transport.ts';",
      ].join('\n'),
    ),
  ).toEqual([]);
});
