// What prompt caching saves a long conversation: 30 turns of one session whose agent has long
// instructions and a tool, on `anthropic` (claude-sonnet-4-5's prices), against the fake Messages API
// serving the cache as the provider documents it (test/helpers/fakes/fake-anthropic.ts: a prefix up to
// a marked block is written, a later request reads the longest cached prefix ending at or up to 20
// blocks before one of its marks, nothing under 1,024 tokens is cached). Without caching every input
// token is billed at the input price; with it, a cache read at 0.1× and a write at 1.25×. The figure
// is what the turns' input costs with caching as a fraction of what it costs without.
import http from 'node:http';
import type { Benchmark } from './benchmark.ts';
import { startAgentStack } from './agent-stack.ts';
import { startFakeAnthropic } from '../test/helpers/fakes/fake-anthropic.ts';
import type { SessionEvent, TokenUsage } from '../contract/events.ts';

const TURNS = 30;
/** About 6,000 tokens of instructions, as a support agent's policy might be. */
const INSTRUCTIONS = Array.from(
  { length: 300 },
  (_, index) => `Rule ${index + 1}: answer the customer's question about order handling step ${index + 1} plainly and briefly.`,
).join('\n');
const MODEL = { providerId: 'anthropic', modelId: 'claude-sonnet-4-5' };
/** claude-sonnet-4-5, per million tokens. */
const PRICE = { input: 3, output: 15 };

const round = (value: number, digits = 4) => Math.round(value * 10 ** digits) / 10 ** digits;

const promptCaching: Benchmark = {
  name: 'prompt-caching',
  description: `${TURNS} turns of one session with ~6,000 tokens of instructions on anthropic against a fake that serves the prompt cache: input billed with caching / without`,
  needs: ['postgres', 'temporal'],
  async run({ infra, log }) {
    const fake = await startFakeAnthropic({
      cache: true,
      defaultScript: { text: 'Here is a short answer about your order, in two sentences. Anything else?' },
    });
    const stack = await startAgentStack(infra, log, {
      // The operator's key is the bench's only tenant: the cache's counts are shown (docs/models.md, Caching and cost).
      env: { ANTHROPIC_BASE_URL: fake.baseUrl, ANTHROPIC_API_KEY: 'bench-key', SHARED_CACHE_COUNTS: 'true' },
    });
    const agent = new http.Agent({ keepAlive: true });
    try {
      const name = await stack.deployAgent({ model: MODEL, instructions: INSTRUCTIONS, mcps: ['time'] });
      const sessionId = await stack.newSession(name);
      log(`${TURNS} turns`);
      for (let turn = 1; turn <= TURNS; turn++) await stack.send(agent, sessionId, `Question ${turn}: where is order A-${turn}?`);

      const events = await sessionEvents(stack.url, stack.headers, sessionId);
      const turns = events.filter((event): event is Extract<SessionEvent, { type: 'turn.completed' }> => event.type === 'turn.completed');
      const sum = (pick: (usage: TokenUsage) => number | undefined) => turns.reduce((total, turn) => total + (pick(turn.usage) ?? 0), 0);
      const input = sum((usage) => usage.inputTokens);
      const read = sum((usage) => usage.cacheReadTokens);
      const written = sum((usage) => usage.cacheWriteTokens);
      const output = sum((usage) => usage.outputTokens);
      const costUsd = turns.reduce((total, turn) => total + (turn.costUsd ?? 0), 0);
      // Input billed at the full input price: every token without caching; with it, reads at 0.1×, writes at 1.25×.
      const billedWithout = input;
      const billedWith = input - read - written + 0.1 * read + 1.25 * written;
      const costWithoutUsd = (input * PRICE.input + output * PRICE.output) / 1e6;
      return {
        turns: turns.length,
        method:
          'one session, waiting sends one after another; tokens from each turn.completed usage (the fake counts 4 characters a token); ' +
          'billed input in full-price tokens: without caching every input token, with it uncached + 0.1 × read + 1.25 × written',
        instructionsChars: INSTRUCTIONS.length,
        inputTokens: input,
        cacheReadTokens: read,
        cacheWriteTokens: written,
        outputTokens: output,
        billedInputWithout: billedWithout,
        billedInputWith: round(billedWith, 1),
        ratio: round(billedWith / billedWithout),
        costUsd: { with: round(costUsd, 6), without: round(costWithoutUsd, 6), ratio: round(costUsd / costWithoutUsd) },
      };
    } finally {
      agent.destroy();
      await stack.close();
      await fake.close();
    }
  },
};

async function sessionEvents(url: string, headers: http.OutgoingHttpHeaders, sessionId: string): Promise<SessionEvent[]> {
  const all: SessionEvent[] = [];
  for (let after: number | null = 0; after !== null;) {
    const response = await fetch(`${url}/session/${sessionId}/events?after=${after}&limit=1000`, {
      headers: headers as Record<string, string>,
    });
    const page = (await response.json()) as { events: SessionEvent[]; next: number | null };
    all.push(...page.events);
    after = page.next;
  }
  return all;
}

export default promptCaching;
