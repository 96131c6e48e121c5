// The contract every approval channel provider honours. A provider turns one approval into one
// message on its service (Slack, Telegram, email, a webhook receiver) and says how that service
// will refer to the message, so a reply in its thread can be matched back (see api/routes/inbound.ts).
import type { OutboundClient } from '../../lib/outbound.ts';
import type { ApprovalLinks } from '../../lib/approval-token.ts';
import type { ChannelProvider } from '../../contract/bundle.ts';
import type { ChannelSettings } from '../../lib/config.ts';

/** A channel's config with every `{{secrets.KEY}}` replaced by the secret's value. */
export type ResolvedChannelConfig = Record<string, string | number | boolean>;

/** What the person is asked, and every way they can answer. */
export interface ApprovalMessage {
  approvalId: string;
  question: string;
  options: string[];
  expiresAt: string;
  /** The asking agent's name, when an agent asked. */
  agentName?: string;
  sessionId?: string;
  answerVia: 'reply' | 'signed-url';
  /**
   * With signed-url: a reply in the thread answers too (an approver's own message in a chat, where
   * the reply's sender says who answered). Buttons stay the way to answer in one click.
   */
  repliesToo?: boolean;
  /** Signed one-click links (always present: a reply channel may still show the answer page). */
  links: ApprovalLinks;
  /** The signed token the links carry; email's reply address embeds it. */
  token: string;
  /** Where inbound replies are posted: `${publicBaseUrl}/inbound/<provider>`. */
  publicBaseUrl: string;
  /** Of an approval several approvers decide: where it stands ("1 of 2 approve; waiting on bob"). */
  standing?: string;
}

export interface ChannelContext {
  outbound: OutboundClient;
  settings: ChannelSettings;
}

export interface SendResult {
  /** How the provider names the sent message, for reply matching; null when replies cannot be matched by thread. */
  externalRef: string | null;
}

/**
 * A failure worth no retry (the provider refused the credentials or the request, the config is
 * unusable): the dispatch is recorded as failed at once. Any other error is retried.
 */
export class ChannelPermanentError extends Error {
  override name = 'ChannelPermanentError';
}

export interface ChannelProviderImpl {
  provider: ChannelProvider;
  send(config: ResolvedChannelConfig, message: ApprovalMessage, context: ChannelContext): Promise<SendResult>;
  /**
   * A short note in the thread of a sent question (`externalRef`): the answer that was recorded, or
   * why a reply was not taken. Chat providers have threads; the others have no such thing.
   */
  notify?(config: ResolvedChannelConfig, externalRef: string, text: string, context: ChannelContext): Promise<void>;
}
