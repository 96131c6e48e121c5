// How a model id is looked up in the service's small per-model tables (prices, context windows):
// `anthropic/claude-sonnet-4.5` and `claude-sonnet-4-5-20250929` both become `claude-sonnet-4-5`.
// Variants such as OpenRouter's `:free` keep their suffix and so match nothing.
export function modelTableKey(modelId: string): string {
  const name = modelId.replace(/^~/, '').split('/').pop() ?? modelId;
  return name
    .toLowerCase()
    .replace(/\./g, '-')
    .replace(/-(\d{8}|\d{4}-\d{2}-\d{2}|latest)$/, '');
}
