// What one user may hold, whichever of its keys asks (docs/isolation.md). Each check throws
// its limit's own problem type, naming the setting that raises it and what frees a place. Counts are
// read just before the write they guard: two requests at the very same moment may both pass, so a
// limit can be passed by as many requests as arrive at once, never by more.
import { ApprovalLimitError, KeyLimitError, ScheduleLimitError, StorageLimitError } from '../lib/workflow-safe/errors.ts';

export function refusePastKeyLimit(held: number, limit: number): void {
  if (held >= limit) {
    throw new KeyLimitError(
      `Your user holds ${held} API keys, the most it may (KEYS_PER_USER is ${limit}); delete one (DELETE /key/<id>) first`,
    );
  }
}

export function refusePastScheduleLimit(others: number, added: number, limit: number): void {
  if (added > 0 && others + added > limit) {
    throw new ScheduleLimitError(
      `This bundle's ${added} cron trigger${added === 1 ? '' : 's'} and the ${others} of your other agents would pass ` +
        `SCHEDULES_PER_USER (${limit}); remove cron triggers or delete an agent first`,
    );
  }
}

export function refusePastApprovalLimit(open: number, limit: number): void {
  if (open >= limit) {
    throw new ApprovalLimitError(
      `Your user has ${open} unanswered approvals, the most it may (OPEN_APPROVALS_PER_USER is ${limit}); answer some or let them expire first`,
    );
  }
}

export function refusePastStorageLimit(stored: number, adding: number, limit: number): void {
  if (stored + adding > limit) {
    throw new StorageLimitError(
      `Your sessions' uploads hold ${stored} bytes; ${adding > 0 ? `${adding} more` : 'more'} would pass STORED_BYTES_PER_USER ` +
        `(${limit}); delete sessions you no longer need first`,
    );
  }
}
