// GET /evals/<id> with `Accept: text/event-stream`: a run's progress as it happens (docs/evals.md). The
// stream first sends every case that has ended, then each case as it ends (`event: case`, the case as
// GET /evals/<id> shows it), the run's summary after each change (`event: run`), and at the run's end
// `event: end` with the final summary, then closes. Cases end in activities on any worker, so the stream
// looks at the run's ended cases every EVAL_PROGRESS_POLL_MS (one indexed read of at most 200 positions)
// and reads whole only the cases new since. A reconnecting client gets every ended case again: frames
// carry no ids, and a case is told by its `id`.
import type { Response } from 'express';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../../store/db.ts';
import { casesAt, endedPositions, getRun, runSummaries, type EvalCase, type EvalRun, type RunSummary } from '../../store/evals.ts';
import { openEventStream } from '../streaming/sse-writer.ts';

/** Between two looks at the run: a case takes seconds at least, a person watches. */
export const EVAL_PROGRESS_POLL_MS = 1_000;

const frame = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

export async function streamRunProgress(options: {
  res: Response;
  db: Db;
  runId: string;
  heartbeatMs: number;
  log: { warn: (details: object, message: string) => void };
  runView: (run: EvalRun, summary: RunSummary | undefined) => unknown;
  caseView: (evalCase: EvalCase) => unknown;
  pollMs?: number;
}): Promise<void> {
  const { db, runId } = options;
  const stream = openEventStream(options.res, options.heartbeatMs);
  const sent = new Set<number>();
  try {
    for (let first = true; !stream.gone(); first = false) {
      // The run's status before its cases: a run seen ended has every case it will have ended.
      const run = await getRun(db, runId);
      if (!run) break;
      const fresh = (await endedPositions(db, runId)).filter((position) => !sent.has(position));
      let chunk = '';
      for (const evalCase of await casesAt(db, runId, fresh)) {
        chunk += frame('case', options.caseView(evalCase));
        sent.add(evalCase.position);
      }
      const ended = run.status !== 'running';
      if (first || fresh.length > 0 || ended) {
        const summary = (await runSummaries(db, [runId])).get(runId);
        chunk += frame(ended ? 'end' : 'run', options.runView(run, summary));
      }
      if (chunk) await stream.write(chunk);
      if (ended) {
        stream.end();
        break;
      }
      await sleep(options.pollMs ?? EVAL_PROGRESS_POLL_MS, undefined, { signal: stream.closed }).catch(() => undefined);
    }
  } catch (error) {
    // The client reconnects and is sent every ended case again: ending beats hanging.
    options.log.warn({ err: error, evalId: runId }, 'eval progress stream failed');
    stream.end();
  } finally {
    stream.release();
  }
}
