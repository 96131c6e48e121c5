// The inbound parser of every channel provider, so POST /inbound/<provider> finds one by name and
// a new provider cannot be forgotten (the Record has a key per provider).
import type { ChannelProvider } from '../../contract/bundle.ts';
import { emailInboundParser } from './email.ts';
import { slackInboundParser } from './slack.ts';
import { telegramInboundParser } from './telegram.ts';
import type { InboundParser } from './types.ts';
import { webhookInboundParser } from './webhook.ts';

export type { InboundLookup, InboundParse, InboundParser, InboundRequest } from './types.ts';

export const inboundParsers: Record<ChannelProvider, InboundParser> = {
  webhook: webhookInboundParser,
  slack: slackInboundParser,
  telegram: telegramInboundParser,
  email: emailInboundParser,
};
