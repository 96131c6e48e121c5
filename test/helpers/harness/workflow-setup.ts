// The global setup of the workflow tier (vitest project `workflows`: test/workflows, test/replay): the
// workflow bundle (the one kept under .data, made once: workflow-bundle.ts), and the Temporal CLI the tier's
// time-skipping environments run from. No PostgreSQL and no shared Temporal server: a workflow test starts
// what it needs (workflow-env.ts).
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { obtainTemporalCli } from '../../../dev/temporal-cli.ts';
import { testWorkflowBundle } from './workflow-bundle.ts';

export default async function setup(project: TestProject): Promise<void> {
  const say = (line: string) => process.stderr.write(`[workflow test setup] ${line}\n`);
  const [cliPath, workflowBundlePath] = await Promise.all([obtainTemporalCli(path.resolve('.data'), say), testWorkflowBundle()]);
  project.provide('workflowBundlePath', workflowBundlePath);
  project.provide('temporalCliPath', cliPath);
}
