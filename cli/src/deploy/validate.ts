// Local validation of a bundle with the service's own validator (lib/bundle, pure), before anything
// is sent: every error located in the file as written.
import { validateBundle } from '../../../lib/bundle/index.ts';
import { pointerOffset } from '../../../contract/bundle-positions.ts';
import { lineAndColumn, syntaxProblems, type Located } from './locate.ts';

export interface LocatedError {
  path: string;
  message: string;
  where: Located;
}

export type LocalValidation = { ok: true; warnings: string[] } | { ok: false; errors: LocatedError[] };

/** Every secret "exists": offline, grants cannot be checked, so they are not reported. */
const ANY_SECRET: ReadonlySet<string> = { has: () => true } as unknown as ReadonlySet<string>;

/**
 * `original` is the file as written, `deployed` the text with files inlined from disk: errors are
 * found in what will be deployed and shown where the file says it. `secretKeys` undefined skips
 * the checks of secret grants.
 */
export function validateLocally(original: string, deployed: string, secretKeys: ReadonlySet<string> | undefined): LocalValidation {
  const syntax = syntaxProblems(original);
  if (syntax.problems.length > 0 || !syntax.tree) {
    const problems = syntax.problems.length > 0 ? syntax.problems : [{ offset: 0, message: 'the file is empty: expected a JSON object' }];
    return {
      ok: false,
      errors: problems.map((problem) => ({ path: '', message: problem.message, where: lineAndColumn(original, problem.offset) })),
    };
  }
  const result = validateBundle(deployed, { existingSecretKeys: secretKeys ?? ANY_SECRET });
  if (result.ok) return { ok: true, warnings: result.warnings };
  return { ok: false, errors: locateErrors(original, result.errors) };
}

/** Field errors (JSON pointers, from the validator or the service) located in the file as written. */
export function locateErrors(original: string, errors: ReadonlyArray<{ path: string; message: string }>): LocatedError[] {
  const { tree } = syntaxProblems(original);
  return errors.map((error) => ({
    ...error,
    where: lineAndColumn(original, tree ? pointerOffset(tree, error.path) : 0),
  }));
}
