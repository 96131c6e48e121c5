// Webhook trigger URLs: /trigger/<userId>/<agentId>/<suffix>. The URL is the secret, so a trigger
// without a `suffix` in its bundle gets one derived from the master key, the agent id and the
// trigger's position: unguessable, stable across redeploys, and stored nowhere. A rotated master key
// changes the URL shown; the old one keeps working while its key is listed in SERVICE_MASTER_KEY_PREVIOUS.
import { hmacSha256, safeEqual } from '../../lib/crypto.ts';
import type { MasterKey } from '../../lib/master-key.ts';
import { ALPHABET } from '../../lib/ids.ts';
import type { Trigger } from '../../lib/bundle/index.ts';
import { scheduleId } from '../../lib/workflow-safe/workflow-ids.ts';

export function generatedSuffix(masterKey: MasterKey, agentId: string, index: number): string {
  const digest = hmacSha256(masterKey.derive('trigger-suffix-v1'), `${agentId}:${index}`);
  let out = '';
  for (let i = 0; i < 26; i++) out += ALPHABET[digest[i]! & 31];
  return out;
}

/**
 * Whether `suffix` opens the webhook trigger at `index`: its own suffix, or one generated under any of
 * `keys` (the current master key, then previous ones), so URLs handed out before a rotation still fire.
 */
export function suffixOpens(trigger: Trigger, keys: readonly MasterKey[], agentId: string, index: number, suffix: string): boolean {
  if (trigger.kind !== 'webhook') return false;
  if (trigger.suffix !== undefined) return safeEqual(trigger.suffix, suffix);
  return keys.some((key) => safeEqual(generatedSuffix(key, agentId, index), suffix));
}

export interface TriggerView {
  kind: Trigger['kind'];
  url?: string;
  expression?: string;
  timezone?: string;
  workflow?: string;
  scheduleId?: string;
  /** Cron triggers, when Temporal could say (api/triggers/next-firings.ts). */
  paused?: boolean;
  nextFireTimes?: string[];
}

export function describeTriggers(
  triggers: readonly Trigger[],
  ids: { userId: string; agentId: string },
  masterKey: MasterKey,
  baseUrl: string,
): TriggerView[] {
  return triggers.map((trigger, index) => {
    const workflow = trigger.workflow ? { workflow: trigger.workflow } : {};
    if (trigger.kind === 'cron') {
      return {
        kind: 'cron',
        expression: trigger.expression,
        timezone: trigger.timezone ?? 'UTC',
        scheduleId: scheduleId(ids.agentId, index),
        ...workflow,
      };
    }
    const suffix = trigger.suffix ?? generatedSuffix(masterKey, ids.agentId, index);
    return { kind: 'webhook', url: `${baseUrl}/trigger/${ids.userId}/${ids.agentId}/${suffix}`, ...workflow };
  });
}
