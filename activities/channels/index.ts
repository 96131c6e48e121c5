// Every approval channel provider by name, so the dispatch activity looks one up from the bundle's
// `provider` field and a new provider cannot be forgotten (the Record has a key per provider).
import type { ChannelProvider } from '../../contract/bundle.ts';
import { emailProvider } from './email.ts';
import { slackProvider } from './slack.ts';
import { telegramProvider } from './telegram.ts';
import type { ChannelProviderImpl } from './types.ts';
import { webhookProvider } from './webhook.ts';

export const channelProviders: Record<ChannelProvider, ChannelProviderImpl> = {
  webhook: webhookProvider,
  slack: slackProvider,
  telegram: telegramProvider,
  email: emailProvider,
};
