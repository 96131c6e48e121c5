// The checks of eval cases are validated where they come in (a run's cases, a stored set), before anything
// runs: a pattern RE2 cannot run or a JSON Schema that does not compile is a 400 at its place.
import type { Expectation, GraderSpec } from '../../contract/operations/evals.ts';
import { PROVIDER_IDS } from '../../contract/bundle-constants.ts';
import { ValidationError, type FieldError } from '../../lib/workflow-safe/errors.ts';
import { compilePattern } from '../../lib/evals/patterns.ts';
import { jsonSchemaProblem } from '../../lib/bundle/json-schema-check.ts';

/** Each check of `expect` that could not run, at its place (`path` is the expectation's). */
export function expectationProblems(expect: Expectation | undefined, path: string): FieldError[] {
  const problems: FieldError[] = [];
  if (expect?.regex !== undefined) {
    try {
      compilePattern(expect.regex);
    } catch (error) {
      problems.push({
        path: `${path}/regex`,
        message: `cannot run on RE2 (linear time; no lookaround or backreferences): ${error instanceof Error ? error.message : String(error)}`,
      });
    }
  }
  if (expect?.jsonSchema !== undefined) {
    const problem = jsonSchemaProblem(expect.jsonSchema as Record<string, unknown>);
    if (problem) problems.push({ path: `${path}/jsonSchema`, message: problem });
  }
  return problems;
}

/** A 400 naming every check of these cases (and the shared `expect`) that could not run. */
export function refuseUnrunnableChecks(cases: ReadonlyArray<{ expect?: Expectation }>, shared?: Expectation): void {
  const problems = [
    ...cases.flatMap((written, index) => expectationProblems(written.expect, `/cases/${index}/expect`)),
    ...expectationProblems(shared, '/expect'),
  ];
  if (problems.length > 0) throw new ValidationError(`${problems[0]!.path} ${problems[0]!.message}`, problems);
}

/** A 400 for a rubric judge whose provider the service does not know (its credentials come at the judging). */
export function refuseUnknownJudges(graders: readonly GraderSpec[] | undefined): void {
  const problems: FieldError[] = (graders ?? []).flatMap((grader, index) =>
    grader.kind === 'rubric' && grader.model && !(PROVIDER_IDS as readonly string[]).includes(grader.model.providerId)
      ? [{ path: `/graders/${index}/model/providerId`, message: `is not a provider; one of ${PROVIDER_IDS.join(', ')}` }]
      : [],
  );
  if (problems.length > 0) throw new ValidationError(`${problems[0]!.path} ${problems[0]!.message}`, problems);
}
