// The published JSON Schema of an agent bundle (draft 2020-12, as OpenAPI 3.1 uses): what editors,
// the CLI and the dashboard validate a bundle with before deploying it; the service checks the same.
import bundleSchema from '../schema/bundle.schema.json' with { type: 'json' };

export const BUNDLE_SCHEMA: Readonly<Record<string, unknown>> = deepFreeze(bundleSchema);

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
