// Stored, versioned sets of eval cases (PUT /eval-set/<name>): a run names one (`set`), and a promote's
// `requireEval` asks for a passing run against one. A set's checks are validated when it is stored.
import { OPERATIONS } from '../../contract/operations/index.ts';
import { EVAL_SET_NAME_PATTERN } from '../../contract/operations/evals.ts';
import { defineRoute } from '../route.ts';
import type { ApiDeps } from '../context.ts';
import { getSet, listSets, putSet, type EvalSet } from '../../store/eval-sets.ts';
import { NotFoundError, ValidationError } from '../../lib/workflow-safe/errors.ts';
import { refuseUnrunnableChecks } from '../evals/expectations.ts';

const NAME = new RegExp(EVAL_SET_NAME_PATTERN);

const summary = (set: Omit<EvalSet, 'cases'> & { caseCount: number }) => ({
  name: set.name,
  version: set.version,
  cases: set.caseCount,
  createdAt: set.createdAt.toISOString(),
});
const withCount = (set: EvalSet) => ({ ...set, caseCount: set.cases.length });

export function evalSetRoutes(deps: ApiDeps) {
  return [
    defineRoute(OPERATIONS.putEvalSet, {
      async handle({ req, body, params, principal }) {
        const name = params.name!;
        if (!NAME.test(name))
          throw new ValidationError(`"${name}" is not a set name: ${EVAL_SET_NAME_PATTERN}`, [
            { path: '/name', message: 'is not a set name' },
          ]);
        refuseUnrunnableChecks(body.cases);
        const stored = await putSet(deps.db, {
          userId: principal!.userId,
          name,
          cases: body.cases,
          keyId: principal!.keyId,
          maxSets: deps.config.limits.evalSetsPerUser,
          maxVersions: deps.config.limits.evalSetVersions,
        });
        req.log.info({ set: name, version: stored.version }, 'eval set stored');
        return { status: 201, body: summary(withCount(stored)) };
      },
    }),
    defineRoute(OPERATIONS.getEvalSet, {
      async handle({ params, query, principal }) {
        const found = await getSet(deps.db, principal!.userId, params.name!, query.version);
        if (!found)
          throw new NotFoundError(`You have no eval set "${params.name}"${query.version ? ` with a version ${query.version}` : ''}`);
        return { status: 200, body: { ...summary(withCount(found)), items: found.cases } };
      },
    }),
    defineRoute(OPERATIONS.listEvalSets, {
      async handle({ principal }) {
        return { status: 200, body: { sets: (await listSets(deps.db, principal!.userId)).map(summary) } };
      },
    }),
  ];
}
