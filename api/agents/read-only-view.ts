// What a key without `agents:write` sees of an agent. `read` reads, and nothing more: a webhook
// trigger's URL fires the agent (it spends money and runs tools), and a channel's config holds the
// addresses and settings that reach its owner. Such a key sees that they exist: each trigger without its
// URL (or its suffix, which is the URL's secret), each channel with its settings' names but no values.
import type { Bundle } from '../../lib/bundle/index.ts';
import type { Principal } from '../../store/api-keys.ts';
import type { TriggerView } from '../triggers/urls.ts';

/** The value that stands in for every hidden one. */
export const HIDDEN = '[hidden: needs agents:write]';

export function mayReadCapabilities(principal: Pick<Principal, 'scopes'>): boolean {
  return principal.scopes.includes('agents:write');
}

export function readOnlyBundle(bundle: Bundle): Bundle {
  return {
    ...bundle,
    triggers: bundle.triggers.map((trigger) => {
      if (trigger.kind !== 'webhook') return trigger;
      const { suffix: _suffix, ...rest } = trigger;
      return rest;
    }),
    userChannels: bundle.userChannels.map((channel) => ({
      ...channel,
      config: Object.fromEntries(Object.keys(channel.config).map((key) => [key, HIDDEN])),
    })),
  };
}

export function readOnlyTriggers(triggers: readonly TriggerView[]): TriggerView[] {
  return triggers.map(({ url: _url, ...rest }) => rest);
}
