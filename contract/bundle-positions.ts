// Where a deploy error points in the bundle's text. The service and its validator name each error by
// a JSON pointer into the bundle (RFC 6901); a person wants the line and column of the JSONC they
// wrote. A pointer to something the text lacks (a property that is missing) is shown at the nearest
// thing that is there: the deepest ancestor the text has, at its key when it is a property's value.
// Pure, for every client that shows such errors beside the text (the CLI's deploy, the dashboard's
// editor). Not in the contract's index: it needs jsonc-parser, which the SDK's package does not carry.
import { findNodeAtLocation, parseTree, type Node } from 'jsonc-parser';

export interface TextPosition {
  offset: number;
  /** 1-based. */
  line: number;
  /** 1-based, in characters of the line. */
  column: number;
}

/** The bundle's syntax tree, as far as the text parses (undefined for an empty text). */
export function bundleTree(text: string): Node | undefined {
  return parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
}

/** A pointer's segments as jsonc-parser names them: a token is an index only where the text has an array. */
function segmentsOf(tree: Node, pointer: string): Array<string | number> {
  if (pointer === '' || pointer === '/') return [];
  const segments: Array<string | number> = [];
  let node: Node | undefined = tree;
  for (const raw of pointer.split('/').slice(1)) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const segment: string | number = node?.type === 'array' && /^\d+$/.test(token) ? Number(token) : token;
    segments.push(segment);
    node = node ? findNodeAtLocation(node, [segment]) : undefined;
  }
  return segments;
}

/** The offset a pointer's error is shown at: a property's key, an item's value, or the nearest ancestor. */
export function pointerOffset(tree: Node, pointer: string): number {
  const segments = segmentsOf(tree, pointer);
  for (let length = segments.length; length >= 0; length--) {
    const node = findNodeAtLocation(tree, segments.slice(0, length));
    if (!node) continue;
    const key = node.parent?.type === 'property' ? node.parent.children?.[0] : undefined;
    return (key ?? node).offset;
  }
  return tree.offset;
}

/** The line and column of an offset; a line ends at \n, \r\n or a lone \r. */
export function textPosition(text: string, offset: number): TextPosition {
  let line = 1;
  let lineStart = 0;
  for (let index = 0; index < offset && index < text.length; index++) {
    const char = text[index];
    if (char === '\n' || (char === '\r' && text[index + 1] !== '\n')) {
      line++;
      lineStart = index + 1;
    }
  }
  return { offset, line, column: offset - lineStart + 1 };
}

/** The offset of a 1-based line and column (as a syntax error states them), within the text. */
export function offsetOfPosition(text: string, line: number, column: number): number {
  let start = 0;
  for (let current = 1; current < line; current++) {
    const next = text.slice(start).search(/\r\n|\r|\n/);
    if (next === -1) break;
    start += next + (text.startsWith('\r\n', start + next) ? 2 : 1);
  }
  return Math.min(start + column - 1, text.length);
}
