// A schema-check thread that answers every check "valid" and then fails on its own, 10 ms later, while its
// owner keeps it for the next check (test/unit/schema-checks.test.ts): what a thread's error after its check
// looks like. (Failing in the same tick as its answer would lose the answer: the error can arrive first.)
import { parentPort } from 'node:worker_threads';

parentPort!.on('message', (request: { id: number }) => {
  parentPort!.postMessage({ id: request.id, valid: true });
  setTimeout(() => {
    throw new Error('the thread failed after its answer');
  }, 10);
});
parentPort!.postMessage({ ready: true });
