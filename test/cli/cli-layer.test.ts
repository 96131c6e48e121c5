// The lint's cli layer (eslint.config.js): cli/src is a client of the service like any other, so it may
// import the SDK package, contract/ and lib/ (the pure pieces its build bundles), never the service's
// own folders. Each probe is linted with the project's own config; a rule that stopped refusing would
// fail here.
import { ESLint } from 'eslint';
import { expect, test } from 'vitest';

const eslint = new ESLint({
  ruleFilter: ({ ruleId }) => ruleId === '@typescript-eslint/no-restricted-imports',
  overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: null } } },
});

async function refusals(code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\n`, { filePath: 'cli/src/commands/probe.ts' });
  return result!.messages.map((message) => message.message);
}

test.each([
  "import { createApp } from '../../../api/app.ts';",
  "import { getSession } from '../../../store/sessions.ts';",
  "import { turnWorkflow } from '../../../workflows/turn.ts';",
  "import { createActivities } from '../../../activities/index.ts';",
  "import { startSession } from '../../../clients/session.ts';",
  "import { Transport } from '../../../sdk/src/transport.ts';",
])('refused: %s', async (code) => {
  const found = await refusals(code);
  expect(found).toHaveLength(1);
  expect(found[0]).toContain('cli/ may import only from cli, contract, lib/');
});

test('the SDK package, the command resolver and the bundle validator pass', async () => {
  expect(
    await refusals(
      [
        "import { Client } from '@agent-service/sdk';",
        "import { resolveCommand } from '../../../contract/commands.ts';",
        "import { validateBundle } from '../../../lib/bundle/index.ts';",
      ].join('\n'),
    ),
  ).toEqual([]);
});
