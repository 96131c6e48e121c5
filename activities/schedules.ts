// Reconciling an agent's cron triggers with Temporal Schedules: the desired set is the current
// revision's cron triggers (none once the agent is deleted), one schedule each with a deterministic
// id. agent_schedules remembers every schedule that may exist: a row goes in before its schedule is
// created and out after it is deleted, so a reconcile cut short anywhere is finished by the next.
import { Context } from '@temporalio/activity';
import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleOptionsAction,
} from '@temporalio/client';
import type { Db } from '../store/db.ts';
import type { Config } from '../lib/config.ts';
import { agentState, getRevision } from '../store/agents.ts';
import { forgetSchedule, recordSchedule, scheduleIdsOf } from '../store/agent-schedules.ts';
import { parseCron } from '../lib/cron.ts';
import { type TriggerRunInput } from '../lib/workflow-safe/triggers.ts';
import { scheduleId, scheduledFiringWorkflowId } from '../lib/workflow-safe/workflow-ids.ts';
import { searchAttributes } from '../lib/workflow-safe/search-attributes.ts';
import { readableMetadata } from '../lib/workflow-safe/readable-metadata.ts';

interface DesiredSchedule {
  id: string;
  expression: string;
  timezone: string;
  note: string;
  input: TriggerRunInput;
}

async function desiredSchedules(db: Db, config: Config, agentId: string): Promise<DesiredSchedule[]> {
  const agent = await agentState(db, agentId);
  if (!agent || agent.deleted) return [];
  const revision = await getRevision(db, agentId, agent.currentRevision);
  if (!revision) return [];
  const desired: DesiredSchedule[] = [];
  revision.bundle.triggers.forEach((trigger, index) => {
    if (trigger.kind !== 'cron') return;
    const parsed = parseCron(trigger.expression);
    if (!parsed.ok) return;
    const timezone = trigger.timezone ?? 'UTC';
    desired.push({
      id: scheduleId(agentId, index),
      expression: parsed.canonical,
      timezone,
      note: `Cron trigger ${index} of agent "${agent.name}" (revision ${revision.revision}): ${trigger.expression} ${timezone}`,
      input: {
        userId: agent.userId,
        agentId,
        revision: revision.revision,
        trigger: { kind: 'cron', index, expression: trigger.expression, timezone },
        payload: trigger.message ?? null,
        ...(trigger.workflow ? { workflow: trigger.workflow } : {}),
        settings: config.turns,
      },
    });
  });
  return desired;
}

function action(config: Config, schedule: DesiredSchedule): ScheduleOptionsAction {
  return {
    type: 'startWorkflow',
    workflowType: 'triggerRunWorkflow',
    workflowId: scheduledFiringWorkflowId(schedule.id),
    taskQueue: config.taskQueue,
    args: [schedule.input],
    typedSearchAttributes: searchAttributes('trigger', { agentId: schedule.input.agentId, userId: schedule.input.userId }),
    ...readableMetadata({ summary: schedule.note }),
  };
}

export function scheduleActivities(deps: { db: Db; config: Config }) {
  const { db, config } = deps;
  const policies = {
    // Each firing opens a session of its own, so firings never get in each other's way.
    overlap: ScheduleOverlapPolicy.ALLOW_ALL,
    // After an outage, firings missed by longer than this are skipped rather than run late in a burst.
    catchupWindow: config.schedules.catchupWindowMs,
  };

  return {
    /** Makes the agent's schedules match its current revision; safe to run any number of times. */
    async reconcileSchedules(input: { agentId: string }): Promise<{ active: string[]; removed: string[] }> {
      const client: Client = Context.current().client;
      const desired = await desiredSchedules(db, config, input.agentId);
      const existing = await scheduleIdsOf(db, input.agentId);
      for (const schedule of desired) {
        await recordSchedule(db, input.agentId, schedule.id);
        const spec = { cronExpressions: [schedule.expression], timezone: schedule.timezone };
        try {
          await client.schedule.create({
            scheduleId: schedule.id,
            spec,
            action: action(config, schedule),
            policies,
            typedSearchAttributes: searchAttributes('schedule', { agentId: schedule.input.agentId, userId: schedule.input.userId }),
            state: { note: schedule.note },
          });
        } catch (error) {
          if (!(error instanceof ScheduleAlreadyRunning)) throw error;
          // Updated in place: an operator's pause in the Web UI is kept.
          await client.schedule.getHandle(schedule.id).update((previous) => ({
            ...previous,
            spec,
            action: action(config, schedule),
            policies,
            state: { ...previous.state, note: schedule.note },
          }));
        }
      }
      const wanted = new Set(desired.map((schedule) => schedule.id));
      const removed: string[] = [];
      for (const id of existing) {
        if (wanted.has(id)) continue;
        try {
          await client.schedule.getHandle(id).delete();
        } catch (error) {
          if (!(error instanceof ScheduleNotFoundError)) throw error;
        }
        await forgetSchedule(db, input.agentId, id);
        removed.push(id);
      }
      return { active: [...wanted], removed };
    },
  };
}
