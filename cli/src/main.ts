// The `agent-service` executable: builds the program, runs the command, and turns what happened into
// the exit status (docs/cli.md: 0 ok, 1 error, 2 usage, 3 the turn failed).
import { expandShorthand } from './commands/custom.ts';
import { buildProgram } from './program.ts';
import { reportError } from './report-error.ts';

const program = buildProgram();
try {
  await program.parseAsync(expandShorthand(program, process.argv));
  process.exit(process.exitCode ?? 0);
} catch (error) {
  process.exit(reportError(error, process.argv.includes('--json')));
}
