// A workflow's waits for places among its user's RUNNING_TURNS_PER_USER (activities/turn/step-queue.ts):
// a model step, tool call or compaction asked with `mayQueue` that comes back queued waits until a place
// is given back and a STEP_PLACE_FREED signal names it (or names none: a model step's wake-up), then asks
// again. Several calls of one step can wait at once (a step with approvals runs its calls together), so
// each wake-up wakes one waiter: the one it names, else the longest-waiting one.
//
// Replay: a result recorded before places were taken never comes back queued, so such histories take no
// wait here. A wait is one timer, as the step queue's was; a wake-up that comes while nothing waits but
// something is asking is kept for it (the answer may be `queued` from just before that place was freed),
// and otherwise dropped, as the step queue's flag was cleared before each ask.
import { condition, defineSignal, setHandler } from '@temporalio/workflow';
import { isPlaceQueued, STEP_PLACE_FREED } from '../core/turn-types.ts';

/** Sent by whatever gave a place back (activities/turn/step-queue.ts) to its user's longest waiter. */
export const stepPlaceFreedSignal = defineSignal<[placeKey?: string]>(STEP_PLACE_FREED);

/**
 * A waiter not woken (its signal lost: a worker died between the two, or the place lapsed with a dead
 * worker's activity and nobody gave it back) asks again after this long: what such a turn stalls for.
 * Timer durations are not part of what a replay compares, so histories recorded with 30 s replay.
 */
const QUEUE_WAIT_MS = 10_000;

export class PlaceWaits {
  /** Keys whose activity runs now, and may come back queued. */
  private readonly asking = new Set<string>();
  /** Keys waiting for a wake-up, longest-waiting first. */
  private readonly waiting: string[] = [];
  private readonly woken = new Set<string>();
  /** Wake-ups naming no waiter that came while calls were asking: at most one per asking call. */
  private unclaimed = 0;

  /** A place was given back, for the waiter `key` when it is named. */
  freed(key: string | undefined): void {
    if (key !== undefined && this.waiting.includes(key)) return this.wake(key);
    if (key !== undefined && this.asking.has(key)) {
      this.woken.add(key);
      return;
    }
    const first = this.waiting[0];
    if (first !== undefined) return this.wake(first);
    if (this.unclaimed < this.asking.size) this.unclaimed += 1;
  }

  /**
   * Runs `ask` under `key` until it is not queued; between asks, waits for a wake-up (or QUEUE_WAIT_MS).
   * Each ask after the first is given the queued answer before it.
   */
  async run<T extends object>(key: string, ask: (queuedBefore?: T) => Promise<T>): Promise<Exclude<T, { queued: true }>> {
    let queuedBefore: T | undefined;
    for (;;) {
      this.asking.add(key);
      let result: T;
      try {
        result = await ask(queuedBefore);
      } finally {
        this.asking.delete(key);
      }
      if (!isPlaceQueued(result)) {
        this.settle(key);
        return result as Exclude<T, { queued: true }>;
      }
      queuedBefore = result;
      if (!this.woken.has(key) && this.unclaimed > 0) {
        this.unclaimed -= 1;
        this.woken.add(key);
      }
      if (!this.woken.has(key)) this.waiting.push(key);
      this.unclaimed = Math.min(this.unclaimed, this.asking.size);
      try {
        await condition(() => this.woken.has(key), QUEUE_WAIT_MS);
      } finally {
        this.settle(key);
      }
    }
  }

  private wake(key: string): void {
    this.waiting.splice(this.waiting.indexOf(key), 1);
    this.woken.add(key);
  }

  /** `key` neither waits nor holds a wake-up any longer. */
  private settle(key: string): void {
    const index = this.waiting.indexOf(key);
    if (index >= 0) this.waiting.splice(index, 1);
    this.woken.delete(key);
    this.unclaimed = Math.min(this.unclaimed, this.asking.size);
  }
}

/** The workflow's waits for places, woken by STEP_PLACE_FREED: one per workflow run (it sets the handler). */
export function placeWaits(): PlaceWaits {
  const places = new PlaceWaits();
  setHandler(stepPlaceFreedSignal, (key) => places.freed(key));
  return places;
}
