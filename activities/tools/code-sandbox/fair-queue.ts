// Who runs next on the code sandbox's threads (threads.ts): each user's scripts wait in a queue of
// their own, and a free thread goes to the users with work waiting in turn (round-robin: the one served
// longest ago, or never), never to a user already running `perUser` scripts. So one user's flood of
// scripts waits behind itself: another user's script takes the next free thread, and while the flooding
// user holds at most `perUser` of the threads, the others stay free for everyone else.

export class FairQueue<T> {
  /** Each user's waiting items, oldest first; a user with none has no entry. */
  private readonly waiting = new Map<string, T[]>();
  /** Started and not yet done, per user. */
  private readonly running = new Map<string, number>();
  /** When each user with work waiting or running was last served (a count of starts); absent: not yet. */
  private readonly lastServed = new Map<string, number>();
  private starts = 0;

  constructor(private readonly perUser: number) {
    if (!Number.isInteger(perUser) || perUser < 1) throw new RangeError(`perUser must be a positive integer, got ${perUser}`);
  }

  /** Waits behind the user's own earlier items. */
  push(user: string, item: T): void {
    const queue = this.waiting.get(user);
    if (queue) queue.push(item);
    else this.waiting.set(user, [item]);
  }

  /** Takes a waiting item out (it gave up waiting); false when it is not waiting. */
  remove(user: string, item: T): boolean {
    const queue = this.waiting.get(user);
    const index = queue?.indexOf(item) ?? -1;
    if (index < 0) return false;
    queue!.splice(index, 1);
    if (queue!.length === 0) this.waiting.delete(user);
    this.forgetIfIdle(user);
    return true;
  }

  /**
   * Starts the next item: the oldest waiting one of the user below its cap served longest ago (users
   * not served yet first, in the order they came). Undefined when nobody may start.
   */
  next(): { user: string; item: T } | undefined {
    let chosen: string | undefined;
    let chosenServed = Infinity;
    for (const user of this.waiting.keys()) {
      if ((this.running.get(user) ?? 0) >= this.perUser) continue;
      const served = this.lastServed.get(user) ?? -1;
      if (served < chosenServed) [chosen, chosenServed] = [user, served];
    }
    if (chosen === undefined) return undefined;
    const queue = this.waiting.get(chosen)!;
    const item = queue.shift()!;
    if (queue.length === 0) this.waiting.delete(chosen);
    this.running.set(chosen, (this.running.get(chosen) ?? 0) + 1);
    this.lastServed.set(chosen, ++this.starts);
    return { user: chosen, item };
  }

  /** An item `next` started has ended. */
  done(user: string): void {
    const running = (this.running.get(user) ?? 0) - 1;
    if (running > 0) this.running.set(user, running);
    else this.running.delete(user);
    this.forgetIfIdle(user);
  }

  /** Every waiting item, taken out (the sandbox is closing). */
  drain(): T[] {
    const items = [...this.waiting.values()].flat();
    this.waiting.clear();
    return items;
  }

  /** A user with nothing waiting or running leaves the turn: what it ran before no longer counts. */
  private forgetIfIdle(user: string): void {
    if (!this.waiting.has(user) && !this.running.has(user)) this.lastServed.delete(user);
  }
}
