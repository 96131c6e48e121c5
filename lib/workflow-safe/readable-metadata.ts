// What Temporal shows operators beside a workflow (its summary and details in the Web UI and
// `temporal workflow describe`) stays readable while every other payload is encrypted
// (lib/payload-codec.ts): operators find a run by it without a key. So it holds ids, event types,
// API paths and the names a bundle gives (agent, graph workflow and node names, cron expressions),
// never a user's words; a question to the user, say, is named by its approval id.
//
// The text is marked, not recognised: the payload converter (lib/payload-converter.ts) writes a
// marked string with READABLE_METADATA_KEY in its payload's metadata, and the codec leaves such a
// payload as it is. The mark is a property under a registered symbol rather than a class, because
// the converter may be another instance of this module than the caller's (the workflow bundle has
// its own; a worker loads the converter by path).
import type { Payload } from '@temporalio/common';

/** Payload metadata naming a payload written readable on purpose. */
export const READABLE_METADATA_KEY = 'agent-service-readable';

const MARK = Symbol.for('agent-service.readable-metadata');

/**
 * A string Temporal keeps readable. Typed as string because that is what Temporal's options take; it
 * is a String object that serialises as the string itself, so any other converter writes the same JSON.
 */
function readable(text: string): string {
  // A String object, not a primitive: only an object can carry the mark.
  return Object.assign(new String(text), { [MARK]: true }) as unknown as string;
}

export function isReadable(value: unknown): value is string {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARK] === true;
}

/** A workflow's summary and details for operators, as Temporal's start options name them. */
export function readableMetadata(notes: { summary: string; details?: string }): { staticSummary: string; staticDetails?: string } {
  return {
    staticSummary: readable(notes.summary),
    ...(notes.details === undefined ? {} : { staticDetails: readable(notes.details) }),
  };
}

/** A payload the converter wrote readable: marked, and JSON text (the mark on anything else is not honoured). */
export function isReadablePayload(payload: Payload): boolean {
  const metadata = payload.metadata;
  return (
    metadata?.[READABLE_METADATA_KEY] !== undefined && new TextDecoder().decode(metadata.encoding ?? new Uint8Array()) === 'json/plain'
  );
}
