// Flags for node itself when it runs a worker: the launcher passes them, and package.json's `worker`
// script spells the same (a test checks they agree).

/**
 * The worker's V8 settings, as `npm run worker` sets them. Streaming replies allocate a great deal of
 * short-lived garbage (the AI SDK's web streams); a 64 MiB young generation halved the worker's GC
 * time at 50 concurrent streams, for at most about 100 MiB more memory (docs/benchmarks.md, "Figures
 * behind choices in the code").
 */
export const WORKER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64'];
