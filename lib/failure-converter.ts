// The failure converter of every Temporal client, worker and workflow bundle of the service: Temporal's
// default, with a failure's message and stack trace moved into its encoded attributes, a payload the
// codec encrypts like any other (lib/payload-codec.ts). A failure can quote what it failed on (a
// provider's error about a message, a tool's output), so history keeps only its type readable (the
// API's error mapping reads the type, lib/workflow-safe/failures.ts) and a reader with the codec gets the rest back.
// Loaded by path like the payload converter (converterPaths() in workers/workflow-code.ts).
import { DefaultFailureConverter } from '@temporalio/common';

export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
