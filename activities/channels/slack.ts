// The Slack channel: the approval as one bot message (chat.postMessage). Config:
//   token          required; the bot token (xoxb-…), with the chat:write scope
//   channel        required; a channel id (C…) or a user id (U…, a direct message)
//   signingSecret  required when answerVia = reply; the app's signing secret, which authenticates
//                  the Events API requests that carry replies (api/inbound/slack.ts)
// Replies are matched by thread: the message is named `<channel id>:<ts>`, and a reply in its
// thread arrives with that channel and `thread_ts`. Slack answers most failures with HTTP 200 and
// `{ok: false, error}`, so the error code decides whether a retry can help.
import { OutboundAddressRefusedError, OutboundUrlError, type OutboundResponse } from '../../lib/outbound.ts';
import { approvalHeading, approvalText, expiryLine, REPLY_INSTRUCTIONS, REPLY_TOO_INSTRUCTIONS } from './approval-message.ts';
import { numberedOptions } from '../../lib/workflow-safe/approvals.ts';
import {
  ChannelPermanentError,
  type ApprovalMessage,
  type ChannelContext,
  type ChannelProviderImpl,
  type ResolvedChannelConfig,
} from './types.ts';

/** Slack's limits: characters of a section's text and of a button's label. */
const SECTION_CHARS = 3000;
const BUTTON_CHARS = 75;

/** Failures a later attempt may not meet; every other error code is about the token, channel or message. */
const RETRYABLE_ERRORS = new Set([
  'ratelimited',
  'rate_limited',
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
]);

/** Slack reads `&`, `<` and `>` as markup (links, mentions); these three escapes are all it asks for. */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Escaped text in pieces of at most SECTION_CHARS, never splitting an escape or a character. */
function escapedChunks(text: string): string[] {
  const chunks: string[] = [];
  let current = '';
  for (const char of text) {
    const piece = escapeSlack(char);
    if (current.length + piece.length > SECTION_CHARS) {
      chunks.push(current);
      current = '';
    }
    current += piece;
  }
  if (current) chunks.push(current);
  return chunks;
}

function sections(text: string): object[] {
  return escapedChunks(text).map((chunk) => ({ type: 'section', text: { type: 'mrkdwn', text: chunk } }));
}

function context(text: string): object {
  return { type: 'context', elements: [{ type: 'mrkdwn', text: escapeSlack(text) }] };
}

function label(option: string): string {
  return option.length > BUTTON_CHARS ? `${option.slice(0, BUTTON_CHARS - 1)}…` : option;
}

export function slackBlocks(message: ApprovalMessage): object[] {
  const blocks: object[] = [
    { type: 'section', text: { type: 'mrkdwn', text: `*${escapeSlack(approvalHeading(message))}:*` } },
    ...sections(message.question),
    ...sections(numberedOptions(message.options).join('\n')),
  ];
  if (message.answerVia === 'reply') blocks.push(context(REPLY_INSTRUCTIONS));
  else {
    blocks.push({
      type: 'actions',
      elements: message.links.options.map(({ option, url }, index) => ({
        type: 'button',
        action_id: `approval_option_${index + 1}`,
        text: { type: 'plain_text', text: label(option), emoji: false },
        url,
      })),
    });
    if (message.repliesToo) blocks.push(context(REPLY_TOO_INSTRUCTIONS));
  }
  if (message.standing) blocks.push(context(message.standing));
  blocks.push(context(`${expiryLine(message.expiresAt)}.`));
  return blocks;
}

function setting(config: ResolvedChannelConfig, key: string): string {
  const value = config[key];
  if (typeof value !== 'string' || value === '') throw new ChannelPermanentError(`The slack channel has no "${key}"`);
  return value;
}

interface PostMessageAnswer {
  ok?: boolean;
  error?: string;
  channel?: string;
  ts?: string;
}

/** One chat.postMessage call; answers `<channel>:<ts>` of the posted message. */
async function postMessage(config: ResolvedChannelConfig, message: Record<string, unknown>, ctx: ChannelContext): Promise<string | null> {
  const token = setting(config, 'token');
  const url = `${ctx.settings.slackApiBaseUrl.replace(/\/+$/, '')}/chat.postMessage`;
  let response: OutboundResponse;
  try {
    response = await ctx.outbound.request(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json; charset=utf-8' },
      // The links answer the approval: no preview fetches them (the answer page ignores fetchers anyway).
      body: JSON.stringify({ ...message, unfurl_links: false, unfurl_media: false }),
      timeoutMs: ctx.settings.requestTimeoutMs,
      // The answer echoes the whole message; a cut answer could not be read, and the message is posted.
      maxBodyBytes: 1024 * 1024,
    });
  } catch (error) {
    if (error instanceof OutboundUrlError || error instanceof OutboundAddressRefusedError)
      throw new ChannelPermanentError(`The Slack API address is refused: ${error.message}`, { cause: error });
    throw error;
  }
  return readAnswer(response);
}

export const slackProvider: ChannelProviderImpl = {
  provider: 'slack',
  async send(config, message, ctx) {
    const channel = setting(config, 'channel');
    const externalRef = await postMessage(config, { channel, text: escapeSlack(approvalText(message)), blocks: slackBlocks(message) }, ctx);
    return { externalRef };
  },
  async notify(config, externalRef, text, ctx) {
    const colon = externalRef.indexOf(':');
    await postMessage(
      config,
      { channel: externalRef.slice(0, colon), thread_ts: externalRef.slice(colon + 1), text: escapeSlack(text) },
      ctx,
    );
  },
};

function readAnswer(response: OutboundResponse): string | null {
  const { status } = response;
  let answer: PostMessageAnswer | undefined;
  try {
    answer = JSON.parse(response.bodySnippet) as PostMessageAnswer;
  } catch {
    answer = undefined;
  }
  const code = answer?.error ? `: ${answer.error}` : '';
  if (status === 429 || status === 408 || status >= 500) throw new Error(`Slack answered ${status}${code}`);
  if (status < 200 || status >= 300) throw new ChannelPermanentError(`Slack answered ${status}${code}`);
  if (!answer || typeof answer !== 'object') throw new Error(`Slack answered ${status} with a body that is not JSON`);
  if (answer.ok !== true) {
    const error = typeof answer.error === 'string' ? answer.error : 'unknown_error';
    if (RETRYABLE_ERRORS.has(error)) throw new Error(`Slack refused chat.postMessage for now: ${error}`);
    throw new ChannelPermanentError(`Slack refused chat.postMessage: ${error}`);
  }
  // Posted: without a channel and ts replies cannot be matched, but a retry would post it twice.
  return typeof answer.channel === 'string' && typeof answer.ts === 'string' ? `${answer.channel}:${answer.ts}` : null;
}
