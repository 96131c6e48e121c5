// The files a turn sends its model, kept in this worker between the turn's steps: a turn with tool
// round trips sends the same images and PDFs at every step, and reads each from storage once. What a
// turn keeps is what one step loads (at most TURN_FILE_BYTES_LIMIT); it is dropped when the turn's last
// step ends here, or after TTL_MS without a step (the turn waits on a person, failed elsewhere, or
// went on on another worker, which simply reads the files again). Stored objects never change, so a
// kept copy is never stale.

/** How long a turn's files stay without a step using them. */
export const TURN_FILES_TTL_MS = 2 * 60_000;

interface Kept {
  files: Map<string, Promise<Buffer | undefined>>;
  timer: NodeJS.Timeout;
}

export class TurnFiles {
  private readonly turns = new Map<string, Kept>();

  constructor(private readonly ttlMs: number = TURN_FILES_TTL_MS) {}

  /**
   * The bytes of `objectKey` for this turn: read with `load` the first time, kept after. The turn
   * keeps only the objects of its latest step, so it never holds more than one step loads.
   */
  async read(turnKey: string, objectKeys: readonly string[], load: (objectKey: string) => Promise<Buffer | undefined>) {
    const previous = this.turns.get(turnKey);
    if (previous) clearTimeout(previous.timer);
    const files = new Map<string, Promise<Buffer | undefined>>();
    for (const objectKey of objectKeys) {
      let file = previous?.files.get(objectKey);
      if (!file) {
        file = load(objectKey);
        // A failed read is not kept: the next step tries again.
        file.catch(() => files.delete(objectKey));
      }
      files.set(objectKey, file);
    }
    const timer = setTimeout(() => this.release(turnKey), this.ttlMs);
    timer.unref();
    this.turns.set(turnKey, { files, timer });
    const loaded = await Promise.all(objectKeys.map(async (objectKey) => [objectKey, await files.get(objectKey)!] as const));
    return new Map(loaded);
  }

  /** The turn has ended (or will not come back here soon): its files go. */
  release(turnKey: string): void {
    const kept = this.turns.get(turnKey);
    if (!kept) return;
    clearTimeout(kept.timer);
    this.turns.delete(turnKey);
  }

  /** Turns with files kept now (for tests and metrics). */
  get size(): number {
    return this.turns.size;
  }
}
