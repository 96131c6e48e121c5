// What a model provider's answer may hold, tied to what a step may output (MODEL_STEP_MAX_OUTPUT_*),
// so an operator raising those never has to find these. An event-stream line carries one event: at
// most the step's whole output, doubled for JSON escaping (a provider escaping non-ASCII writes
// \uXXXX for a two-byte character), plus its envelope. The stream carries at most one event per
// output piece (a token at least), each with its envelope (ids, model, indexes: a few hundred bytes).
// An error answer is read whole by the AI SDK to build its error: a provider's is a few hundred bytes,
// a gateway's HTML page a few tens of KiB.
import type { FetchLimits } from '../../lib/response-limits.ts';

const ENVELOPE_BYTES = 64 * 1024;
const PER_PIECE_BYTES = 1024;
export const MAX_ERROR_ANSWER_BYTES = 256 * 1024;

export function modelAnswerLimits(limits: { stepOutputBytes: number; stepOutputTokens: number }): FetchLimits {
  const setting = 'MODEL_STEP_MAX_OUTPUT_BYTES and MODEL_STEP_MAX_OUTPUT_TOKENS';
  return {
    body: {
      what: "The model provider's stream",
      setting,
      maxLineBytes: 2 * limits.stepOutputBytes + ENVELOPE_BYTES,
      maxBytes: 2 * limits.stepOutputBytes + limits.stepOutputTokens * PER_PIECE_BYTES + ENVELOPE_BYTES,
    },
    errorBody: { what: "The model provider's error answer", maxBytes: MAX_ERROR_ANSWER_BYTES },
  };
}
