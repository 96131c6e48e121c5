// The global setup of the workflow tier (vitest project `workflows`: test/workflows, test/replay): the
// workflow bundle, built once, and the Temporal CLI the tier's time-skipping environments run from. No
// PostgreSQL and no shared Temporal server: a workflow test starts what it needs (workflow-env.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { obtainTemporalCli } from '../../../dev/temporal-cli.ts';
import { writeWorkflowBundle } from './workflow-bundle.ts';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-service-workflow-tests-'));
  const say = (line: string) => process.stderr.write(`[workflow test setup] ${line}\n`);
  try {
    const [cliPath, workflowBundlePath] = await Promise.all([obtainTemporalCli(path.resolve('.data'), say), writeWorkflowBundle(scratch)]);
    project.provide('workflowBundlePath', workflowBundlePath);
    project.provide('temporalCliPath', cliPath);
  } catch (error) {
    fs.rmSync(scratch, { recursive: true, force: true });
    throw error;
  }
  return async () => fs.rmSync(scratch, { recursive: true, force: true });
}
