// When each cron trigger fires next, as its Temporal Schedule plans it (the schedule's own spec, time
// zone and pause state decide, not a guess from the expression). A schedule is created by a workflow
// after the deploy, and Temporal may be slow or down: then the trigger is shown without times rather
// than the agent failing to load.
import type { ApiDeps } from '../context.ts';
import type { TriggerView } from './urls.ts';

/** How many firings are shown, and how long the API waits for Temporal to say. */
const SHOWN = 5;
const DEADLINE_MS = 2_000;

export async function withNextFirings(deps: ApiDeps, triggers: TriggerView[]): Promise<TriggerView[]> {
  const { client } = deps.temporal;
  return Promise.all(
    triggers.map(async (trigger) => {
      if (!trigger.scheduleId) return trigger;
      try {
        const described = await client.withDeadline(Date.now() + DEADLINE_MS, () =>
          client.schedule.getHandle(trigger.scheduleId!).describe(),
        );
        const times = described.state.paused ? [] : described.info.nextActionTimes.slice(0, SHOWN).map((at) => at.toISOString());
        return { ...trigger, paused: described.state.paused, nextFireTimes: times };
      } catch {
        return trigger;
      }
    }),
  );
}
