// The remote codec of the Temporal Web UI and CLI: workflow payloads are encrypted in Temporal's
// history (lib/payload-codec.ts); operators holding an admin key read them decoded through this.
import { defineOperation } from './operation.ts';

const BASE64 = { type: 'string', pattern: '^[A-Za-z0-9+/]*={0,2}$' } as const;

/** A Temporal payload as the remote codec protocol sends it: metadata values and data in base64. */
const PAYLOAD_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    metadata: { type: 'object', maxProperties: 20, additionalProperties: BASE64 },
    data: BASE64,
  },
} as const;

export const CODEC_BODY_SCHEMA = {
  type: 'object',
  required: ['payloads'],
  properties: { payloads: { type: 'array', maxItems: 1_000, items: PAYLOAD_SCHEMA } },
} as const;

const PAYLOADS_RESPONSE = { description: 'The payloads, in the same order', schema: CODEC_BODY_SCHEMA } as const;

const DESCRIPTION =
  'The remote codec protocol of Temporal (`temporal workflow show --codec-endpoint <base>/codec --codec-auth "Bearer <admin key>"`, ' +
  "or the Web UI's codec endpoint setting). Needs an admin key: decoded payloads hold every message and reply. " +
  'Payloads not encrypted by the service pass through unchanged.';

export const decodePayloads = defineOperation({
  id: 'decodePayloads',
  method: 'post',
  path: '/codec/decode',
  summary: 'Decode (decrypt) Temporal workflow payloads for an operator',
  description: DESCRIPTION + ' A payload encrypted under a master key this API does not hold is a 400 naming its index.',
  tag: 'admin',
  auth: { kind: 'admin' },
  body: { required: true, schema: CODEC_BODY_SCHEMA },
  responses: { 200: PAYLOADS_RESPONSE },
});

export const encodePayloads = defineOperation({
  id: 'encodePayloads',
  method: 'post',
  path: '/codec/encode',
  summary: 'Encode (encrypt) payloads as the service writes them, e.g. for a signal sent from the Web UI',
  description: DESCRIPTION,
  tag: 'admin',
  auth: { kind: 'admin' },
  body: { required: true, schema: CODEC_BODY_SCHEMA },
  responses: { 200: PAYLOADS_RESPONSE },
});
