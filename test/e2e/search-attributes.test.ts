// A worker on a namespace that lacks this service's search attributes stops at start, naming them and
// the command that registers them; `npm run search-attributes` registers them once (again: nothing
// to do), and the worker then starts.
import { randomUUID } from 'node:crypto';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { expect, inject, test } from 'vitest';
import { startWorkerProcess, workersKilledAfterAll } from '../helpers/harness/worker-process.ts';
import { runScriptToExit } from '../helpers/harness/script-run.ts';

const workers = workersKilledAfterAll();

test(
  'a namespace without the search attributes: the worker names them; npm run search-attributes registers them once',
  { timeout: 120_000 },
  async () => {
    const namespace = `bare-${randomUUID().slice(0, 8)}`;
    const connection = await Connection.connect({ address: inject('temporalAddress') });
    try {
      await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
    } finally {
      await connection.close();
    }
    const env = { TEMPORAL_NAMESPACE: namespace, TASK_QUEUE: `bare-${randomUUID()}` };

    const refused = await runScriptToExit('workers/main.ts', env);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain(`Temporal namespace "${namespace}" lacks the search attributes SessionId, AgentId, UserId, Kind`);
    expect(refused.output).toContain('npm run search-attributes');

    const registered = await runScriptToExit('workers/search-attributes-cli.ts', env);
    expect(registered).toMatchObject({ code: 0 });
    expect(registered.output).toContain(`registered SessionId, AgentId, UserId, Kind on namespace "${namespace}"`);
    const again = await runScriptToExit('workers/search-attributes-cli.ts', env);
    expect(again).toMatchObject({ code: 0 });
    expect(again.output).toContain(`namespace "${namespace}" has every search attribute already`);

    workers.push(await startWorkerProcess(env));
  },
);
