// OpenRouter's model list as a source of context windows and prices: read once per TTL (the first read
// waited for, later ones in the background), and a list that cannot be read is not asked for again at once.
import { describe, expect, it, vi } from 'vitest';
import { ListedModels } from '../../activities/model/listed-models.ts';

const LIST = {
  data: [
    { id: 'anthropic/claude-sonnet-4.5', context_length: 1_000_000, pricing: { prompt: '0.000003', completion: '0.000015' } },
    { id: 'acme/small:free', context_length: 8_192, pricing: { prompt: '0', completion: '0' } },
    { id: 'acme/priceless', context_length: 4_096, pricing: { prompt: 'call us', completion: '0.1' } },
    { id: 'acme/unsized' },
    { id: 'acme/odd', context_length: 'big' },
  ],
};

function listServer(answers: Array<() => Response>) {
  const asked: string[] = [];
  const fetch = (async (input: string | URL | Request) => {
    asked.push(String(input));
    const answer = answers[Math.min(asked.length, answers.length) - 1]!;
    return answer();
  }) as typeof globalThis.fetch;
  return { fetch, asked };
}

describe('ListedModels', () => {
  it("reads each model's price per million tokens from its per-token pricing, none when unreadable", async () => {
    const server = listServer([() => Response.json(LIST)]);
    const models = new ListedModels('https://models.example/api/v1/models', server.fetch);
    expect(await models.priceOf('anthropic/claude-sonnet-4.5')).toEqual({ inputPerMillion: 3, outputPerMillion: 15 });
    expect(await models.priceOf('~acme/small:free')).toEqual({ inputPerMillion: 0, outputPerMillion: 0 });
    expect(await models.priceOf('acme/priceless')).toBeUndefined();
    expect(await models.priceOf('acme/unsized')).toBeUndefined();
    expect(server.asked).toHaveLength(1);
  });

  it('reads the list once and answers each listed model from it', async () => {
    const server = listServer([() => Response.json(LIST)]);
    const windows = new ListedModels('https://models.example/api/v1/models', server.fetch);
    const [sonnet, small] = await Promise.all([windows.windowOf('anthropic/claude-sonnet-4.5'), windows.windowOf('~acme/small:free')]);
    expect([sonnet, small]).toEqual([1_000_000, 8_192]);
    expect(await windows.windowOf('acme/unsized')).toBeUndefined();
    expect(await windows.windowOf('acme/odd')).toBeUndefined();
    expect(server.asked).toEqual(['https://models.example/api/v1/models']);
  });

  it('after a failed read, asks again only ten minutes later; the list is read again after six hours', async () => {
    let now = 0;
    const server = listServer([() => new Response('busy', { status: 503 }), () => Response.json(LIST)]);
    const windows = new ListedModels('https://models.example/models', server.fetch, () => now);
    expect(await windows.windowOf('acme/small:free')).toBeUndefined();
    now += 5 * 60_000;
    expect(await windows.windowOf('acme/small:free')).toBeUndefined();
    expect(server.asked).toHaveLength(1);
    now += 6 * 60_000;
    // The retry runs in the background: this call answers from what there is (nothing), a later one from the list.
    expect(await windows.windowOf('acme/small:free')).toBeUndefined();
    await vi.waitFor(async () => expect(await windows.windowOf('acme/small:free')).toBe(8_192));
    expect(server.asked).toHaveLength(2);
    now += 5 * 60 * 60_000;
    await windows.windowOf('acme/small:free');
    expect(server.asked).toHaveLength(2);
    now += 2 * 60 * 60_000;
    await windows.windowOf('acme/small:free');
    expect(server.asked).toHaveLength(3);
  });
});
