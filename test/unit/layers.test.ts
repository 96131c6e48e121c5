// The layering (docs/development.md, "The layers") is enforced by the lint step of `npm test`: an import that runs
// against it fails. These cases lint one probe file at a time with the project's own ESLint config,
// so a rule that stopped catching a backward import would fail here, not silently pass.
import { ESLint } from 'eslint';
import { describe, expect, test } from 'vitest';

const eslint = new ESLint({
  ruleFilter: ({ ruleId }) => ruleId === '@typescript-eslint/no-restricted-imports',
  // The probes are not files of the TypeScript project; the import rule needs no type information.
  overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: null } } },
});

async function refusals(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.map((message) => `${message.line}: ${message.message}`);
}

describe('an import against the layers fails the lint', () => {
  test.each([
    ['lib/probe.ts', "import { createPool } from '../store/db.ts';", 'lib/ may import only from lib, schema, contract/'],
    [
      'lib/bundle/probe.ts',
      "import { sessionWorkflow } from '../../workflows/session.ts';",
      'lib/ may import only from lib, schema, contract/',
    ],
    ['store/probe.ts', "import { createApp } from '../api/app.ts';", 'store/ may import only from store, contract, lib, core, schema/'],
    ['store/probe.ts', "import { ApplicationFailure } from '@temporalio/common';", 'Not in store/'],
    [
      'workflows/probe.ts',
      "import { createActivities } from '../activities/index.ts';",
      'workflows/ may import only types from activities/',
    ],
    ['workflows/probe.ts', "import { Client } from '@temporalio/client';", 'Not in workflows/'],
    ['workflows/probe.ts', "import fs from 'node:fs';", 'Not in workflows/'],
    [
      'workflows/probe.ts',
      "import { getSession } from '../store/sessions.ts';",
      'workflows/ may import only from workflows, contract, lib, core/',
    ],
    [
      'clients/probe.ts',
      "import { getSession } from '../store/sessions.ts';",
      'clients/ may import only from clients, contract, lib, core, workflows/',
    ],
    ['api/probe.ts', "import { createActivities } from '../activities/index.ts';", 'api/ may import only types from activities/'],
    // A workflow is reached through clients/, the one door: not even its types come from workflows/.
    ['api/probe.ts', "import type { SendInput } from '../workflows/session.ts';", 'api/ may import only from'],
    ['activities/probe.ts', "import { createApp } from '../api/app.ts';", 'activities/ may import only from'],
    // What an activity shares with a workflow is in core/; a type from workflows/ closes a cycle.
    ['activities/turn/probe.ts', "import type { SendInput } from '../../workflows/session.ts';", 'activities/ may import only from'],
    // Workflow code reaches lib/ only through the modules known to be deterministic and free of I/O.
    ['workflows/probe.ts', "import { readFileBody } from '../lib/storage.ts';", 'only the modules safe in workflow code'],
    ['workflows/probe.ts', "import { outboundFetch } from '../lib/outbound.ts';", 'only the modules safe in workflow code'],
    ['workflows/probe.ts', "import { connectTemporal } from '../lib/temporal.ts';", 'only the modules safe in workflow code'],
    ['lib/workflow-safe/failures.ts', "import { outboundFetch } from '../outbound.ts';", 'imports only other workflow-safe modules'],
    ['lib/workflow-safe/turn-settings.ts', "import fs from 'node:fs';", 'Not in a workflow-safe lib/ module'],
    ['core/probe.ts', "import { condition } from '@temporalio/workflow';", 'Not in core/'],
    ['core/probe.ts', "import { getSession } from '../store/sessions.ts';", 'core/ may import only from core, contract, lib/'],
    ['core/probe.ts', "import { readFileBody } from '../lib/storage.ts';", 'only the modules safe in workflow code'],
    ['contract/probe.ts', "import { loadConfig } from '../lib/config.ts';", 'contract/ may import only from contract, schema/'],
    ['contract/probe.ts', "import crypto from 'node:crypto';", 'Not in contract/'],
    ['contract/probe.ts', "import pg from 'pg';", 'Not in contract/'],
  ])('%s: %s', async (filePath, code, expected) => {
    const found = await refusals(filePath, `${code}\n`);
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(expected);
  });
});

test('imports the layers allow pass', async () => {
  expect(
    await refusals(
      'lib/bundle/probe.ts',
      "import { ValidationError } from '../workflow-safe/errors.ts';\nimport schema from '../../schema/bundle.schema.json';\n",
    ),
  ).toEqual([]);
  expect(
    await refusals(
      'workflows/probe.ts',
      "import type { Activities } from '../activities/index.ts';\nimport { FAILURE } from '../lib/workflow-safe/failures.ts';\n",
    ),
  ).toEqual([]);
  expect(
    await refusals(
      'api/probe.ts',
      "import type { RecordedApproval } from '../activities/approvals.ts';\nimport { getSession } from '../store/sessions.ts';\n",
    ),
  ).toEqual([]);
  expect(
    await refusals(
      'activities/turn/probe.ts',
      "import { STEP_PLACE_FREED, type ToolCall } from '../../core/turn-types.ts';\nimport { sessionClient } from '../../clients/session.ts';\n",
    ),
  ).toEqual([]);
  expect(
    await refusals(
      'core/probe.ts',
      "import type { TokenUsage } from '../contract/events.ts';\nimport { FAILURE } from '../lib/workflow-safe/failures.ts';\nimport type { TurnSettings } from '../lib/workflow-safe/turn-settings.ts';\n",
    ),
  ).toEqual([]);
  expect(await refusals('workers/probe.ts', "import { createActivities } from '../activities/index.ts';\n")).toEqual([]);
});
