// What every Temporal benchmark in this process shares: the SDK runtime (installable once per
// process, before the first native connection) and workflow bundles (webpack takes seconds, so each
// bundle is built once per `npm run bench`, never inside a measurement).
import { Writable } from 'node:stream';
import { bundleWorkflowCode, Runtime } from '@temporalio/worker';
import { createLogger, type Logger } from '../lib/logger.ts';
import { temporalLogger } from '../lib/temporal-logger.ts';
import { workflowBundleOptions } from '../workers/workflow-code.ts';

let installed = false;

/** The SDK's own warnings and errors go to stderr; stdout carries only the bench document. */
export function installTemporalRuntime(): void {
  if (installed) return;
  Runtime.install({
    telemetryOptions: { logging: { forward: {} } },
    logger: temporalLogger(createLogger({ level: 'warn', name: 'temporal' }, process.stderr)),
    shutdownSignals: [],
  });
  installed = true;
}

const bundles = new Map<string, Promise<{ code: string }>>();
const silent = () => undefined;
const quietWebpack = { log: silent, trace: silent, debug: silent, info: silent, warn: silent, error: silent };

export function workflowBundle(workflowsPath: string): Promise<{ code: string }> {
  let bundle = bundles.get(workflowsPath);
  if (!bundle) {
    bundle = bundleWorkflowCode({ ...workflowBundleOptions(workflowsPath), logger: quietWebpack }).then(({ code }) => ({ code }));
    bundles.set(workflowsPath, bundle);
  }
  return bundle;
}

/** A logger at production level (info) whose lines are dropped: logging costs what it costs in production. */
export function discardingLogger(): Logger {
  return createLogger({ level: 'info' }, new Writable({ write: (_chunk, _encoding, callback) => callback() }));
}
