// Webhook-channel replies: the user's receiver posts {approvalId, choice, note?} back, signed with
// the channel's `secret` the same way we sign what we send (Standard Webhooks headers, under the
// webhook-* or x-service-* names). The timestamp is checked before any lookup, so a captured
// request is refused once five minutes have passed; the signature needs the channel's secret,
// which only the route can find (through the approval).
import { DEFAULT_TOLERANCE_SECONDS, HEADER_NAMES, verifyWebhookSignature } from '../../lib/webhook-signature.ts';
import { headerValue, jsonObject, type InboundParser } from './types.ts';

export const webhookInboundParser: InboundParser = {
  parse(request) {
    const body = jsonObject(request.rawBody);
    const { approvalId, choice, note } = body ?? {};
    if (
      typeof approvalId !== 'string' ||
      approvalId === '' ||
      typeof choice !== 'string' ||
      choice.trim() === '' ||
      (note !== undefined && note !== null && typeof note !== 'string')
    )
      return { kind: 'invalid', status: 400, detail: 'Send a JSON object {approvalId, choice, note?}' };

    const timestamp = HEADER_NAMES.timestamp.map((name) => headerValue(request.headers, name)).find(Boolean);
    if (!timestamp || !/^\d{1,12}$/.test(timestamp)) return { kind: 'invalid', status: 401, detail: 'webhook-timestamp is missing' };
    const nowSeconds = Math.floor(request.now / 1000);
    if (Math.abs(nowSeconds - Number(timestamp)) > DEFAULT_TOLERANCE_SECONDS)
      return { kind: 'invalid', status: 401, detail: `webhook-timestamp is more than ${DEFAULT_TOLERANCE_SECONDS} s away` };

    return {
      kind: 'reply',
      lookup: { kind: 'approval', approvalId },
      choice,
      note: note ?? null,
      authenticate(config) {
        const secret = config.secret;
        if (typeof secret !== 'string' || secret === '') return false;
        try {
          verifyWebhookSignature({ body: request.rawBody, headers: request.headers, secret, now: nowSeconds });
          return true;
        } catch {
          // A mismatch, a missing header, or a secret that is not a whsec_ secret: not authentic.
          return false;
        }
      },
    };
  },
};
