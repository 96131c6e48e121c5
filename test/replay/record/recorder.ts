// Saves the history of a workflow the recording drove, as a fixture. A fixture already on disk is kept
// (unless HISTORIES_OVERWRITE=1): it is the history an earlier version of the code made, which is
// exactly what the replay test must keep replaying, so re-recording it with today's code would hide
// the very break it guards against. New scenarios add new fixtures.
import fs from 'node:fs';
import { vi } from 'vitest';
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import type { History } from '@temporalio/common/lib/proto-utils.js';
import { decodedText, fixtureName, fixturePath, secretsIn, workflowTypeOf, writeFixture } from '../history-fixtures.ts';

// The proto package is CommonJS: its namespace comes through the default import under plain Node.
const EventType = proto.temporal.api.enums.v1.EventType;
type EventType = proto.temporal.api.enums.v1.EventType;

export interface Recorder {
  /** True when this fixture must be recorded (it does not exist yet, or overwriting was asked for). */
  wanted(workflowType: string, state: string): boolean;
  /** Waits for the workflow to close (completed or failed alike), then saves its history. */
  closed(workflowId: string, workflowType: string, state: string): Promise<void>;
  /** Saves the history of a running workflow as soon as `ready` holds for it, between two workflow tasks. */
  inFlight(workflowId: string, workflowType: string, state: string, ready: (history: History) => boolean): Promise<void>;
}

/** `secrets`: values the recording used that must not appear in any history (its keys, tokens). */
export function recorder(client: Client, secrets: string[]): Recorder {
  const overwrite = process.env.HISTORIES_OVERWRITE === '1';

  function save(workflowType: string, state: string, history: History): void {
    const actual = workflowTypeOf(history);
    if (actual !== workflowType) throw new Error(`expected a ${workflowType} history, got ${actual}`);
    const name = fixtureName(workflowType, state);
    if (!overwrite && fs.existsSync(fixturePath(name))) {
      process.stderr.write(`[record-histories] kept ${fixturePath(name)} (recorded earlier)\n`);
      return;
    }
    const file = writeFixture(name, history);
    const leaked = secretsIn(decodedText(fs.readFileSync(file, 'utf8')), secrets);
    if (leaked.length > 0) {
      fs.rmSync(file);
      throw new Error(`${name}: the history holds ${leaked.join(', ')}; not saved`);
    }
    process.stderr.write(`[record-histories] wrote ${file} (${history.events?.length ?? 0} events)\n`);
  }

  return {
    wanted(workflowType, state) {
      const file = fixturePath(fixtureName(workflowType, state));
      if (overwrite || !fs.existsSync(file)) return true;
      process.stderr.write(`[record-histories] ${file} exists: its scenario is not recorded again\n`);
      return false;
    },

    async closed(workflowId, workflowType, state) {
      const handle = client.workflow.getHandle(workflowId);
      await handle.result().catch(() => undefined);
      save(workflowType, state, await handle.fetchHistory());
    },

    async inFlight(workflowId, workflowType, state, ready) {
      const handle = client.workflow.getHandle(workflowId);
      const history = await vi.waitFor(
        async () => {
          const fetched = await handle.fetchHistory();
          const last = fetched.events?.at(-1)?.eventType;
          // A history cut inside a workflow task is valid too, but one cut between tasks is what a
          // worker picking the run up after an upgrade starts from.
          const betweenTasks = last !== EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED && last !== EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED;
          if (!betweenTasks || !ready(fetched)) throw new Error(`${workflowId} has not reached the state "${state}"`);
          return fetched;
        },
        { timeout: 20_000, interval: 100 },
      );
      save(workflowType, state, history);
    },
  };
}

/** True once the history holds an event of this type (e.g. a timer started: the workflow sleeps). */
export function hasEvent(history: History, type: EventType): boolean {
  return history.events?.some((event) => event.eventType === type) ?? false;
}

export { EventType };
