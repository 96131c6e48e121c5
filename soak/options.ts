// What one soak does, from SOAK_* settings in the environment (all optional): how long the load
// runs, how many sessions, API processes and workers, and how often a process is killed.

export interface SoakOptions {
  /** SOAK_SECONDS: how long sessions keep sending; then every turn in flight is let finish. */
  seconds: number;
  /** SOAK_SESSIONS: sessions sending at once, each one turn after another. */
  sessions: number;
  /** SOAK_APIS, SOAK_WORKERS: processes of each, behind one balancer (APIs) or one task queue (workers). */
  apis: number;
  workers: number;
  /** SOAK_KILL_EVERY_MS: mean time between two SIGKILLs of a random API or worker; 0: no kills. */
  killEveryMs: number;
  /** SOAK_DRAIN_SECONDS: how long the turns in flight at the end may take before they count as stuck. */
  drainSeconds: number;
  /** SOAK_SEED: the random choices (turn kinds, send modes, kill targets and times) repeat for one seed. */
  seed: number;
}

function count(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer of at least ${min}, not "${raw}"`);
  return value;
}

export function soakOptions(): SoakOptions {
  return {
    seconds: count('SOAK_SECONDS', 150, 5),
    sessions: count('SOAK_SESSIONS', 12, 1),
    apis: count('SOAK_APIS', 2, 1),
    workers: count('SOAK_WORKERS', 2, 1),
    killEveryMs: count('SOAK_KILL_EVERY_MS', 8_000, 0),
    drainSeconds: count('SOAK_DRAIN_SECONDS', 90, 10),
    seed: count('SOAK_SEED', Date.now() % 1_000_000, 0),
  };
}

/** A small seeded generator (mulberry32): the same seed makes the same choices. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
