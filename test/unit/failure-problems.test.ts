// The failure contract between workflows and the API: a workflow rejects or fails with a typed
// ApplicationFailure, Temporal wraps it (an Update's failure, an activity's, a child's), and the API
// finds the type under the wrapping and answers the problem its table names, never by reading text.
import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import { describe, expect, test } from 'vitest';
import { failureProblem } from '../../api/failure-problems.ts';
import { FAILURE, failureType, nonRetryable } from '../../lib/workflow-safe/failures.ts';

/** What the client sees of a failed Update whose handler ran an activity that failed. */
function wrappedAsTemporalDoes(failure: ApplicationFailure): Error {
  const activity = new ActivityFailure('activity failed', 'revertMessages', '1', RetryState.NON_RETRYABLE_FAILURE, 'worker', failure);
  return new Error('Workflow Update failed', { cause: activity });
}

describe('failure types', () => {
  test('are found under Temporal wrapping, and a non-retryable failure says so', () => {
    const failure = nonRetryable(FAILURE.messageNotFound, 'There is no message "m1" in this session');
    expect(failure.nonRetryable).toBe(true);
    expect(failureType(wrappedAsTemporalDoes(failure))).toBe('MessageNotFound');
  });

  test('a type that is not ours, or text that merely names one, is not taken for one', () => {
    expect(failureType(wrappedAsTemporalDoes(ApplicationFailure.nonRetryable('SessionBusy: a turn is running', 'Error')))).toBeUndefined();
    expect(failureType(new Error('SessionBusy'))).toBeUndefined();
  });
});

describe('the API table', () => {
  test.each([
    [FAILURE.sessionBusy, 409],
    [FAILURE.messageNotFound, 404],
    [FAILURE.notAnAssistantMessage, 400],
    [FAILURE.approvalAnswered, 409],
    [FAILURE.approvalExpired, 410],
    [FAILURE.approvalInvalidChoice, 400],
  ])('%s is answered %i with the workflow’s words', (type, status) => {
    const problem = failureProblem(wrappedAsTemporalDoes(nonRetryable(type, 'in the workflow’s words')));
    expect(problem).toMatchObject({ status, message: 'in the workflow’s words' });
  });

  test('a caller words the detail for its own call; the field of a 400 is named', () => {
    const busy = failureProblem(wrappedAsTemporalDoes(nonRetryable(FAILURE.sessionBusy, 'A turn is running')), {
      [FAILURE.sessionBusy]: 'A turn is running in this session (ifBusy=reject)',
    });
    expect(busy).toMatchObject({ status: 409, message: 'A turn is running in this session (ifBusy=reject)' });
    const choice = failureProblem(nonRetryable(FAILURE.approvalInvalidChoice, 'Choose one of "yes", "no"'));
    expect(choice?.extra()).toEqual({ errors: [{ path: '/choice', message: 'Choose one of "yes", "no"' }] });
  });

  test('failures the API does not answer (a failed turn, a model error) are left to the caller', () => {
    expect(failureProblem(wrappedAsTemporalDoes(nonRetryable(FAILURE.turnFailed, 'boom')))).toBeUndefined();
    expect(failureProblem(new Error('anything'))).toBeUndefined();
  });
});
