// The webhook channel: the approval as one signed JSON POST to a receiver the user runs, for
// channels we do not speak ourselves. Config:
//   url     required; the receiver, http(s)
//   secret  optional, required when answerVia = reply; a `whsec_` secret: our POST carries Standard
//           Webhooks signature headers under it, and replies posted to /inbound/webhook must be
//           signed with it (api/inbound/webhook.ts)
// Body: {type: 'approval.requested', approval: {id, question, options, expiresAt, agentName?,
// sessionId?}, links: {page, options: [{option, url}]}, reply?: {url, approvalId}}; `reply` only
// when answerVia = reply. A 2xx is sent; a 4xx other than 408 and 429 will not change on a retry.
import { SERVICE_VERSION } from '../../lib/version.ts';
import { OutboundAddressRefusedError, OutboundUrlError, type OutboundResponse } from '../../lib/outbound.ts';
import { signWebhook } from '../../lib/webhook-signature.ts';
import { ChannelPermanentError, type ChannelProviderImpl, type ResolvedChannelConfig } from './types.ts';

function setting(config: ResolvedChannelConfig, key: string): string | undefined {
  const value = config[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export const webhookProvider: ChannelProviderImpl = {
  provider: 'webhook',
  async send(config, message, context) {
    const url = setting(config, 'url');
    if (!url) throw new ChannelPermanentError('The webhook channel has no "url"');
    const secret = setting(config, 'secret');
    if (message.answerVia === 'reply' && !secret)
      throw new ChannelPermanentError('A webhook channel answered by reply needs a "secret" to authenticate the replies');

    const body = JSON.stringify({
      type: 'approval.requested',
      approval: {
        id: message.approvalId,
        question: message.question,
        options: message.options,
        expiresAt: message.expiresAt,
        agentName: message.agentName,
        sessionId: message.sessionId,
      },
      links: message.links,
      reply:
        message.answerVia === 'reply'
          ? { url: `${message.publicBaseUrl.replace(/\/+$/, '')}/inbound/webhook`, approvalId: message.approvalId }
          : undefined,
    });
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': `agent-service-approvals/${SERVICE_VERSION}`,
    };
    if (secret) {
      try {
        Object.assign(headers, signWebhook(secret, message.approvalId, Math.floor(Date.now() / 1000), body));
      } catch (error) {
        throw new ChannelPermanentError(`The webhook channel's "secret" is unusable: ${(error as Error).message}`);
      }
    }

    let response: OutboundResponse;
    try {
      response = await context.outbound.request(url, { method: 'POST', headers, body, timeoutMs: context.settings.requestTimeoutMs });
    } catch (error) {
      // A URL the guard refuses stays refused; a timeout or a reset may pass next time.
      if (error instanceof OutboundUrlError || error instanceof OutboundAddressRefusedError)
        throw new ChannelPermanentError(`The webhook channel's url is refused: ${error.message}`, { cause: error });
      throw error;
    }
    const { status } = response;
    if (status >= 200 && status < 300) return { externalRef: null };
    if (status >= 400 && status < 500 && status !== 408 && status !== 429)
      throw new ChannelPermanentError(`The webhook receiver answered ${status}`);
    throw new Error(`The webhook receiver answered ${status}`);
  },
};
