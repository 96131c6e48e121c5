// The pool's connections prepare each parameterized statement once and run it by name afterwards. A
// statement sent unnamed (node-postgres's default) is parsed, analysed and planned by PostgreSQL at every
// run; a turn makes about thirty, many of them CTEs. Measured under 100 sessions x 5 runs, PostgreSQL's
// CPU per run fell by about a third (docs/benchmarks.md, "Statements prepared once per connection").
//
// A prepared statement whose result columns change under it (a migration adding a column to a table it
// reads with `*`, while this process runs: a rolling upgrade) fails with 0A000 "cached plan must not
// change result type", before it runs, and would fail so on that connection for good. So such a failure
// renames every statement of the connection (each is prepared anew at its next use), and a statement
// that failed outside a transaction is run again at once; one inside a transaction fails that transaction
// (PostgreSQL has aborted it), once per connection, and is answered as the database being away for a moment
// (store/db.ts isDatabaseUnavailable: 503 with Retry-After).
//
// Off (DATABASE_PREPARED_STATEMENTS=off) behind a pooler in transaction mode that does not keep prepared
// statements (PgBouncer before 1.21, or without max_prepared_statements).
import { createHash } from 'node:crypto';
import pg from 'pg';

/** Distinct statement texts this process prepares; past it, new texts run unnamed (text built at run time must not grow this without end). */
const MAX_PREPARED_TEXTS = 1_000;

const hashes = new Map<string, string>();

function hashOf(text: string): string | undefined {
  let hash = hashes.get(text);
  if (hash === undefined && hashes.size < MAX_PREPARED_TEXTS) {
    hash = createHash('sha1').update(text).digest('hex').slice(0, 20);
    hashes.set(text, hash);
  }
  return hash;
}

/** PostgreSQL's refusal to run a prepared statement whose result columns changed since it was prepared. */
export function isStalePlan(error: unknown): boolean {
  const { code, message } = error as { code?: string; message?: string };
  return code === '0A000' && typeof message === 'string' && message.includes('cached plan must not change result type');
}

type Callback = (error: Error | null, result?: pg.QueryResult) => void;

/** A pg.Client that runs `query(text, values)` by a name of its text (the form every store module uses). */
export class PreparingClient extends pg.Client {
  /** Bumped when a plan went stale: the connection's statements take new names, prepared anew. */
  private generation = 0;
  /** Whether the connection was outside any transaction at its last ReadyForQuery. */
  private idle = true;

  constructor(config?: string | pg.ClientConfig) {
    super(config);
    // node-postgres's connection emits the protocol's messages; ReadyForQuery carries the transaction status.
    (this as unknown as { connection: NodeJS.EventEmitter }).connection.on('readyForQuery', (message: { status?: string }) => {
      this.idle = message.status === 'I';
    });
  }

  // The override takes node-postgres's every form and passes all but (text, values[, callback]) on as they came.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...args: any[]): any {
    const [text, values, callback] = args as [unknown, unknown, unknown];
    const hash = typeof text === 'string' && Array.isArray(values) ? hashOf(text) : undefined;
    if (hash === undefined) return (super.query as (...rest: unknown[]) => unknown)(...args);
    const outsideTransaction = this.idle;
    const run = () => super.query({ name: `s${hash}_${this.generation}`, text: text as string, values: values as unknown[] });
    const result = run().catch((error: unknown) => {
      if (!isStalePlan(error)) throw error;
      this.generation += 1;
      // It failed before running (PostgreSQL checks the plan first): alone, it can run again as it was.
      if (outsideTransaction) return run();
      throw error;
    });
    if (typeof callback !== 'function') return result;
    result.then(
      (rows) => (callback as Callback)(null, rows),
      (error: Error) => (callback as Callback)(error),
    );
    return undefined;
  }
}
