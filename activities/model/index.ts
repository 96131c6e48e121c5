// What a turn's model step needs: the model, its prompt and history, and what to make of errors and usage.
export { InvalidBaseUrlError, MissingApiKeyError, MissingBaseUrlError, ModelConfigError, UnknownProviderError } from './config-errors.ts';
export { classifyModelError, type ModelErrorClassification, type ModelErrorContext } from './errors.ts';
export { MISSING_TOOL_RESULT, fileUrls, toModelMessages, type HistoryOptions, type ResolvedFile } from './history.ts';
export { PRICES_CHECKED_ON, costUsd, type UsageForCost } from './pricing.ts';
export {
  DEFAULT_BASE_URLS,
  credentialSecretNames,
  isProviderId,
  languageModel,
  providerCredentials,
  type ProviderCredentials,
} from './providers.ts';
export { systemPrompt } from './system-prompt.ts';
