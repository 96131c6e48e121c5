// Temporal's native runtime for a test process, installed with a silent logger: the SDK's own logs
// (workers starting and stopping, the failures a test provokes) go nowhere; a test says what it checks.
import { Runtime } from '@temporalio/worker';
import { createLogger } from '../../../lib/logger.ts';
import { temporalLogger } from '../../../lib/temporal-logger.ts';

// Marked on the process, not in this module: the service tier runs many test files in one process
// (vitest.config.ts, `isolate: false`), and this module evaluated again there (vitest's watch mode runs a
// changed file again) must not install a second time: that throws. A runtime the SDK shut down with its
// last worker is made again by the SDK from the options given here.
const INSTALLED = Symbol.for('agent-service.test.temporal-runtime-installed');
const marks = globalThis as { [INSTALLED]?: true };

/** Installs the runtime once per process; it must come before the first worker, connection or environment. */
export function installQuietRuntime(): void {
  if (marks[INSTALLED]) return;
  Runtime.install({ telemetryOptions: { logging: { forward: {} } }, logger: temporalLogger(createLogger({ level: 'silent' })) });
  marks[INSTALLED] = true;
}
