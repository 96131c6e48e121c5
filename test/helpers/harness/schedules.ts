// Cron triggers are Temporal Schedules, which outlive the test that made them: one left behind keeps
// firing at a task queue nobody polls once the test's worker is gone. Tests that make schedules delete
// them when they end, even after a failure.
import type { Client } from '@temporalio/client';

/** Deletes each schedule; one already gone (or never created) is no error. */
export async function deleteSchedules(client: Client, ids: Iterable<string>): Promise<void> {
  for (const id of ids) {
    await client.schedule
      .getHandle(id)
      .delete()
      .catch(() => undefined);
  }
}
