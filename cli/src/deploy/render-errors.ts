// One located error as a person reads it, the way compilers print them:
//
//   service.jsonc:4:3  /mcps/0 must be one of time, workspace, http, memory
//      4 |   "mcps": ["tiem"],
//        |   ^
import { err } from '../style.ts';
import type { Located } from './locate.ts';

export function renderLocated(file: string, where: Located, message: string): string {
  const style = err();
  const gutter = String(where.line).length;
  // A tab in the source would move the caret: measure the prefix as the terminal shows it.
  const prefix = where.source.slice(0, where.column - 1).replace(/[^\t]/g, ' ');
  return [
    `${style.bold(`${file}:${where.line}:${where.column}`)}  ${style.red(message)}`,
    `  ${style.dim(`${String(where.line).padStart(gutter)} |`)} ${where.source}`,
    `  ${style.dim(`${' '.repeat(gutter)} |`)} ${prefix}${style.red('^')}`,
  ].join('\n');
}
