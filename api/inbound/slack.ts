// Slack replies arrive through the Events API: a `message` event in the thread of our message
// (`thread_ts` is its ts). Slack signs each request with the app's signing secret over
// "v0:<timestamp>:<raw body>"; a timestamp more than five minutes away is refused before anything
// is looked up, so a captured request cannot be replayed later. Bot messages (ours included),
// edits and other subtypes, and events outside a thread are acknowledged and ignored.
import { createHmac } from 'node:crypto';
import { safeEqual } from '../../lib/crypto.ts';
import { headerValue, IGNORED, isRecord, jsonObject, type InboundParser } from './types.ts';

const TOLERANCE_SECONDS = 300;
/** A reply also posted to the channel is still a reply in the thread. */
const REPLY_SUBTYPES = new Set(['thread_broadcast']);

/** Slack sends `&`, `<` and `>` typed by people as entities; matching reads what they typed. */
function unescapeSlack(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

export function slackSignature(signingSecret: string, timestamp: string, rawBody: Buffer | string): string {
  return `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:`).update(rawBody).digest('hex')}`;
}

export const slackInboundParser: InboundParser = {
  parse(request) {
    const body = jsonObject(request.rawBody);
    if (!body) return { kind: 'invalid', status: 400, detail: 'The body is not a JSON object' };
    if (body.type === 'url_verification') {
      if (typeof body.challenge !== 'string') return { kind: 'invalid', status: 400, detail: 'url_verification without a challenge' };
      return { kind: 'respond', status: 200, body: { challenge: body.challenge } };
    }
    const event = body.event;
    if (body.type !== 'event_callback' || !isRecord(event) || event.type !== 'message') return IGNORED;
    if (event.bot_id || (event.subtype !== undefined && !REPLY_SUBTYPES.has(String(event.subtype)))) return IGNORED;
    const { channel, text } = event;
    const threadTs = event.thread_ts;
    // A thread's first message carries its own ts as thread_ts: it is not a reply.
    if (typeof channel !== 'string' || typeof threadTs !== 'string' || typeof text !== 'string' || event.ts === threadTs) return IGNORED;

    const timestamp = headerValue(request.headers, 'x-slack-request-timestamp');
    if (!timestamp || !/^\d{1,12}$/.test(timestamp))
      return { kind: 'invalid', status: 401, detail: 'X-Slack-Request-Timestamp is missing' };
    if (Math.abs(request.now / 1000 - Number(timestamp)) > TOLERANCE_SECONDS)
      return { kind: 'invalid', status: 401, detail: `X-Slack-Request-Timestamp is more than ${TOLERANCE_SECONDS} s away` };
    const offered = headerValue(request.headers, 'x-slack-signature') ?? '';
    return {
      kind: 'reply',
      lookup: { kind: 'ref', externalRef: `${channel}:${threadTs}` },
      text: unescapeSlack(text),
      ...(typeof event.user === 'string' ? { sender: event.user } : {}),
      authenticate(config) {
        const secret = config.signingSecret;
        if (typeof secret !== 'string' || secret === '') return false;
        return safeEqual(slackSignature(secret, timestamp, request.rawBody), offered);
      },
    };
  },
};
