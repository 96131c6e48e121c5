// The body of POST /agent/<name>/evals from `eval run`'s options: exactly one source of cases (a file,
// a stored set, recorded sessions), the checks, bounds and rubric judges, each number checked here so a
// wrong one is a usage error (exit 2) before anything is sent.
import type { EvalRunBody } from '@agent-service/sdk';
import { PROVIDER_IDS } from '../../../contract/bundle-constants.ts';
import { EVAL_LIMITS, RUBRIC_LIMITS } from '../../../contract/operations/evals.ts';
import { UsageError } from '../exit-codes.ts';
import { revisionNumber } from '../commands/revisions.ts';
import { readCasesFile, type CasesFile } from './cases-file.ts';

export interface RunOptions {
  revision?: string;
  cases?: string;
  set?: string;
  fromSession?: string[];
  expectContains?: string;
  replay?: 'recorded' | 'live';
  unmatched?: 'error' | 'live';
  concurrency?: string;
  maxLatencyMs?: string;
  maxCostUsd?: string;
  /** Each one a rubric judge (`--rubric`, repeatable); the two below apply to every one of them. */
  rubric?: string[];
  judgeModel?: string;
  judgeMinScore?: string;
  estimate?: boolean;
  wait?: boolean;
  minScore?: string;
}

/** A set as a run names it (contract/operations/evals.ts): `name`, or `name@<version>`. */
const SET_REF = /^[a-z0-9][a-z0-9_-]{0,63}(@[1-9][0-9]{0,8})?$/;

/** A number from the command line within [min, max] (a whole one when `integer`); a usage error otherwise. */
export function numberOption(flag: string, word: string, { min, max, integer }: { min: number; max: number; integer?: boolean }): number {
  const value = Number(word);
  const shape = integer ? /^\d+$/ : /^\d+(\.\d+)?$|^\.\d+$/;
  if (!shape.test(word.trim()) || value < min || value > max)
    throw new UsageError(`${flag} takes ${integer ? 'a whole number' : 'a number'} from ${min} to ${max}; "${word}" is not one`);
  return value;
}

type Graders = NonNullable<EvalRunBody['graders']>;

/** `<provider>/<model>`: the provider is the first segment, the model the rest (OpenRouter's ids have a `/`). */
function judgeModel(word: string): { providerId: string; modelId: string } {
  const slash = word.indexOf('/');
  const [providerId, modelId] = [word.slice(0, slash), word.slice(slash + 1)];
  if (slash <= 0 || modelId === '')
    throw new UsageError(`--judge-model takes <provider>/<model>, e.g. openrouter/openai/gpt-4o-mini; "${word}" is not one`);
  // The service refuses an unknown provider too, but at /graders/<i>: named here, it reads as the flag that is wrong.
  if (!(PROVIDER_IDS as readonly string[]).includes(providerId))
    throw new UsageError(`--judge-model: "${providerId}" is not a provider; one of ${PROVIDER_IDS.join(', ')}`);
  return { providerId, modelId };
}

/** One rubric judge per --rubric, all with the same judge model and least passing score when given. */
function rubricGraders(options: RunOptions): Graders {
  const rubrics = options.rubric ?? [];
  if (rubrics.length === 0) {
    if (options.judgeModel !== undefined || options.judgeMinScore !== undefined)
      throw new UsageError('--judge-model and --judge-min-score set up a rubric judge: add --rubric <text>');
    return [];
  }
  const model = options.judgeModel !== undefined ? judgeModel(options.judgeModel) : undefined;
  const minScore =
    options.judgeMinScore !== undefined ? numberOption('--judge-min-score', options.judgeMinScore, { min: 0, max: 1 }) : undefined;
  return rubrics.map((rubric) => {
    if (rubric.trim() === '') throw new UsageError('--rubric takes a non-empty text: what a good reply does');
    if (rubric.length > RUBRIC_LIMITS.maxRubricChars)
      throw new UsageError(`--rubric takes at most ${RUBRIC_LIMITS.maxRubricChars} characters; one has ${rubric.length}`);
    return { kind: 'rubric' as const, rubric, ...(model ? { model } : {}), ...(minScore !== undefined ? { minScore } : {}) };
  });
}

function graders(options: RunOptions): Graders {
  const bounds: Graders = [];
  if (options.maxLatencyMs !== undefined)
    bounds.push({
      kind: 'maxLatencyMs',
      max: numberOption('--max-latency-ms', options.maxLatencyMs, { min: 0, max: 86_400_000, integer: true }),
    });
  if (options.maxCostUsd !== undefined)
    bounds.push({ kind: 'maxCostUsd', max: numberOption('--max-cost-usd', options.maxCostUsd, { min: 0, max: 1_000_000 }) });
  return [...bounds, ...rubricGraders(options)];
}

/** The body, and the cases file it read (to show the service's refusal of a case at its line). */
export function runBody(options: RunOptions): { body: EvalRunBody; file?: CasesFile } {
  const sessions = options.fromSession ?? [];
  const sources = [options.cases !== undefined, options.set !== undefined, sessions.length > 0].filter(Boolean).length;
  if (sources === 0)
    throw new UsageError(
      'Give the cases: --cases <file.jsonl|file.json>, --set <name> (a stored set), or --from-session <id>... to replay recorded sessions',
    );
  if (sources > 1) throw new UsageError('Give one of --cases, --set and --from-session');
  if (options.expectContains === '') throw new UsageError('--expect-contains takes a non-empty text');
  if (options.set !== undefined && options.expectContains !== undefined)
    throw new UsageError('--expect-contains adds to --cases or --from-session; a stored set keeps the checks it was stored with');
  const body: EvalRunBody = {};
  if (options.revision !== undefined) body.revision = revisionNumber(options.revision);
  let file: CasesFile | undefined;
  if (options.cases !== undefined) {
    file = readCasesFile(options.cases);
    const contains = options.expectContains;
    // A case's own `contains` wins: the flag fills in the check for the cases that have none.
    body.cases = contains ? file.cases.map((written) => ({ ...written, expect: { contains, ...written.expect } })) : file.cases;
  } else if (options.set !== undefined) {
    if (!SET_REF.test(options.set)) throw new UsageError(`Not a set: "${options.set}". Give its name, or name@<version>, e.g. smoke@3.`);
    body.set = options.set;
  } else {
    if (sessions.length > EVAL_LIMITS.maxCases) throw new UsageError(`At most ${EVAL_LIMITS.maxCases} sessions in a run`);
    body.fromSessions = [...new Set(sessions)];
    if (options.expectContains) body.expect = { contains: options.expectContains };
  }
  if (options.replay) body.replayTools = options.replay;
  if (options.unmatched) body.unmatched = options.unmatched;
  if (options.concurrency !== undefined)
    body.concurrency = numberOption('--concurrency', options.concurrency, { min: 1, max: EVAL_LIMITS.maxConcurrency, integer: true });
  const given = graders(options);
  if (given.length > 0) body.graders = given;
  return { body, ...(file ? { file } : {}) };
}
