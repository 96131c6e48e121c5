// Evals: a revision run against cases (written, or taken from recorded sessions whose tool calls are
// answered with their recorded results), each case graded. A run is a Temporal workflow with one child
// workflow per case; its cases are sessions of the candidate revision (docs/evals.md).
import { defineOperation, type ResponseOf, type Sent } from './operation.ts';
import { NULLABLE_STRING, NULLABLE_TIME, TIME } from './shared.ts';
import { MAX_TEXT_PART_CHARS } from './sessions.ts';

export const EVAL_LIMITS = {
  /** Cases in one run. */
  maxCases: 200,
  /** Cases running at once. */
  maxConcurrency: 10,
  /** How long a case's turn may take before it is aborted and the case fails. */
  caseTimeoutMs: 10 * 60_000,
} as const;

/** A set's name: what PUT /eval-set/{name} takes. */
export const EVAL_SET_NAME_PATTERN = '^[a-z0-9][a-z0-9_-]{0,63}$';
const EVAL_SET_REF_PATTERN = '^[a-z0-9][a-z0-9_-]{0,63}(@[1-9][0-9]{0,8})?$';

export const EXPECT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  description: 'What the reply must be; every given check must pass',
  properties: {
    equals: { type: 'string', maxLength: MAX_TEXT_PART_CHARS, description: 'The reply text, exactly (trimmed)' },
    contains: { type: 'string', minLength: 1, maxLength: 10_000, description: 'Text the reply holds' },
    regex: {
      type: 'string',
      minLength: 1,
      maxLength: 1_000,
      description: 'An ECMAScript pattern the reply matches, run on RE2 (linear time; no lookaround or backreferences)',
    },
    jsonSchema: {
      type: 'object',
      description: "A JSON Schema the JSON reply (an agent with jsonReply) or the reply text's JSON satisfies",
    },
    toolCalls: {
      type: 'array',
      maxItems: 50,
      description: 'The tools called, in this order (other calls may come between); `input` must be contained in the call’s input',
      items: {
        type: 'object',
        required: ['name'],
        additionalProperties: false,
        properties: { name: { type: 'string', minLength: 1, maxLength: 128 }, input: { type: 'object' } },
      },
    },
  },
} as const;

export const CASE_SCHEMA = {
  type: 'object',
  required: ['input'],
  additionalProperties: false,
  properties: {
    input: { type: 'string', minLength: 1, maxLength: MAX_TEXT_PART_CHARS, description: "The user's message" },
    expect: EXPECT_SCHEMA,
  },
} as const;

/** What a rubric judge may be asked to weigh: the rubric, and the most the judge may write. */
export const RUBRIC_LIMITS = { maxRubricChars: 10_000, maxJudgeOutputTokens: 1_000 } as const;

const BOUND_GRADER_SCHEMA = {
  type: 'object',
  required: ['kind', 'max'],
  additionalProperties: false,
  description: 'A bound every case is held to: the turn’s cost in USD, or its latency',
  properties: {
    kind: { enum: ['maxCostUsd', 'maxLatencyMs'] },
    max: { type: 'number', minimum: 0 },
  },
} as const;

const RUBRIC_GRADER_SCHEMA = {
  type: 'object',
  required: ['kind', 'rubric'],
  additionalProperties: false,
  description:
    'An LLM judge: a model reads the case’s input, the candidate’s reply and tool calls, and scores the reply against the rubric ' +
    'from 0 to 1. Its calls are held against your budgets as the agent’s are, with the credentials the agent is granted.',
  properties: {
    kind: { const: 'rubric' },
    rubric: { type: 'string', minLength: 1, maxLength: RUBRIC_LIMITS.maxRubricChars, description: 'What a good reply does, in words' },
    model: {
      type: 'object',
      required: ['providerId', 'modelId'],
      additionalProperties: false,
      description: 'The judge (default: the candidate revision’s model)',
      properties: {
        providerId: { type: 'string', minLength: 1, maxLength: 64 },
        modelId: { type: 'string', minLength: 1, maxLength: 256 },
      },
    },
    minScore: { type: 'number', minimum: 0, maximum: 1, description: 'The least score that passes (default 0.7)' },
  },
} as const;

export const GRADER_SCHEMA = { oneOf: [BOUND_GRADER_SCHEMA, RUBRIC_GRADER_SCHEMA] } as const;

/** The score a rubric judge's verdict passes at when its grader names none. */
export const DEFAULT_MIN_SCORE = 0.7;

export const VERDICT_SCHEMA = {
  type: 'object',
  required: ['grader', 'passed', 'explanation'],
  properties: {
    grader: { type: 'string', description: 'equals, contains, regex, jsonSchema, toolCalls, maxCostUsd, maxLatencyMs, rubric, completed' },
    passed: { type: 'boolean' },
    explanation: { type: 'string', description: 'Why it passed or failed, in words' },
    score: { type: 'number', description: 'A rubric judge’s score, from 0 to 1' },
    judge: {
      type: 'object',
      required: ['model', 'prompt', 'answer', 'costUsd'],
      description: 'A rubric judge’s call: the model, what it was sent, what it answered, what it cost',
      properties: {
        model: { type: 'string', description: '`<providerId>/<modelId>`' },
        prompt: { type: 'string' },
        answer: { type: 'string' },
        costUsd: { type: ['number', 'null'] },
      },
    },
  },
} as const;

const TOOL_CALL_VIEW = {
  type: 'object',
  required: ['name', 'input'],
  properties: {
    name: { type: 'string' },
    input: {},
    replayed: { type: 'boolean', description: 'Answered with the recorded result; the tool did not run' },
    unmatched: { type: 'boolean', description: 'No recorded call of that name and input was left to answer it' },
  },
} as const;

const TRANSCRIPT_SCHEMA = {
  type: 'object',
  required: ['reply', 'toolCalls'],
  properties: { reply: { type: 'string' }, json: {}, toolCalls: { type: 'array', items: TOOL_CALL_VIEW } },
} as const;

export const EVAL_CASE_VIEW_SCHEMA = {
  type: 'object',
  required: [
    'id',
    'status',
    'passed',
    'input',
    'verdicts',
    'transcript',
    'baseline',
    'sessionId',
    'fromSessionId',
    'costUsd',
    'latencyMs',
    'error',
  ],
  properties: {
    id: { type: 'integer', description: 'The case’s position in the run, from 0' },
    status: { enum: ['pending', 'running', 'passed', 'failed', 'error', 'cancelled'] },
    passed: { type: ['boolean', 'null'] },
    input: { type: 'string' },
    verdicts: { type: 'array', items: VERDICT_SCHEMA },
    transcript: { anyOf: [TRANSCRIPT_SCHEMA, { type: 'null' }], description: 'What the candidate did' },
    baseline: { anyOf: [TRANSCRIPT_SCHEMA, { type: 'null' }], description: 'What the recorded session did (cases from sessions)' },
    sessionId: { ...NULLABLE_STRING, description: 'The case’s session of the candidate revision' },
    fromSessionId: NULLABLE_STRING,
    costUsd: { type: ['number', 'null'] },
    latencyMs: { type: ['integer', 'null'] },
    error: { ...NULLABLE_STRING, description: 'Why the case could not be run or graded (status error)' },
  },
} as const;

export const EVAL_RUN_SCHEMA = {
  type: 'object',
  required: ['id', 'agent', 'revision', 'set', 'status', 'replayTools', 'concurrency', 'summary', 'createdAt', 'endedAt'],
  properties: {
    id: { type: 'string' },
    agent: { type: 'string' },
    revision: { type: 'integer' },
    set: {
      anyOf: [
        { type: 'object', required: ['name', 'version'], properties: { name: { type: 'string' }, version: { type: 'integer' } } },
        { type: 'null' },
      ],
      description: 'The stored set its cases came from',
    },
    status: { enum: ['running', 'completed', 'cancelled'] },
    replayTools: { enum: ['recorded', 'live'] },
    concurrency: { type: 'integer' },
    summary: {
      type: 'object',
      required: ['cases', 'passed', 'failed', 'errors', 'cancelled', 'pending', 'costUsd'],
      properties: {
        cases: { type: 'integer' },
        passed: { type: 'integer' },
        failed: { type: 'integer' },
        errors: { type: 'integer' },
        cancelled: { type: 'integer', description: 'Ended by the run’s cancel before they were graded' },
        pending: { type: 'integer', description: 'Not ended yet' },
        costUsd: { type: 'number', description: 'What the cases spent so far (counted in your budgets)' },
      },
    },
    createdAt: TIME,
    endedAt: NULLABLE_TIME,
  },
} as const;

const ESTIMATE_SCHEMA = {
  type: 'object',
  required: ['costUsd', 'basis'],
  description: 'What the cases’ turns may cost, before they run (rubric judges not included)',
  properties: {
    costUsd: { type: ['number', 'null'], description: 'Null when the agent has no turns to go by' },
    basis: { type: 'string', description: 'What the estimate was made from, in words' },
  },
} as const;

export const createEvalRun = defineOperation({
  id: 'createEvalRun',
  method: 'post',
  path: '/agent/{name}/evals',
  summary: 'Run an eval of a revision: each case a session of it, graded',
  description:
    'Cases are written (`cases`) or taken from recorded sessions of this agent (`fromSessions`: each session’s first message ' +
    'is the input, its reply and tool calls the baseline). With `replayTools: recorded` (the default for `fromSessions`), a ' +
    'tool call (the service’s, your client’s or another agent’s) whose name and input match a recorded call of the case’s session (the first unused, in recorded order) ' +
    'gets the recorded result without running; an unmatched one gets a tool error (`unmatched: error`, the default) or, with ' +
    '`unmatched: live`, runs when it is safe to (a built-in tool that only reads, or one the bundle marks in `safeTools`), ' +
    'waits for a client (a client’s tool), and is refused all the same when it calls another agent. The run answers 202 once recorded (when the workflow engine does not answer, it starts at the next ' +
    'housekeeping pass); its cases run as workflows, `concurrency` at a time, and survive any restart. Their model cost ' +
    'counts in your budgets.',
  tag: 'evals',
  auth: { kind: 'scope', scope: 'agents:write' },
  body: {
    required: true,
    schema: {
      type: 'object',
      additionalProperties: false,
      properties: {
        revision: { type: 'integer', minimum: 1, maximum: 999_999_999, description: 'The candidate (default: the live revision)' },
        cases: { type: 'array', minItems: 1, maxItems: EVAL_LIMITS.maxCases, items: CASE_SCHEMA },
        set: {
          type: 'string',
          pattern: EVAL_SET_REF_PATTERN,
          description: 'A stored set (PUT /eval-set/{name}): `name` for its latest version, `name@3` for version 3',
        },
        fromSessions: {
          type: 'array',
          minItems: 1,
          maxItems: EVAL_LIMITS.maxCases,
          uniqueItems: true,
          items: { type: 'string', maxLength: 64 },
          description: 'Recorded sessions of this agent',
        },
        expect: { ...EXPECT_SCHEMA, description: 'Checks for every case that has none of its own (every case from a session)' },
        graders: { type: 'array', maxItems: 10, items: GRADER_SCHEMA },
        replayTools: { enum: ['recorded', 'live'] },
        unmatched: {
          enum: ['error', 'live'],
          description:
            'What a replayed call matching no recorded one gets: a tool error, or (live) a real run when it is safe to run, or a client’s answer',
        },
        concurrency: { type: 'integer', minimum: 1, maximum: EVAL_LIMITS.maxConcurrency, default: 4 },
        estimate: { type: 'boolean', description: 'Answer 200 with the cases and the estimate of their cost, and run nothing' },
      },
    },
  },
  responses: {
    200: {
      description: 'With `estimate: true`: what the run would be, nothing recorded',
      schema: { type: 'object', required: ['cases', 'estimate'], properties: { cases: { type: 'integer' }, estimate: ESTIMATE_SCHEMA } },
    },
    202: {
      description: 'The run started',
      schema: {
        type: 'object',
        required: ['id', 'cases', 'estimate'],
        properties: { id: { type: 'string' }, cases: { type: 'integer' }, estimate: ESTIMATE_SCHEMA },
      },
    },
    400: { description: 'Not exactly one of cases, set and fromSessions; a pattern RE2 cannot run, a schema that does not compile' },
    404: { description: 'No such agent, revision, set or session of the agent' },
    429: { description: 'You have EVAL_RUNS_PER_USER runs running (problem type rate-limited, with Retry-After)' },
  },
});

export const getEvalRun = defineOperation({
  id: 'getEvalRun',
  method: 'get',
  path: '/evals/{id}',
  summary: 'An eval run: its summary and every case with its verdicts and transcripts; or its progress, streamed',
  description:
    'With `Accept: text/event-stream`: the run’s progress as an SSE stream. It sends every case that has ended, then each ' +
    'case as it ends (`event: case`, the case as this operation shows it), the run without its cases after each change ' +
    '(`event: run`), and `event: end` with the run’s final summary, then closes. Frames carry no ids: a client that ' +
    'reconnects is sent every ended case again, told apart by their `id`. It counts in OPEN_STREAMS_PER_USER.',
  tag: 'evals',
  auth: { kind: 'scope', scope: 'read' },
  streams: true,
  responses: {
    200: {
      description: 'The run (or, with Accept: text/event-stream, its progress)',
      schema: {
        type: 'object',
        required: [...EVAL_RUN_SCHEMA.required, 'cases'],
        properties: { ...EVAL_RUN_SCHEMA.properties, cases: { type: 'array', items: EVAL_CASE_VIEW_SCHEMA } },
      },
    },
    404: { description: 'No such run of yours' },
  },
});

export const listEvalRuns = defineOperation({
  id: 'listEvalRuns',
  method: 'get',
  path: '/agent/{name}/evals',
  summary: "An agent's eval runs, newest first (the last 100)",
  tag: 'evals',
  auth: { kind: 'scope', scope: 'read' },
  responses: {
    200: {
      description: 'Runs without their cases',
      schema: { type: 'object', required: ['runs'], properties: { runs: { type: 'array', items: EVAL_RUN_SCHEMA } } },
    },
    404: { description: 'You have no agent of that name' },
  },
});

export const cancelEvalRun = defineOperation({
  id: 'cancelEvalRun',
  method: 'post',
  path: '/evals/{id}/cancel',
  summary: 'Cancel an eval run: cases not ended are aborted',
  tag: 'evals',
  auth: { kind: 'scope', scope: 'agents:write' },
  responses: {
    202: {
      description: 'Cancelling (or already ended)',
      schema: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
    },
    404: { description: 'No such run of yours' },
  },
});

const EVAL_SET_SUMMARY = {
  type: 'object',
  required: ['name', 'version', 'cases', 'createdAt'],
  properties: { name: { type: 'string' }, version: { type: 'integer' }, cases: { type: 'integer' }, createdAt: TIME },
} as const;

export const putEvalSet = defineOperation({
  id: 'putEvalSet',
  method: 'put',
  path: '/eval-set/{name}',
  summary: 'Store a set of eval cases; each PUT adds a version (runs name the set, or one version of it)',
  tag: 'evals',
  auth: { kind: 'scope', scope: 'agents:write' },
  body: {
    required: true,
    schema: {
      type: 'object',
      required: ['cases'],
      additionalProperties: false,
      properties: { cases: { type: 'array', minItems: 1, maxItems: EVAL_LIMITS.maxCases, items: CASE_SCHEMA } },
    },
  },
  responses: {
    201: { description: 'The new version (versions beyond EVAL_SET_VERSIONS, the oldest, are dropped)', schema: EVAL_SET_SUMMARY },
    403: { description: 'A new name past EVAL_SETS_PER_USER sets' },
    400: { description: 'A name that is not `^[a-z0-9][a-z0-9_-]{0,63}$`, or a check that cannot run, at its place' },
  },
});

export const getEvalSet = defineOperation({
  id: 'getEvalSet',
  method: 'get',
  path: '/eval-set/{name}',
  summary: 'A stored set of eval cases: its latest version, or `?version=N`',
  tag: 'evals',
  auth: { kind: 'scope', scope: 'read' },
  query: { type: 'object', additionalProperties: false, properties: { version: { type: 'integer', minimum: 1 } } },
  responses: {
    200: {
      description: 'The version with its cases',
      schema: {
        type: 'object',
        required: [...EVAL_SET_SUMMARY.required, 'items'],
        properties: { ...EVAL_SET_SUMMARY.properties, items: { type: 'array', items: CASE_SCHEMA } },
      },
    },
    404: { description: 'No such set (or version) of yours' },
  },
});

export const listEvalSets = defineOperation({
  id: 'listEvalSets',
  method: 'get',
  path: '/eval-set',
  summary: 'Your stored sets of eval cases, each at its latest version',
  tag: 'evals',
  auth: { kind: 'scope', scope: 'read' },
  responses: {
    200: {
      description: 'Sets by name',
      schema: { type: 'object', required: ['sets'], properties: { sets: { type: 'array', items: EVAL_SET_SUMMARY } } },
    },
  },
});

export type EvalSetSummary = ResponseOf<typeof putEvalSet, 201>;
export type EvalSetView = ResponseOf<typeof getEvalSet, 200>;
export type EvalSetList = ResponseOf<typeof listEvalSets, 200>;
export type EvalRunBody = Sent<NonNullable<typeof createEvalRun.body>['schema']>;
export type EvalRunView = ResponseOf<typeof getEvalRun, 200>;
export type EvalRunList = ResponseOf<typeof listEvalRuns, 200>;
export type Expectation = Sent<typeof EXPECT_SCHEMA>;
export type GraderSpec = Sent<typeof GRADER_SCHEMA>;
export type RubricGrader = Sent<typeof RUBRIC_GRADER_SCHEMA>;
export type Verdict = Sent<typeof VERDICT_SCHEMA>;
