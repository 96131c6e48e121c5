// An answer an earlier version stored without its workflow taking it (the approval answered in
// PostgreSQL, its workflow and turn still waiting, every new answer a 409) is handed to its workflow by
// the API's housekeeping pass once older than the grace time, or taken by the workflow's expiry if that
// comes first (it retried forever before): either way the turn resumes with that answer.
import { expect, vi } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { askInTurn } from '../helpers/harness/ask-in-turn.ts';
import { call } from '../helpers/client/request.ts';
import { createLogger } from '../../lib/logger.ts';
import { reconcileStrandedAnswers, STRANDED_ANSWER_GRACE_MS } from '../../api/approvals/reconcile.ts';
import { approvalWorkflowId } from '../../lib/workflow-safe/workflow-ids.ts';

const test = agentTest();

/** What the earlier version left: the record answered (long enough ago), nothing in the workflow. */
async function strand(
  db: { query: (sql: string, values: unknown[]) => Promise<unknown> },
  approvalId: string,
  agoMs: number,
): Promise<void> {
  await db.query(
    `UPDATE approvals SET status = 'answered', choice = 'ship', note = 'stranded', answered_via = 'link',
            answered_at = now() - make_interval(secs => $2 / 1000.0) WHERE id = $1`,
    [approvalId, agoMs],
  );
}

test('a stored answer its workflow never took is handed to it, and the turn resumes with it', async ({ env }) => {
  const { sessionId, requested } = await askInTurn(env, { input: { question: 'Ship it?', options: ['ship', 'hold'] }, reply: 'Shipped.' });
  const deps = {
    db: env.api.db,
    temporal: { client: env.worker.client },
    logger: createLogger({ level: 'silent' }),
    taskQueue: env.worker.taskQueue,
  };

  // Listed as running (Temporal's list may lag a start by a moment), so the pass below does see it.
  const listed = async () => {
    for await (const execution of env.worker.client.workflow.list({
      query: `WorkflowId = '${approvalWorkflowId(requested.approvalId)}' AND ExecutionStatus = 'Running'`,
    }))
      return execution.workflowId;
    return undefined;
  };
  await vi.waitFor(async () => expect(await listed()).toBe(approvalWorkflowId(requested.approvalId)), { timeout: 10_000, interval: 100 });

  // Answered too recently: it may still be on its way into the workflow, so it is left alone.
  await strand(env.api.db, requested.approvalId, 1_000);
  expect(await reconcileStrandedAnswers(deps)).toBe(0);

  await strand(env.api.db, requested.approvalId, STRANDED_ANSWER_GRACE_MS + 1_000);
  // As a user finds it: listed as answered, so another answer is refused, and the turn waits.
  const again = await call(`${env.api.url}/approval/${requested.approvalId}/answer`, { headers: env.user.auth, json: { choice: 'hold' } });
  expect(again.status).toBe(409);

  expect(await reconcileStrandedAnswers(deps)).toBe(1);
  const outcome = await env.worker.client.workflow.getHandle(approvalWorkflowId(requested.approvalId)).result();
  expect(outcome).toMatchObject({ status: 'answered', choice: 'ship', note: 'stranded' });
  const events = await env.waitForEvents(sessionId, (all) => all.some((event) => event.type === 'turn.completed'));
  const results = events.filter((event) => event.type === 'tool.result');
  expect(results.at(-1)).toMatchObject({ toolCallId: 'call_ask', output: { choice: 'ship', note: 'stranded' } });
  // Taken: a second pass has nothing left to hand over.
  expect(await reconcileStrandedAnswers(deps)).toBe(0);
});

test('a stored answer its workflow never took, found by the expiry first, is the outcome', async ({ env }) => {
  const { sessionId, requested } = await askInTurn(env, {
    input: { question: 'Ship the draft?', options: ['ship', 'hold'], expiresInMs: 2_000 },
    reply: 'Deleted.',
  });
  // Stored long ago, never taken; the expiry comes before any housekeeping pass does.
  await strand(env.api.db, requested.approvalId, STRANDED_ANSWER_GRACE_MS + 1_000);
  const outcome = await env.worker.client.workflow.getHandle(approvalWorkflowId(requested.approvalId)).result();
  expect(outcome).toMatchObject({ status: 'answered', choice: 'ship', note: 'stranded' });
  const events = await env.waitForEvents(sessionId, (all) => all.some((event) => event.type === 'turn.completed'));
  expect(events.filter((event) => event.type === 'tool.result').at(-1)).toMatchObject({ output: { choice: 'ship', note: 'stranded' } });
  expect(events.some((event) => event.type === 'approval.expired')).toBe(false);
  expect((await call(`${env.api.url}/approval/${requested.approvalId}`, { headers: env.user.auth })).body).toMatchObject({
    status: 'answered',
    choice: 'ship',
  });
});
