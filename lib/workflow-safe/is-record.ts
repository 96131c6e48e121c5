// "A plain JSON object" (not null, not an array), as every parser of untrusted input here means it.
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
