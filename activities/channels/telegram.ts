// The Telegram channel: the approval as one bot message (sendMessage). Config:
//   botToken     required; the token BotFather gave (`123456:ABC…`)
//   chatId       required; the chat's id (a user's, a group's) or `@channelusername`
//   secretToken  required when answerVia = reply; the secret_token given to setWebhook, which
//                Telegram sends back in X-Telegram-Bot-Api-Secret-Token (api/inbound/telegram.ts)
// Options are URL buttons (signed-url), or the message forces a reply (reply): the reply quotes
// our message, which is named `<chat id>:<message_id>`. The bot token sits in the URL path, so no
// error raised here carries a URL or an underlying error that could contain it.
import { OutboundAddressRefusedError, OutboundUrlError, outboundErrorText, type OutboundResponse } from '../../lib/outbound.ts';
import { approvalText } from './approval-message.ts';
import {
  ChannelPermanentError,
  type ApprovalMessage,
  type ChannelContext,
  type ChannelProviderImpl,
  type ResolvedChannelConfig,
} from './types.ts';

/** Telegram's limits: characters of a message's text and of the reply field's placeholder. */
const TEXT_CHARS = 4096;
const PERMANENT_CODES = new Set([400, 401, 403, 404]);

function setting(config: ResolvedChannelConfig, key: string): string | number {
  const value = config[key];
  if ((typeof value !== 'string' || value === '') && typeof value !== 'number')
    throw new ChannelPermanentError(`The telegram channel has no "${key}"`);
  return value;
}

export function telegramReplyMarkup(message: ApprovalMessage): object {
  if (message.answerVia === 'reply') return { force_reply: true, input_field_placeholder: 'Option name or number, then a note' };
  return { inline_keyboard: message.links.options.map(({ option, url }) => [{ text: option, url }]) };
}

interface SendMessageAnswer {
  ok?: boolean;
  error_code?: number;
  description?: string;
  parameters?: { retry_after?: number };
  result?: { message_id?: number; chat?: { id?: number | string } };
}

/** One sendMessage call; answers `<chat id>:<message_id>` of the sent message. */
async function sendMessage(config: ResolvedChannelConfig, message: Record<string, unknown>, ctx: ChannelContext): Promise<string | null> {
  const botToken = String(setting(config, 'botToken'));
  const hide = (text: string) => text.split(botToken).join('<bot token>');
  const url = `${ctx.settings.telegramApiBaseUrl.replace(/\/+$/, '')}/bot${botToken}/sendMessage`;
  let response: OutboundResponse;
  try {
    response = await ctx.outbound.request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      // The links answer the approval: no preview fetches them (the answer page ignores fetchers anyway).
      body: JSON.stringify({ ...message, link_preview_options: { is_disabled: true } }),
      timeoutMs: ctx.settings.requestTimeoutMs,
      maxBodyBytes: 256 * 1024,
    });
  } catch (error) {
    // A fresh error without a cause: the original's message or stack might name the URL, or the address.
    const detail = hide(outboundErrorText(error));
    if (error instanceof OutboundUrlError || error instanceof OutboundAddressRefusedError)
      throw new ChannelPermanentError(`The Telegram API address is refused (${detail})`);
    throw new Error(`The Telegram API could not be reached (${detail})`);
  }
  return readAnswer(response, hide);
}

export const telegramProvider: ChannelProviderImpl = {
  provider: 'telegram',
  async send(config, message, ctx) {
    const externalRef = await sendMessage(
      config,
      {
        chat_id: setting(config, 'chatId'),
        text: approvalText(message, { linksAs: 'buttons', maxChars: TEXT_CHARS }),
        reply_markup: telegramReplyMarkup(message),
      },
      ctx,
    );
    return { externalRef };
  },
  async notify(config, externalRef, text, ctx) {
    // Chat ids may be negative (groups): the message id follows the last colon.
    const colon = externalRef.lastIndexOf(':');
    const chatId = externalRef.slice(0, colon);
    await sendMessage(
      config,
      {
        chat_id: /^-?\d+$/.test(chatId) ? Number(chatId) : chatId,
        text: text.slice(0, TEXT_CHARS),
        reply_parameters: { message_id: Number(externalRef.slice(colon + 1)) },
      },
      ctx,
    );
  },
};

function readAnswer(response: OutboundResponse, hide: (text: string) => string): string | null {
  let answer: SendMessageAnswer | undefined;
  try {
    answer = JSON.parse(response.bodySnippet) as SendMessageAnswer;
  } catch {
    answer = undefined;
  }
  if (answer?.ok === true) {
    const chat = answer.result?.chat?.id;
    const messageId = answer.result?.message_id;
    // Sent: without the ids replies cannot be matched, but a retry would send it twice.
    return chat !== undefined && messageId !== undefined ? `${chat}:${messageId}` : null;
  }
  const code = typeof answer?.error_code === 'number' ? answer.error_code : response.status;
  const description = typeof answer?.description === 'string' ? `: ${hide(answer.description)}` : '';
  if (PERMANENT_CODES.has(code)) throw new ChannelPermanentError(`Telegram refused sendMessage (${code})${description}`);
  const retryAfter = answer?.parameters?.retry_after;
  const wait = typeof retryAfter === 'number' ? ` (retry after ${retryAfter} s)` : '';
  throw new Error(`Telegram did not take sendMessage (${code})${description}${wait}`);
}
