// How many tokens a model takes in one request (its context window), for deciding when a session's
// conversation must be compacted before a step (activities/turn/compaction.ts). In order of trust:
// the operator's setting for that model (MODEL_CONTEXT_WINDOWS), what the provider's own error said
// when a request was too long (learned by this worker, see errors.ts), what the provider lists
// (OpenRouter's model list, listed-models.ts), a small catalog of the models the docs name, and
// else MODEL_CONTEXT_WINDOW_DEFAULT. A wrong guess costs one refused request:
// the step then compacts and tries again, and the worker keeps the window the error named.
//
// What one provider's error taught is kept for calls with the same credentials only (the operator's, or
// one user's own key or base URL: credential-scope.ts), so a user's own server never sizes another
// user's requests. One error naming less than the window the provider lists or the catalog publishes is
// not believed alone: a second error naming the same window is needed, so that a single odd answer does
// not make every later step of every session on these credentials compact.
import type { ModelRef } from '../../contract/bundle.ts';
import { modelTableKey } from './model-key.ts';
import type { ListedModels } from './listed-models.ts';
import { OPERATOR_CREDENTIALS } from './credential-scope.ts';

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
/** Learned windows kept per worker (credentials times models); the oldest is forgotten first. */
const MAX_LEARNED = 10_000;

interface Learned {
  tokens: number;
  at: number;
  /** Errors that named this window, in a row: two let it stand below the published window. */
  agreeing: number;
}

/** Per worker: the windows learned from providers' errors, each for LEARNED_FOR_MS, per credentials. */
export class ContextWindows {
  private readonly learned = new Map<string, Learned>();

  constructor(
    private readonly settings: ContextWindowSettings,
    /** Per provider, the windows it lists for its models. */
    private readonly listed: Partial<Record<string, Pick<ListedModels, 'windowOf'>>> = {},
    private readonly now: () => number = Date.now,
  ) {}

  /** `credentials`: whose key and base URL the call uses (credential-scope.ts); the operator's unless said. */
  async of(ref: ModelRef, credentials: string = OPERATOR_CREDENTIALS): Promise<ContextWindow> {
    const { overrides } = this.settings;
    const set = overrides[`${ref.providerId}:${ref.modelId}`] ?? overrides[ref.modelId];
    if (set !== undefined) return { tokens: set, source: 'setting' };
    const published = await this.published(ref);
    const learned = this.learned.get(learnedKey(ref, credentials));
    if (learned && this.now() - learned.at < LEARNED_FOR_MS && (learned.agreeing >= 2 || learned.tokens >= (published?.tokens ?? 0))) {
      return { tokens: learned.tokens, source: 'learned' };
    }
    return published ?? { tokens: this.settings.defaultTokens, source: 'default' };
  }

  /**
   * A provider refused a request as too long and named its window (in its own words: errors.ts): believed
   * for a day for calls with the same credentials (unless set), at once when it is not below what the
   * provider lists or the catalog says, else once a second error names the same window. A window under
   * MIN_LEARNED_TOKENS is not believed: one error must not make every later step compact.
   */
  learn(ref: ModelRef, tokens: number, credentials: string = OPERATOR_CREDENTIALS): void {
    if (!Number.isInteger(tokens) || tokens < MIN_LEARNED_TOKENS) return;
    const key = learnedKey(ref, credentials);
    const now = this.now();
    const before = this.learned.get(key);
    const agreeing = before && before.tokens === tokens && now - before.at < LEARNED_FOR_MS ? before.agreeing + 1 : 1;
    // Set anew, so that the Map's order is the order last learned, and the first key the one to forget.
    this.learned.delete(key);
    this.learned.set(key, { tokens, at: now, agreeing });
    if (this.learned.size > MAX_LEARNED) this.learned.delete(this.learned.keys().next().value!);
  }

  /** What the provider lists, else the catalog: the window a single error may not undercut. */
  private async published(ref: ModelRef): Promise<ContextWindow | undefined> {
    const listed = await this.listed[ref.providerId]?.windowOf(ref.modelId);
    if (listed !== undefined) return { tokens: listed, source: 'listed' };
    // An openai-compatible server's "gpt-4o" may be anything: only the providers that serve these models use the catalog.
    const known = ref.providerId === 'openai-compatible' ? undefined : CATALOG[modelTableKey(ref.modelId)];
    return known === undefined ? undefined : { tokens: known, source: 'catalog' };
  }
}

function learnedKey(ref: ModelRef, credentials: string): string {
  return `${credentials}\n${ref.providerId}:${ref.modelId}`;
}
