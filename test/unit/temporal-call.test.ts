// The API's calls to Temporal (api/temporal-call.ts): an Update refused because its workflow's task is
// being retried (a worker died holding it; Temporal answers FAILED_PRECONDITION, "Workflow Task in failed
// state") was not taken, and is tried again until the call's deadline; past it, a 503 the client may
// retry. Anything else refused is the caller's to read. Found by `npm run soak`: such a send was a 500.
import { describe, expect, test } from 'vitest';
import { ServiceError } from '@temporalio/client';
import { callTemporal, isWorkflowGone, isWorkflowNotReady } from '../../api/temporal-call.ts';
import { DependencyUnavailableError } from '../../lib/workflow-safe/errors.ts';
import { createLogger } from '../../lib/logger.ts';
import type { ApiDeps } from '../../api/context.ts';

/** What the client throws for such a refusal: its ServiceError over the gRPC status. */
function grpcRefusal(code: number, details: string): ServiceError {
  const status = Object.assign(new Error(`${code} FAILED_PRECONDITION: Update-with-Start could not be executed.`), { code, details });
  return new ServiceError('Workflow Update failed', { cause: status });
}

const notReady = () => grpcRefusal(9, 'Unable to perform workflow execution update due to Workflow Task in failed state.');

function deps(timeoutMs: number) {
  return {
    temporal: { client: { withDeadline: <T>(_deadline: number, call: () => Promise<T>) => call() } },
    config: { temporalCallTimeoutMs: timeoutMs },
    logger: createLogger({ level: 'silent' }),
  } as unknown as Pick<ApiDeps, 'temporal' | 'config' | 'logger'>;
}

describe('an Update refused while its workflow task is retried', () => {
  test('is recognised by its status and words, and nothing else is', () => {
    expect(isWorkflowNotReady(notReady())).toBe(true);
    expect(isWorkflowNotReady(grpcRefusal(9, 'Unable to perform workflow execution update due to unexpected workflow task failure.'))).toBe(
      true,
    );
    expect(isWorkflowNotReady(grpcRefusal(9, 'Workflow execution already completed'))).toBe(false);
    expect(isWorkflowNotReady(grpcRefusal(14, 'Workflow Task in failed state'))).toBe(false);
  });

  test('is tried again until the workflow takes it', async () => {
    let calls = 0;
    const answer = await callTemporal(deps(5_000), async () => {
      calls += 1;
      if (calls < 3) throw notReady();
      return 'taken';
    });
    expect(answer).toBe('taken');
    expect(calls).toBe(3);
  });

  test('past the deadline, is a 503 the client may send again', async () => {
    let calls = 0;
    const refused = callTemporal(
      deps(600),
      async () => {
        calls += 1;
        throw notReady();
      },
      { unavailable: 'not confirmed; send it again' },
    );
    await expect(refused).rejects.toBeInstanceOf(DependencyUnavailableError);
    await expect(refused).rejects.toThrow('not confirmed; send it again');
    expect(calls).toBeGreaterThan(1);
  });

  test('another refusal is left to the caller, at once', async () => {
    let calls = 0;
    const refusal = grpcRefusal(9, 'Workflow execution already completed');
    await expect(
      callTemporal(deps(5_000), async () => {
        calls += 1;
        throw refusal;
      }),
    ).rejects.toBe(refusal);
    expect(calls).toBe(1);
  });
});

describe('an Update whose workflow has ended', () => {
  test('is recognised, also when the workflow closed while the Update was in flight', () => {
    // The words of the server's AbortedByWorkflowClosingErr, as a Temporal server on PostgreSQL answered a late client tool result.
    const closing = Object.assign(new Error('5 NOT_FOUND: workflow update was aborted by closing workflow'), { code: 5 });
    expect(isWorkflowGone(new ServiceError('Workflow Update failed', { cause: closing }))).toBe(true);
    expect(isWorkflowGone(notReady())).toBe(false);
  });
});
