// The engine end to end: a workflow started through the client runs an activity on a real worker
// against the real dev server and PostgreSQL.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestWorker, type TestWorker } from '../helpers/harness/worker.ts';
import { readMigrations } from '../../store/migrate.ts';
import { SessionIdKey } from '../../lib/workflow-safe/search-attributes.ts';

let worker: TestWorker;
beforeAll(async () => {
  worker = await startTestWorker();
});
afterAll(async () => worker?.stop());

test('a workflow runs an activity that reads PostgreSQL', async () => {
  const result = await worker.client.workflow.execute('systemCheckWorkflow', {
    taskQueue: worker.taskQueue,
    workflowId: `system-check-${randomUUID()}`,
    workflowExecutionTimeout: '30 seconds',
  });
  expect(result).toEqual({
    taskQueue: worker.taskQueue,
    postgresVersion: expect.stringMatching(/^\d+/),
    migrationsApplied: readMigrations().length,
  });
});

test('the service search attributes are registered on the server', async () => {
  const workflowId = `system-check-${randomUUID()}`;
  const sessionId = `ses_${randomUUID()}`;
  await worker.client.workflow.execute('systemCheckWorkflow', {
    taskQueue: worker.taskQueue,
    workflowId,
    typedSearchAttributes: [{ key: SessionIdKey, value: sessionId }],
    staticSummary: 'smoke test',
  });
  const description = await worker.client.workflow.getHandle(workflowId).describe();
  expect(description.typedSearchAttributes.get(SessionIdKey)).toBe(sessionId);
});
