// What a workflow's failure means to a client, in one table: the workflows reject or fail with an
// `ApplicationFailure` whose type is one of lib/workflow-safe/failures.ts, and the API answers the problem named
// here. A caller may word the detail for its own call (a send's busy session is not a revert's).
import { FAILURE, failureOf, type FailureType } from '../lib/workflow-safe/failures.ts';
import {
  BudgetSpentError,
  ConflictError,
  GoneError,
  ModelCallFailedError,
  NotFoundError,
  ValidationError,
  type ServiceError,
} from '../lib/workflow-safe/errors.ts';

const PROBLEMS: Partial<Record<FailureType, (detail: string) => ServiceError>> = {
  [FAILURE.sessionBusy]: (detail) => new ConflictError(detail),
  [FAILURE.messageNotFound]: (detail) => new NotFoundError(detail),
  [FAILURE.conversationReverted]: (detail) => new ConflictError(detail),
  [FAILURE.notAnAssistantMessage]: (detail) => new ValidationError(detail, [{ path: '/assistantMessageId', message: detail }]),
  [FAILURE.approvalAnswered]: (detail) => new ConflictError(detail),
  [FAILURE.approvalExpired]: (detail) => new GoneError(detail),
  [FAILURE.toolCallNotAwaited]: (detail) => new ConflictError(detail),
  [FAILURE.approvalInvalidChoice]: (detail) => new ValidationError(detail, [{ path: '/choice', message: detail }]),
  // A model call an Update waited for (POST /session/<id>/compact).
  [FAILURE.budgetSpent]: (detail) => new BudgetSpentError(detail),
  [FAILURE.modelRejected]: (detail) => new ModelCallFailedError(detail),
  [FAILURE.modelConfiguration]: (detail) => new ModelCallFailedError(detail),
  [FAILURE.modelTransient]: (detail) => new ModelCallFailedError(detail),
};

/**
 * The problem for an error whose cause chain holds one of the failures above, or undefined (the
 * caller then handles it as it would any other error). `details` replaces the workflow's own words.
 */
export function failureProblem(error: unknown, details: Partial<Record<FailureType, string>> = {}): ServiceError | undefined {
  const failure = failureOf(error);
  const problem = failure && PROBLEMS[failure.type];
  return problem?.(details[failure!.type] ?? failure!.message);
}
