// The order the service tier's files start in. Vitest's own order is kept within each project (files that
// failed last time, then the longest, or the largest in a fresh clone), but it queues the projects one after
// the other by name, so `temporal-on-postgres` (seven durability files, scale-out's a minute alone) came last
// and ran as the tier's tail with one fork idle. Its files are queued first here; the dev server's many short
// files then fill both forks up to the end (docs/development.md, "Commands and tests").
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The project whose files start first. */
const FIRST = 'temporal-on-postgres';

export default class ServiceSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    // Each part keeps vitest's order.
    return [...sorted.filter((file) => file.project.name === FIRST), ...sorted.filter((file) => file.project.name !== FIRST)];
  }
}
