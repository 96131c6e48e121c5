// Where in the bundle's text an error is: the validator names a JSON pointer, a person wants
// file:line:col, the line itself and a caret under the spot. A pointer into something the text does
// not have (a property that is missing) is shown at the nearest thing that is there.
import { findNodeAtLocation, parseTree, type Node, type ParseError, printParseErrorCode } from 'jsonc-parser';

export interface Located {
  /** 1-based. */
  line: number;
  /** 1-based, in characters of the line. */
  column: number;
  /** The text of that line. */
  source: string;
}

export function lineAndColumn(text: string, offset: number): Located {
  const before = text.slice(0, offset);
  const lineStart = Math.max(before.lastIndexOf('\n') + 1, 0);
  const line = (before.match(/\n/g)?.length ?? 0) + 1;
  const lineEnd = text.indexOf('\n', lineStart);
  const source = text.slice(lineStart, lineEnd === -1 ? undefined : lineEnd).replace(/\r$/, '');
  return { line, column: offset - lineStart + 1, source };
}

/** RFC 6901 pointer to jsonc-parser's path segments (array indexes as numbers). */
function segmentsOf(pointer: string, tree: Node): Array<string | number> {
  if (pointer === '' || pointer === '/') return [];
  const tokens = pointer
    .split('/')
    .slice(1)
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
  const segments: Array<string | number> = [];
  let node: Node | undefined = tree;
  for (const token of tokens) {
    const segment: string | number = node?.type === 'array' && /^\d+$/.test(token) ? Number(token) : token;
    segments.push(segment);
    node = node ? findNodeAtLocation(node, [segment]) : undefined;
  }
  return segments;
}

/** The offset a pointer's error is shown at: a property's key, an item's value, or the nearest ancestor. */
export function offsetOfPointer(tree: Node, pointer: string): number {
  const segments = segmentsOf(pointer, tree);
  for (let length = segments.length; length >= 0; length--) {
    const node = findNodeAtLocation(tree, segments.slice(0, length));
    if (!node) continue;
    const key = node.parent?.type === 'property' ? node.parent.children?.[0] : undefined;
    return (key ?? node).offset;
  }
  return tree.offset;
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
