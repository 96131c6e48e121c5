// A `read` key reads, and nothing more: what acts without a key (a webhook trigger's URL, which fires
// the agent, and a channel's config, which reaches its owner) is shown only to keys with agents:write.
// A read key sees that they exist.
import { expect } from 'vitest';
import { apiTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';

const test = apiTest();

const BUNDLE = {
  name: 'read-scope-agent',
  model: { providerId: 'openai-compatible', modelId: 'fake-model' },
  triggers: [{ kind: 'webhook', suffix: 'release-hook-7f3k2m9q' }, { kind: 'webhook' }, { kind: 'cron', expression: '0 9 * * 1' }],
  userChannels: [{ provider: 'webhook', config: { url: 'https://hooks.example.com/approvals/team-42' } }],
};

interface AgentBody {
  bundle: { triggers: Array<{ kind: string; suffix?: string }>; userChannels: Array<{ config: Record<string, unknown> }> };
  triggers: Array<{ kind: string; url?: string }>;
}

test("a read key sees an agent's triggers and channels exist, but not their URLs and settings", async ({ api, user }) => {
  const deployed = await call<{ ok: boolean }>(`${api.url}/deploy`, { headers: user.auth, json: BUNDLE });
  expect(deployed.body.ok).toBe(true);
  const minted = await call<{ key: string }>(`${api.url}/key`, { headers: user.auth, json: { name: 'dashboard', scopes: ['read'] } });
  const reader = { authorization: `Bearer ${minted.body.key}` };

  const full = await call<AgentBody>(`${api.url}/agent/${BUNDLE.name}`, { headers: user.auth });
  const urls = full.body.triggers.flatMap((trigger) => (trigger.url ? [trigger.url] : []));
  expect(urls).toHaveLength(2);
  expect(full.body.bundle.userChannels[0]!.config.url).toBe('https://hooks.example.com/approvals/team-42');

  for (const path of [`/agent/${BUNDLE.name}`, `/agent/${BUNDLE.name}/revisions/1`]) {
    const seen = await call<AgentBody>(`${api.url}${path}`, { headers: reader });
    expect(seen.status, path).toBe(200);
    const text = seen.text;
    for (const secret of [...urls, 'release-hook-7f3k2m9q', 'hooks.example.com']) expect(text, path).not.toContain(secret);
    expect(seen.body.bundle.triggers.map((trigger) => trigger.kind)).toEqual(['webhook', 'webhook', 'cron']);
    expect(seen.body.bundle.userChannels[0]!.config).toEqual({ url: '[hidden: needs agents:write]' });
    if (seen.body.triggers)
      expect(seen.body.triggers.map((trigger) => [trigger.kind, trigger.url])).toEqual([
        ['webhook', undefined],
        ['webhook', undefined],
        ['cron', undefined],
      ]);
  }
});
