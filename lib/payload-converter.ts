// The payload converter of every Temporal client, worker and workflow bundle of the service:
// Temporal's default (JSON), plus a mark in the metadata of the summaries and details written
// readable (lib/workflow-safe/readable-metadata.ts), which the codec then leaves unencrypted. Workers and the
// workflow bundler load it by path (converterPaths() in workers/workflow-code.ts), so it
// exports `payloadConverter` and imports nothing with I/O: it also runs inside the workflow sandbox.
import { defaultPayloadConverter, type Payload, type PayloadConverter } from '@temporalio/common';
import { isReadable, READABLE_METADATA_KEY } from './workflow-safe/readable-metadata.ts';

const marked = new TextEncoder().encode('ids-only');

export const payloadConverter: PayloadConverter = {
  toPayload(value, context, hint): Payload {
    if (!isReadable(value)) return defaultPayloadConverter.toPayload(value, context, hint);
    const payload = defaultPayloadConverter.toPayload(String(value), context);
    return { ...payload, metadata: { ...payload.metadata, [READABLE_METADATA_KEY]: marked } };
  },
  fromPayload(payload, context, hint) {
    return defaultPayloadConverter.fromPayload(payload, context, hint);
  },
};
