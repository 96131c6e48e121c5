// Where in the text a deploy error points: the server names each error by a JSON pointer into the
// bundle (or, for a syntax error, by "line L, column C" in its message); the editor needs a line and
// column of the text the person typed. Pure, so the page and its tests share it.
import { findNodeAtLocation, parseTree, type Node } from 'jsonc-parser';

export interface FieldError {
  path: string;
  message: string;
}

export interface LocatedError extends FieldError {
  /** 1-based; undefined when the text no longer has the place (edited since). */
  line?: number;
  column?: number;
  offset?: number;
}

const LINE_COLUMN = /^line (\d+), column (\d+)/;

function pointerSegments(pointer: string): (string | number)[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((token) => (/^(0|[1-9]\d*)$/.test(token) ? Number(token) : token));
}

/** The node the pointer names, or its nearest ancestor still in the text; a property's key when it is one. */
function nodeFor(tree: Node, pointer: string): Node | undefined {
  const segments = pointerSegments(pointer);
  for (let length = segments.length; length >= 0; length--) {
    const node = findNodeAtLocation(tree, segments.slice(0, length));
    if (node) return node.parent?.type === 'property' ? node.parent : node;
  }
  return undefined;
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === '\n' || (char === '\r' && text[index + 1] !== '\n')) starts.push(index + 1);
  }
  return starts;
}

export function locateErrors(text: string, errors: FieldError[]): LocatedError[] {
  const starts = lineStarts(text);
  const tree = parseTree(text, [], { allowTrailingComma: true });
  return errors.map((error) => {
    const stated = LINE_COLUMN.exec(error.message);
    if (stated) {
      const line = Number(stated[1]);
      const column = Number(stated[2]);
      return { ...error, line, column, offset: (starts[line - 1] ?? 0) + column - 1 };
    }
    const node = tree && nodeFor(tree, error.path);
    if (!node) return { ...error };
    let line = 0;
    while (line + 1 < starts.length && starts[line + 1]! <= node.offset) line++;
    return { ...error, line: line + 1, column: node.offset - starts[line]! + 1, offset: node.offset };
  });
}
