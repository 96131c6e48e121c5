// Vitest's file order (vitest.config.ts, `sequence.sequencer`): the files that took longest in the
// last recorded run go first, so the two forks finish together instead of one running a four-minute
// file alone at the end. Vitest orders by its own cache of durations, which a fresh clone (CI) does not
// have: it then runs the largest files first, and each project after the one before it, which put
// the launcher's file in the middle and the Temporal-on-PostgreSQL project's longest file last.
// The durations are recorded in test/durations.json (`npm run test:durations` after `npm test`); a
// file not in it goes first, as one that may be long. A stale record only costs time, never a test.
import fs from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const RECORD = path.resolve(import.meta.dirname, '../../durations.json');

/** Seconds per file, by path from the repository's root. */
export function recordedDurations(file = RECORD): Map<string, number> {
  if (!fs.existsSync(file)) return new Map();
  const record = JSON.parse(fs.readFileSync(file, 'utf8')) as { seconds?: Record<string, number> };
  return new Map(Object.entries(record.seconds ?? {}));
}

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = recordedDurations();
    const root = this.ctx.config.root;
    const duration = (spec: TestSpecification) => seconds.get(path.relative(root, spec.moduleId).split(path.sep).join('/'));
    return [...files].sort((a, b) => {
      const groups = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder;
      if (groups !== 0) return groups;
      const [first, second] = [duration(a), duration(b)];
      if (first === undefined || second === undefined) return first === second ? 0 : first === undefined ? -1 : 1;
      return second - first;
    });
  }
}
