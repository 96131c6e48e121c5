// POST /codec/decode and /codec/encode: the remote codec the Temporal Web UI and CLI call to show an
// operator the payloads the service encrypted in Temporal's history (lib/payload-codec.ts). Admin keys
// only. Browsers (the Web UI) reach it across origins listed in CODEC_CORS_ORIGINS.
import type { Payload } from '@temporalio/common';
import { OPERATIONS } from '../../contract/operations/index.ts';
import { ValidationError } from '../../lib/workflow-safe/errors.ts';
import { loadMasterKeys } from '../../lib/master-key.ts';
import { encryptionCodec, PayloadKeyMissingError } from '../../lib/payload-codec.ts';
import type { ApiDeps } from '../context.ts';
import { defineRoute } from '../route.ts';

interface WirePayload {
  metadata?: Record<string, string>;
  data?: string;
}

function fromWire(payload: WirePayload): Payload {
  return {
    metadata: Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64')])),
    data: Buffer.from(payload.data ?? '', 'base64'),
  };
}

function toWire(payload: Payload): WirePayload {
  return {
    metadata: Object.fromEntries(
      Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value ?? []).toString('base64')]),
    ),
    data: Buffer.from(payload.data ?? []).toString('base64'),
  };
}

export function codecRoutes(deps: ApiDeps) {
  // Every key the service may have written with; the API always writes with the current one.
  const codec = encryptionCodec(loadMasterKeys(deps.config), { encrypt: deps.config.temporalPayloadEncryption });

  /** One payload at a time, so a refusal names the payload at fault. */
  async function each(payloads: WirePayload[], step: (one: Payload) => Promise<Payload>): Promise<WirePayload[]> {
    const out: WirePayload[] = [];
    for (const [index, payload] of payloads.entries()) {
      try {
        out.push(toWire(await step(fromWire(payload))));
      } catch (error) {
        const reason =
          error instanceof PayloadKeyMissingError ? error.message : 'it does not decrypt (altered, or not written by this service)';
        throw new ValidationError(`Payload ${index} cannot be decoded: ${reason}`, [{ path: `/payloads/${index}`, message: reason }]);
      }
    }
    return out;
  }

  return [
    defineRoute(OPERATIONS.decodePayloads, {
      async handle({ body }) {
        const payloads = await each(body.payloads, async (one) => (await codec.decode([one]))[0]!);
        return { status: 200, body: { payloads }, headers: { 'cache-control': 'no-store' } };
      },
    }),
    defineRoute(OPERATIONS.encodePayloads, {
      async handle({ body }) {
        const payloads = await each(body.payloads, async (one) => (await codec.encode([one]))[0]!);
        return { status: 200, body: { payloads } };
      },
    }),
  ];
}
