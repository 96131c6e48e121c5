// The lint's dashboard layer (eslint.config.js): the page's code talks to the service only through
// @agent-service/sdk; the service's folders, server packages and Node modules are refused. Each
// probe is linted with the project's own config, as a .tsx file of dashboard/src.
import { ESLint } from 'eslint';
import { expect, test } from 'vitest';

const eslint = new ESLint({
  ruleFilter: ({ ruleId }) => ruleId === '@typescript-eslint/no-restricted-imports',
  overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: null } } },
});

async function refusals(code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\n`, { filePath: 'dashboard/src/pages/probe.tsx' });
  return result!.messages.map((message) => message.message);
}

test.each([
  ["import { createApp } from '../../../api/app.ts';", 'dashboard/ may import only from dashboard, contract/'],
  ["import { getSession } from '../../../store/sessions.ts';", 'dashboard/ may import only from dashboard, contract/'],
  ["import { loadConfig } from '../../../lib/config.ts';", 'dashboard/ may import only from dashboard, contract/'],
  ["import { Client } from '../../../sdk/src/index.ts';", 'dashboard/ may import only from dashboard, contract/'],
  ["import fs from 'node:fs';", 'Not in dashboard/'],
  ["import express from 'express';", 'Not in dashboard/'],
])('refused: %s', async (code, expected) => {
  const found = await refusals(code);
  expect(found).toHaveLength(1);
  expect(found[0]).toContain(expected);
});

test('the SDK package, UI packages, pure contract modules and its own modules pass', async () => {
  expect(
    await refusals(
      [
        "import { Client } from '@agent-service/sdk';",
        "import { render } from 'preact';",
        "import { TERMINAL_TURN_EVENTS } from '../../../contract/events.ts';",
        "import { useClient } from '../auth/client-context.ts';",
      ].join('\n'),
    ),
  ).toEqual([]);
});
