// How many tokens a model takes in one request (its context window), for deciding when a session's
// conversation must be compacted before a step (activities/turn/compaction.ts). In order of trust:
// the operator's setting for that model (MODEL_CONTEXT_WINDOWS), what the provider's own error said
// when a request was too long (learned by this worker, see errors.ts), what the provider lists
// (OpenRouter's model list, listed-windows.ts), a small catalog of the models the docs name, and
// else MODEL_CONTEXT_WINDOW_DEFAULT. A wrong guess costs one refused request:
// the step then compacts and tries again, and the worker keeps the window the error named.
import type { ModelRef } from '../../contract/bundle.ts';
import { modelTableKey } from './model-key.ts';
import type { ListedWindows } from './listed-windows.ts';

/** Published input windows, in tokens, keyed as the price table is (model-key.ts). Checked on 2025-11-01. */
const CATALOG: Record<string, number> = {
  // The GPT-5 models' 400,000 tokens are input and output together; a request may send 272,000.
  'gpt-5': 272_000,
  'gpt-5-mini': 272_000,
  'gpt-5-nano': 272_000,
  'gpt-4-1': 1_047_576,
  'gpt-4-1-mini': 1_047_576,
  'gpt-4-1-nano': 1_047_576,
  'gpt-4o': 128_000,
  'gpt-4o-mini': 128_000,
  o3: 200_000,
  'o4-mini': 200_000,
  'claude-opus-4-1': 200_000,
  'claude-opus-4': 200_000,
  'claude-sonnet-4-5': 200_000,
  'claude-sonnet-4': 200_000,
  'claude-3-7-sonnet': 200_000,
  'claude-haiku-4-5': 200_000,
  'claude-3-5-haiku': 200_000,
};

export interface ContextWindowSettings {
  /** MODEL_CONTEXT_WINDOWS: `providerId:modelId` or a bare `modelId`, to tokens. */
  overrides: Record<string, number>;
  /** For a model none of the above knows. */
  defaultTokens: number;
}

export interface ContextWindow {
  tokens: number;
  source: 'setting' | 'learned' | 'listed' | 'catalog' | 'default';
}

/** The smallest window a provider's error is believed to name. */
export const MIN_LEARNED_TOKENS = 1_000;
/** How long a learned window is believed (a provider may raise a model's window). */
const LEARNED_FOR_MS = 24 * 60 * 60_000;

/** Per worker: the windows learned from providers' errors, each for LEARNED_FOR_MS. */
export class ContextWindows {
  private readonly learned = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly settings: ContextWindowSettings,
    /** Per provider, the windows it lists for its models. */
    private readonly listed: Partial<Record<string, Pick<ListedWindows, 'of'>>> = {},
    private readonly now: () => number = Date.now,
  ) {}

  async of(ref: ModelRef): Promise<ContextWindow> {
    const { overrides } = this.settings;
    const set = overrides[`${ref.providerId}:${ref.modelId}`] ?? overrides[ref.modelId];
    if (set !== undefined) return { tokens: set, source: 'setting' };
    const learned = this.learned.get(learnedKey(ref));
    if (learned && this.now() - learned.at < LEARNED_FOR_MS) return { tokens: learned.tokens, source: 'learned' };
    const listed = await this.listed[ref.providerId]?.of(ref.modelId);
    if (listed !== undefined) return { tokens: listed, source: 'listed' };
    // An openai-compatible server's "gpt-4o" may be anything: only the providers that serve these models use the catalog.
    const known = ref.providerId === 'openai-compatible' ? undefined : CATALOG[modelTableKey(ref.modelId)];
    if (known !== undefined) return { tokens: known, source: 'catalog' };
    return { tokens: this.settings.defaultTokens, source: 'default' };
  }

  /**
   * A provider refused a request as too long and named its window: believed for a day (unless set). The
   * caller passes only what the operator's provider said (never a server a user chose), and a window
   * under MIN_LEARNED_TOKENS is not believed: one error must not make every later step compact.
   */
  learn(ref: ModelRef, tokens: number): void {
    if (Number.isInteger(tokens) && tokens >= MIN_LEARNED_TOKENS) this.learned.set(learnedKey(ref), { tokens, at: this.now() });
  }
}

function learnedKey(ref: ModelRef): string {
  return `${ref.providerId}:${ref.modelId}`;
}
