// The files turns send their model, kept in this worker between a turn's steps: a turn with tool round
// trips sends the same images and PDFs at every step, and reads each from storage once. Stored objects
// never change, so a kept copy is never stale; a turn whose files are gone simply reads them again.
//
// What this holds is bounded worker-wide, not per turn: the files of all turns together stay within
// `budgetBytes` (WORKER_FILE_CACHE_BYTES), the least recently used turns going first, and a turn is
// kept past its step only when the step says its next step follows at once (`keep`), for at most
// `idleMs`. A step whose tools wait on a person or a client releases its turn's files. Dropping a
// turn drops only this cache's reference: a step that already has the bytes goes on with them, so
// the worker holds at most the files of the steps running now plus the budget.

/** How long a kept turn's files stay without a step using them. */
export const TURN_FILES_IDLE_MS = 2 * 60_000;

/** One object a step sends, with its size as recorded at upload (what keeping it costs). */
export interface TurnObject {
  objectKey: string;
  size: number;
}

type Load = (objectKey: string) => Promise<Buffer | undefined>;

interface File {
  bytes: Promise<Buffer | undefined>;
  size: number;
}

interface Kept {
  files: Map<string, File>;
  size: number;
  /** Set while no step of the turn runs: the turn is dropped when it fires. */
  idle?: NodeJS.Timeout;
}

export interface TurnFilesOptions {
  budgetBytes: number;
  idleMs?: number;
}

export class TurnFiles {
  /** In order of last use, least recent first. */
  private readonly turns = new Map<string, Kept>();
  private total = 0;
  private readonly budgetBytes: number;
  private readonly idleMs: number;

  constructor(options: TurnFilesOptions) {
    this.budgetBytes = options.budgetBytes;
    this.idleMs = options.idleMs ?? TURN_FILES_IDLE_MS;
  }

  /**
   * The bytes of each object for a step of this turn: read with `load` unless the turn kept it. The
   * turn then keeps only these objects (it never holds more than one step sends), unless they alone
   * exceed the budget; other turns make room, least recently used first.
   */
  async read(turnKey: string, objects: readonly TurnObject[], load: Load): Promise<Map<string, Buffer | undefined>> {
    const previous = this.turns.get(turnKey);
    this.drop(turnKey);
    const files = new Map<string, File>();
    for (const { objectKey, size } of objects) {
      if (files.has(objectKey)) continue;
      const file = previous?.files.get(objectKey) ?? this.loadOne(turnKey, objectKey, size, load);
      files.set(objectKey, file);
    }
    const size = [...files.values()].reduce((sum, file) => sum + file.size, 0);
    if (size <= this.budgetBytes) {
      this.turns.set(turnKey, { files, size });
      this.total += size;
      this.evictBeyondBudget(turnKey);
    }
    const loaded = await Promise.all([...files].map(async ([objectKey, file]) => [objectKey, await file.bytes] as const));
    return new Map(loaded);
  }

  /** The turn's step has ended and its next step follows at once: its files stay for up to `idleMs`. */
  keep(turnKey: string): void {
    const kept = this.turns.get(turnKey);
    if (!kept) return;
    clearTimeout(kept.idle);
    kept.idle = setTimeout(() => this.drop(turnKey), this.idleMs);
    kept.idle.unref();
  }

  /** The turn has ended, or waits on a person or a client: its files go. */
  release(turnKey: string): void {
    this.drop(turnKey);
  }

  /** Turns with files kept now (for tests and metrics). */
  get size(): number {
    return this.turns.size;
  }

  /** Bytes of the files kept now, of all turns. */
  get bytes(): number {
    return this.total;
  }

  private loadOne(turnKey: string, objectKey: string, size: number, load: Load): File {
    const file: File = { bytes: load(objectKey), size };
    // A failed read is not kept, whichever step of the turn holds it by now: the next step tries again.
    file.bytes.catch(() => {
      const kept = this.turns.get(turnKey);
      if (kept?.files.get(objectKey) !== file) return;
      kept.files.delete(objectKey);
      kept.size -= size;
      this.total -= size;
    });
    return file;
  }

  private evictBeyondBudget(keepKey: string): void {
    for (const turnKey of this.turns.keys()) {
      if (this.total <= this.budgetBytes) return;
      if (turnKey !== keepKey) this.drop(turnKey);
    }
  }

  private drop(turnKey: string): void {
    const kept = this.turns.get(turnKey);
    if (!kept) return;
    clearTimeout(kept.idle);
    this.turns.delete(turnKey);
    this.total -= kept.size;
  }
}
