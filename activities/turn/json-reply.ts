// Structured replies (`jsonReply`): the reply that ends a turn must be JSON valid against the agent's
// schema. The text is read leniently (surrounding whitespace, a ```json fence the model added), the
// bundle's `defaults` fill absent properties, then the schema decides. What is wrong is said in words
// the model can act on, since they are fed back to it for another attempt.
import type { JsonReply } from '../../contract/bundle.ts';
import type { SchemaChecks } from '../tools/schema-checks.ts';

const MAX_ERRORS = 10;

export type JsonReplyCheck = { ok: true; json: unknown } | { ok: false; errors: string[] };

/** The JSON inside a reply: the whole text, or the body of a single fenced code block. */
function jsonText(reply: string): string {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n?```\s*$/i.exec(reply);
  return (fenced ? fenced[1]! : reply).trim();
}

/** Checks a reply against the tenant's schema, off the event loop and within SCHEMA_CHECK_TIMEOUT_MS (schema-checks.ts). */
export async function checkJsonReply(checks: SchemaChecks, jsonReply: JsonReply, reply: string): Promise<JsonReplyCheck> {
  let value: unknown;
  try {
    value = JSON.parse(jsonText(reply));
  } catch (error) {
    return { ok: false, errors: [`The reply is not JSON (${(error as Error).message}). Reply with the JSON value only.`] };
  }
  if (jsonReply.defaults && typeof value === 'object' && value !== null && !Array.isArray(value)) {
    value = { ...jsonReply.defaults, ...(value as Record<string, unknown>) };
  }
  const verdict = await checks.check(jsonReply.schema, value, 'the reply');
  if (verdict.valid) return { ok: true, json: value };
  // A schema too costly for this reply is said so: a smaller reply may pass, and the retries end it otherwise.
  return { ok: false, errors: 'unusable' in verdict ? [verdict.unusable] : verdict.errors.slice(0, MAX_ERRORS) };
}

/** What the system prompt adds for an agent whose replies must be structured. */
export function jsonReplyInstructions(jsonReply: JsonReply): string {
  return (
    '# Reply format\n\nYour final reply (the one without tool calls) must be a single JSON value, and nothing else, valid against ' +
    `this JSON Schema:\n\n${JSON.stringify(jsonReply.schema)}`
  );
}

/** The note the model reads after an invalid reply. */
export function jsonReplyFeedback(errors: readonly string[], attemptsLeft: number): string {
  return (
    `Your reply does not match the required JSON Schema:\n${errors.map((error) => `- ${error}`).join('\n')}\n\n` +
    `Reply again with only the corrected JSON value (${attemptsLeft} attempt${attemptsLeft === 1 ? '' : 's'} left).`
  );
}
