// Custom command templates must resolve: a `${...}` that is not a placeholder is reported at deploy,
// where the author can fix it, instead of at every run (contract/commands.ts holds the rules).
import { templateProblem } from '../../contract/commands.ts';
import { childPointer } from './pointer.ts';
import { isRecord, type Json, type Report } from './report.ts';

export function checkCommands(bundle: Json, report: Report): void {
  if (!isRecord(bundle.command)) return;
  for (const [name, command] of Object.entries(bundle.command)) {
    if (!isRecord(command) || typeof command.template !== 'string') continue;
    const path = childPointer('/command', name, 'template');
    if (!report.clean(path)) continue;
    const problem = templateProblem(command.template);
    if (problem !== undefined) report.error(path, problem);
  }
}
