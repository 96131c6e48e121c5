// An eval's written cases from a file: JSONL (one `{input, expect?}` per line, blank lines skipped) or a
// JSON array of them. Each case is checked here for its shape, so a typo is a usage error (exit 2) at its
// line before anything is sent; the checks' contents (a pattern RE2 cannot run, a schema) are the
// service's to judge, and its refusal is located back in the file with `where`.
import fs from 'node:fs';
import type { EvalRunBody } from '@agent-service/sdk';
import { EVAL_LIMITS } from '../../../contract/operations/evals.ts';
import { bundleTree, pointerOffset, textPosition } from '../../../contract/bundle-positions.ts';
import { UsageError } from '../exit-codes.ts';

export type WrittenCase = NonNullable<EvalRunBody['cases']>[number];

export interface CasesFile {
  cases: WrittenCase[];
  /** `file:line` (JSONL) or `file:line:column` (JSON) of case `index`, or of `pointer` within it. */
  where(index: number, pointer?: string): string;
}

const CASE_KEYS = new Set(['input', 'expect']);

/** What is wrong with one case's shape, or undefined. */
function shapeProblem(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'a case is an object: {"input": "...", "expect": {...}}';
  const record = value as Record<string, unknown>;
  const unknown = Object.keys(record).find((key) => !CASE_KEYS.has(key));
  if (unknown !== undefined) return `unknown field "${unknown}" (a case has "input" and "expect")`;
  if (typeof record.input !== 'string' || record.input.trim() === '') return '"input" must be the message, a non-empty string';
  if (record.expect !== undefined && (record.expect === null || typeof record.expect !== 'object' || Array.isArray(record.expect)))
    return '"expect" must be an object of checks (equals, contains, regex, jsonSchema, toolCalls)';
  return undefined;
}

function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read ${file}: ${(error as Error).message}`);
  }
}

function fromJsonl(file: string, text: string): CasesFile {
  const cases: WrittenCase[] = [];
  const lines: number[] = [];
  for (const [index, line] of text.split(/\r?\n/).entries()) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new UsageError(`${file}:${index + 1}: not a JSON case: ${(error as Error).message}`);
    }
    const problem = shapeProblem(value);
    if (problem) throw new UsageError(`${file}:${index + 1}: ${problem}`);
    cases.push(value as WrittenCase);
    lines.push(index + 1);
  }
  return { cases, where: (index) => `${file}:${lines[index] ?? '?'}` };
}

function fromJson(file: string, text: string): CasesFile {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file}: not JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(value)) throw new UsageError(`${file}: a .json file of cases holds an array of {"input", "expect"} objects`);
  const tree = bundleTree(text);
  const where = (index: number, pointer = '') => {
    const { line, column } = tree ? textPosition(text, pointerOffset(tree, `/${index}${pointer}`)) : { line: 1, column: 1 };
    return `${file}:${line}:${column}`;
  };
  for (const [index, item] of value.entries()) {
    const problem = shapeProblem(item);
    if (problem) throw new UsageError(`${where(index)}: ${problem}`);
  }
  return { cases: value as WrittenCase[], where };
}

/** The file's cases, each of a case's shape, 1 to EVAL_LIMITS.maxCases of them. */
export function readCasesFile(file: string): CasesFile {
  const lower = file.toLowerCase();
  const json = lower.endsWith('.json');
  if (!json && !lower.endsWith('.jsonl') && !lower.endsWith('.ndjson'))
    throw new UsageError(`${file}: give cases as .jsonl (one {"input", "expect"} per line) or .json (an array of them)`);
  const text = readText(file);
  const read = json ? fromJson(file, text) : fromJsonl(file, text);
  if (read.cases.length === 0) throw new UsageError(`${file} holds no case`);
  if (read.cases.length > EVAL_LIMITS.maxCases)
    throw new UsageError(`${file} holds ${read.cases.length} cases; a run takes at most ${EVAL_LIMITS.maxCases}`);
  return read;
}
