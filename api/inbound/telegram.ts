// Telegram replies arrive as webhook Updates: a message whose `reply_to_message` is our message
// (we ask for a forced reply), named `<chat id>:<message_id>` as when it was sent. Telegram proves
// a request is its own by sending back the secret_token given to setWebhook in a header. Any other
// update (a plain message, an edit, a button press) is acknowledged and ignored, so Telegram does
// not retry it.
import { safeEqual } from '../../lib/crypto.ts';
import { headerValue, IGNORED, isRecord, jsonObject, type InboundParser } from './types.ts';

export const SECRET_HEADER = 'x-telegram-bot-api-secret-token';

export const telegramInboundParser: InboundParser = {
  parse(request) {
    const body = jsonObject(request.rawBody);
    if (!body) return { kind: 'invalid', status: 400, detail: 'The body is not a JSON object' };
    const message = body.message;
    if (!isRecord(message) || !isRecord(message.reply_to_message) || !isRecord(message.chat)) return IGNORED;
    const chatId = message.chat.id;
    const repliedTo = message.reply_to_message.message_id;
    const text = message.text;
    if ((typeof chatId !== 'number' && typeof chatId !== 'string') || typeof repliedTo !== 'number' || typeof text !== 'string')
      return IGNORED;
    const offered = headerValue(request.headers, SECRET_HEADER) ?? '';
    return {
      kind: 'reply',
      lookup: { kind: 'ref', externalRef: `${chatId}:${repliedTo}` },
      text,
      ...(isRecord(message.from) && (typeof message.from.id === 'number' || typeof message.from.id === 'string')
        ? { sender: String(message.from.id) }
        : {}),
      authenticate(config) {
        const secret = config.secretToken;
        return typeof secret === 'string' && secret !== '' && safeEqual(secret, offered);
      },
    };
  },
};
