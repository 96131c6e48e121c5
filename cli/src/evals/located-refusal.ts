// The service's refusal of written cases (a pattern RE2 cannot run, a schema that does not compile),
// each error shown at its case's place in the file it came from, as deploy shows a bundle's errors. A
// refusal that is not about the cases is left to the common report (report-error.ts).
import { BadRequestError } from '@agent-service/sdk';
import { EXIT, ExitWith } from '../exit-codes.ts';
import { note } from '../output.ts';
import { err } from '../style.ts';
import type { CasesFile } from './cases-file.ts';

const CASE_PATH = /^\/cases\/(\d+)(.*)$/;

/** Throws: ExitWith(1) after printing the located errors, or `error` itself. */
export function locatedRefusal(error: unknown, file: CasesFile | undefined): never {
  if (
    !file ||
    !(error instanceof BadRequestError) ||
    error.errors.length === 0 ||
    !error.errors.every((field) => CASE_PATH.test(field.path))
  )
    throw error;
  const style = err();
  for (const field of error.errors) {
    const [, index, rest] = CASE_PATH.exec(field.path)!;
    process.stderr.write(`${style.bold(file.where(Number(index), rest))}  ${style.red(`${rest || '/'}: ${field.message}`)}\n`);
  }
  note(`The service refused ${error.errors.length === 1 ? 'a case' : 'cases'} (${error.status}); nothing ran.`);
  throw new ExitWith(EXIT.error);
}
