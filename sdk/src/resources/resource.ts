// What every resource holds: the transport that sends its calls, and the client's defaults.
import type { Transport } from '../transport.ts';

export abstract class Resource {
  constructor(protected readonly transport: Transport) {}
}

/** A fresh Idempotency-Key: one per logical call, reused by every retry of that call. */
export function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}
