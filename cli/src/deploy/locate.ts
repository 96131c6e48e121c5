// Where in the bundle's text an error is: the validator names a JSON pointer, a person wants
// file:line:col, the line itself and a caret under the spot. The pointer's place is found as the
// dashboard finds it (contract/bundle-positions.ts); this adds the line's text and the syntax errors.
import { parseTree, type Node, type ParseError, printParseErrorCode } from 'jsonc-parser';
import { textPosition } from '../../../contract/bundle-positions.ts';

export interface Located {
  /** 1-based. */
  line: number;
  /** 1-based, in characters of the line. */
  column: number;
  /** The text of that line. */
  source: string;
}

export function lineAndColumn(text: string, offset: number): Located {
  const { line, column } = textPosition(text, offset);
  const lineStart = offset - column + 1;
  const rest = text.slice(lineStart);
  const lineEnd = rest.search(/\r|\n/);
  return { line, column, source: lineEnd === -1 ? rest : rest.slice(0, lineEnd) };
}

export interface SyntaxProblem {
  offset: number;
  message: string;
}

/** JSONC syntax errors with their offsets (the validator reports them without one). */
export function syntaxProblems(text: string): { tree: Node | undefined; problems: SyntaxProblem[] } {
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  return { tree, problems: errors.map((error) => ({ offset: error.offset, message: describe(printParseErrorCode(error.error)) })) };
}

/** `CommaExpected` -> `comma expected`. */
function describe(code: string): string {
  return code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}
