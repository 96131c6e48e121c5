// Grading one eval case: what the candidate did (its reply, JSON reply, tool calls, cost and latency)
// against the case's expectations and the run's bounds. Each verdict says in words why it passed or
// failed, so a report reads without the code. Patterns run on RE2 (linear time) and schemas through the
// same linear-time checker tool inputs use: the expectations are a tenant's, graded on shared workers.
import type { Expectation, GraderSpec, Verdict } from '../contract/operations/evals.ts';
import type { JsonObject } from '../contract/bundle.ts';
import { compiledSchema, describeSchemaError } from './tools/validate-input.ts';
import { compilePattern } from '../lib/evals/patterns.ts';
import type { CaseToolCall } from '../lib/evals/transcript.ts';

/** What the candidate's turn came to. */
export interface CaseOutcome {
  /** How the turn ended; `timeout`: it ran past the case's limit and was aborted. */
  ended: 'completed' | 'failed' | 'aborted' | 'timeout';
  error?: string;
  reply: string;
  json?: unknown;
  toolCalls: CaseToolCall[];
  costUsd: number | null;
  latencyMs: number;
}

const quote = (text: string, max = 120) => JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);

/** `expected` is contained in `actual`: every member of an object (recursively) equal, arrays and scalars equal. */
export function contains(actual: unknown, expected: unknown): boolean {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
    return Object.entries(expected).every(([key, value]) => contains((actual as Record<string, unknown>)[key], value));
  }
  return JSON.stringify(actual) === JSON.stringify(expected);
}

function jsonVerdict(outcome: CaseOutcome, schema: JsonObject): Verdict {
  let value = outcome.json;
  if (value === undefined) {
    try {
      value = JSON.parse(outcome.reply);
    } catch {
      return { grader: 'jsonSchema', passed: false, explanation: `The reply is not JSON: ${quote(outcome.reply)}` };
    }
  }
  const validate = compiledSchema(schema);
  if (validate(value)) return { grader: 'jsonSchema', passed: true, explanation: 'The JSON reply satisfies the schema' };
  const reasons = (validate.errors ?? []).slice(0, 3).map((error) => describeSchemaError(error, 'the reply'));
  return { grader: 'jsonSchema', passed: false, explanation: `The JSON reply does not satisfy the schema: ${reasons.join('; ')}` };
}

function toolCallsVerdict(outcome: CaseOutcome, expected: NonNullable<Expectation['toolCalls']>): Verdict {
  const made = outcome.toolCalls.map((call) => call.name);
  let cursor = 0;
  for (const [index, want] of expected.entries()) {
    const found = outcome.toolCalls.findIndex(
      (call, position) => position >= cursor && call.name === want.name && (want.input === undefined || contains(call.input, want.input)),
    );
    if (found === -1) {
      const input = want.input === undefined ? '' : ` with input containing ${JSON.stringify(want.input)}`;
      return {
        grader: 'toolCalls',
        passed: false,
        explanation: `Expected call ${index + 1}, ${want.name}${input}, was not made after the ones before it; the calls were: ${made.join(', ') || 'none'}`,
      };
    }
    cursor = found + 1;
  }
  return { grader: 'toolCalls', passed: true, explanation: `Called ${expected.map((want) => want.name).join(', ')} in that order` };
}

export function grade(outcome: CaseOutcome, expect: Expectation | undefined, graders: readonly GraderSpec[]): Verdict[] {
  const verdicts: Verdict[] = [
    outcome.ended === 'completed'
      ? { grader: 'completed', passed: true, explanation: 'The turn completed' }
      : {
          grader: 'completed',
          passed: false,
          explanation:
            outcome.ended === 'timeout'
              ? 'The turn ran past the case’s time limit and was aborted'
              : `The turn ${outcome.ended}${outcome.error ? `: ${outcome.error}` : ''}`,
        },
  ];
  const reply = outcome.reply;
  if (expect?.equals !== undefined) {
    const passed = reply.trim() === expect.equals.trim();
    verdicts.push({
      grader: 'equals',
      passed,
      explanation: passed ? 'The reply is the expected text' : `The reply ${quote(reply)} is not ${quote(expect.equals)}`,
    });
  }
  if (expect?.contains !== undefined) {
    const passed = reply.includes(expect.contains);
    verdicts.push({
      grader: 'contains',
      passed,
      explanation: passed
        ? `The reply contains ${quote(expect.contains)}`
        : `The reply ${quote(reply)} does not contain ${quote(expect.contains)}`,
    });
  }
  if (expect?.regex !== undefined) {
    const passed = compilePattern(expect.regex).matcher(reply).find();
    verdicts.push({
      grader: 'regex',
      passed,
      explanation: passed ? `The reply matches /${expect.regex}/` : `The reply ${quote(reply)} does not match /${expect.regex}/`,
    });
  }
  if (expect?.jsonSchema !== undefined) verdicts.push(jsonVerdict(outcome, expect.jsonSchema as JsonObject));
  if (expect?.toolCalls !== undefined) verdicts.push(toolCallsVerdict(outcome, expect.toolCalls));
  for (const grader of graders) {
    // A rubric is a model's call, made apart (eval-judge.ts), and only of a reply the turn completed.
    if (grader.kind === 'rubric') {
      if (outcome.ended !== 'completed')
        verdicts.push({ grader: 'rubric', passed: false, explanation: 'Not judged: the turn did not complete' });
      continue;
    }
    if (grader.kind === 'maxCostUsd') {
      const cost = outcome.costUsd;
      verdicts.push(
        cost === null
          ? {
              grader: grader.kind,
              passed: false,
              explanation: 'The cost is unknown (the model has no price), so it cannot be held to a bound',
            }
          : {
              grader: grader.kind,
              passed: cost <= grader.max,
              explanation: `It cost $${cost.toFixed(6)}, ${cost <= grader.max ? 'within' : 'over'} the bound of $${grader.max}`,
            },
      );
    } else {
      const passed = outcome.latencyMs <= grader.max;
      verdicts.push({
        grader: grader.kind,
        passed,
        explanation: `It took ${outcome.latencyMs} ms, ${passed ? 'within' : 'over'} the bound of ${grader.max} ms`,
      });
    }
  }
  return verdicts;
}
