// The rules of budgets alone: when a call may run (room, spent, or held by running calls), what it is
// held at, and what an attempt that left no message is charged; and the operator's price settings.
import { describe, expect, it } from 'vitest';
import { admission, endedAttemptCharge, holdAmounts, type Budgets } from '../../../core/budget-holds.ts';
import { parseModelPrice } from '../../../lib/model-prices.ts';
import { sendModelAllowed } from '../../../api/sessions/send-model.ts';
import { loadConfig } from '../../../lib/config.ts';

const month = '2026-11';
const state = (monthlyUsd: number, spentUsd: number, heldUsd = 0) => ({ monthlyUsd, spentUsd, heldUsd });

describe('admission', () => {
  it('admits while every budget has room, counting what running calls hold', () => {
    expect(admission({ month }, 'usr_1')).toEqual({ verdict: 'room' });
    expect(admission({ month, user: state(1, 0.5, 0.49) }, 'usr_1')).toEqual({ verdict: 'room' });
    const held = admission({ month, user: state(1, 0.5, 0.5) }, 'usr_1');
    expect(held).toMatchObject({ verdict: 'held', message: expect.stringContaining('USD 0.5000 of what is left of your monthly budget') });
  });

  it("names the agent's budget first, then the user's, once spent", () => {
    const both: Budgets = { month, user: state(1, 1), agent: { name: 'a', ...state(2, 2) } };
    expect(admission(both, 'usr_1')).toMatchObject({
      verdict: 'spent',
      message: expect.stringMatching(/^The monthly budget of agent "a"/),
    });
    const user: Budgets = { month, user: state(1, 1.2), agent: { name: 'a', ...state(5, 1.2) } };
    expect(admission(user, 'usr_1')).toMatchObject({
      verdict: 'spent',
      message: expect.stringMatching(/^Your monthly budget is spent: USD 1\.2000 of USD 1\.0000 in 2026-11 \(UTC\)\. .*usr_1/),
    });
  });

  it('the budgets of the agents that called a child session apply to its calls: spent, or held full, by name', () => {
    const spent: Budgets = { month, agent: { name: 'child', ...state(5, 1) }, callers: [{ name: 'boss', ...state(1, 1.5) }] };
    expect(admission(spent, 'u')).toMatchObject({
      verdict: 'spent',
      message: expect.stringMatching(
        /^The monthly budget of agent "boss", which called this one, is spent: USD 1\.5000 of USD 1\.0000 .*PUT \/agent\/boss\/budget$/,
      ),
    });
    const held: Budgets = {
      month,
      callers: [
        { name: 'lead', ...state(10, 1) },
        { name: 'boss', ...state(1, 0.5, 0.5) },
      ],
    };
    expect(admission(held, 'u')).toMatchObject({ verdict: 'held', message: expect.stringContaining(`agent "boss"'s monthly budget`) });
    expect(admission({ month, callers: [{ name: 'boss', ...state(1, 0.5, 0.4) }] }, 'u')).toEqual({ verdict: 'room' });
  });

  it('a spent budget wins over one held full', () => {
    expect(admission({ month, user: state(1, 1, 5), agent: { name: 'a', ...state(5, 1, 5) } }, 'u').verdict).toBe('spent');
  });
});

describe('holds and charges', () => {
  const price = { inputPerMillion: 3, outputPerMillion: 15 };
  it('holds the input and the most output; charges an ended attempt its input and what it wrote, or nothing', () => {
    const amounts = holdAmounts(price, 10_000, 4_096);
    expect(amounts).toEqual({ inputUsd: 0.03, reservedUsd: 0.03 + 0.06144 });
    expect(endedAttemptCharge(price, amounts, { providerAnswered: true, outputTokens: 100 })).toBe(0.0315);
    expect(endedAttemptCharge(price, amounts, { providerAnswered: false, outputTokens: 0 })).toBe(0);
  });
});

describe('price settings', () => {
  it('parses input/output[/cached] per million tokens, and refuses anything else by name', () => {
    expect(parseModelPrice('0.6/2.4', 'X')).toEqual({ inputPerMillion: 0.6, outputPerMillion: 2.4, cachedInputPerMillion: 0.6 });
    expect(parseModelPrice('1/2/0.1', 'X').cachedInputPerMillion).toBe(0.1);
    for (const bad of ['1', '1/2/3/4', 'a/b', '-1/2']) expect(() => parseModelPrice(bad, 'X')).toThrow(/^X must be "input\/output"/);
    const config = loadConfig({
      MODEL_PRICES: 'openai-compatible:llama=0.6/0.6,anthropic/claude-x=3/15',
      UNPRICED_MODEL_PRICE: '15/75',
      SEND_MODELS: 'openai:gpt-5*, anthropic:claude-sonnet-4',
    });
    expect(Object.keys(config.pricing.modelPrices)).toEqual(['openai-compatible:llama', 'anthropic/claude-x']);
    expect(config.pricing.unpricedModelPrice).toMatchObject({ inputPerMillion: 15, outputPerMillion: 75 });
    expect(config.pricing.sendModels).toEqual(['openai:gpt-5*', 'anthropic:claude-sonnet-4']);
    expect(() => loadConfig({ MODEL_PRICES: 'gpt-5=cheap' })).toThrow(/MODEL_PRICES: gpt-5 must be/);
    expect(loadConfig({ SEND_MODELS: 'none' }).pricing.sendModels).toEqual([]);
    expect(loadConfig({}).pricing).toEqual({ modelPrices: {}, unpricedModelPrice: undefined, sendModels: undefined });
  });

  it('lets a send choose a listed model, a prefix with *, any when unset, none when empty', () => {
    const allowed = ['openai:gpt-5*', 'claude-sonnet-4'];
    expect(sendModelAllowed(allowed, { providerId: 'openai', modelId: 'gpt-5-mini' })).toBe(true);
    expect(sendModelAllowed(allowed, { providerId: 'openrouter', modelId: 'gpt-5' })).toBe(false);
    expect(sendModelAllowed(allowed, { providerId: 'anthropic', modelId: 'claude-sonnet-4' })).toBe(true);
    expect(sendModelAllowed(allowed, { providerId: 'anthropic', modelId: 'claude-opus-4' })).toBe(false);
    expect(sendModelAllowed(undefined, { providerId: 'openai', modelId: 'o1' })).toBe(true);
    expect(sendModelAllowed([], { providerId: 'openai', modelId: 'gpt-5' })).toBe(false);
  });
});
