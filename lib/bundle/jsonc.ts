// JSONC text to a plain value, with every problem a parser usually hides: syntax errors with their
// line and column, duplicate keys (JSON.parse silently keeps the last one), and values PostgreSQL or
// later code cannot hold safely (NUL characters, unpaired surrogates, numbers beyond a double,
// `__proto__` keys).
import { createScanner, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import type { FieldError } from '../workflow-safe/errors.ts';
import { MAX_COLLECTION_ENTRIES, MAX_NESTING_DEPTH } from '../../contract/bundle-constants.ts';
import { childPointer } from './pointer.ts';
import { unstorableText } from '../storable-text.ts';

export type JsoncResult =
  /** `problems` are errors found in a document that did parse; the value is still usable. */
  { ok: true; value: unknown; problems: FieldError[] } | { ok: false; errors: FieldError[] };

// jsonc-parser's SyntaxKind is a const enum, which isolated modules cannot read.
const OPEN_BRACE = 1;
const CLOSE_BRACE = 2;
const OPEN_BRACKET = 3;
const CLOSE_BRACKET = 4;
const EOF = 17;

const SYNTAX_MESSAGES: Record<ReturnType<typeof printParseErrorCode>, string> = {
  InvalidSymbol: 'unexpected characters',
  InvalidNumberFormat: 'invalid number',
  PropertyNameExpected: 'expected a property name in double quotes',
  ValueExpected: 'expected a value',
  ColonExpected: "expected ':'",
  CommaExpected: "expected ','",
  CloseBraceExpected: "expected '}'",
  CloseBracketExpected: "expected ']'",
  EndOfFileExpected: 'unexpected content after the end of the document',
  InvalidCommentToken: 'invalid comment',
  UnexpectedEndOfComment: 'a block comment is not closed',
  UnexpectedEndOfString: 'a string is not closed',
  UnexpectedEndOfNumber: 'a number is not complete',
  InvalidUnicode: 'invalid \\u escape',
  InvalidEscapeCharacter: 'invalid escape sequence',
  InvalidCharacter: 'control characters must be escaped inside strings',
  '<unknown ParseErrorCode>': 'syntax error',
};

export function parseJsonc(input: string): JsoncResult {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const lines = new LineIndex(text);

  const shape = scanShape(text);
  if (shape.empty) return { ok: false, errors: [{ path: '', message: 'the bundle is empty: expected a JSON object' }] };
  if (shape.tooDeepAt !== undefined) {
    return { ok: false, errors: [{ path: '', message: `${lines.at(shape.tooDeepAt)}: nested deeper than ${MAX_NESTING_DEPTH} levels` }] };
  }

  const syntax: ParseError[] = [];
  const tree = parseTree(text, syntax, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  if (syntax.length > 0 || tree === undefined) {
    return { ok: false, errors: syntax.map((error) => ({ path: '', message: `${lines.at(error.offset)}: ${describe(error, text)}` })) };
  }
  const oversized = findOversized(tree, '');
  if (oversized.length > 0) return { ok: false, errors: oversized };
  const problems: FieldError[] = [];
  const value = toValue(tree, '', problems, lines);
  return { ok: true, value, problems };
}

function describe(error: ParseError, text: string): string {
  const name = printParseErrorCode(error.error);
  if (name === 'InvalidSymbol') {
    const snippet = text.slice(error.offset, error.offset + Math.min(error.length, 20));
    return `unexpected ${JSON.stringify(snippet)}`;
  }
  return SYNTAX_MESSAGES[name];
}

/** One linear pass with the scanner, which does not recurse, before the parser, which does. */
function scanShape(text: string): { empty: boolean; tooDeepAt?: number } {
  const scanner = createScanner(text, true);
  let depth = 0;
  let empty = true;
  for (let kind = scanner.scan(); kind !== EOF; kind = scanner.scan()) {
    empty = false;
    if (kind === OPEN_BRACE || kind === OPEN_BRACKET) {
      depth += 1;
      if (depth > MAX_NESTING_DEPTH) return { empty, tooDeepAt: scanner.getTokenOffset() };
    } else if ((kind === CLOSE_BRACE || kind === CLOSE_BRACKET) && depth > 0) {
      depth -= 1;
    }
  }
  return { empty };
}

/** Collections beyond MAX_COLLECTION_ENTRIES, found before any value is built from them. */
function findOversized(node: Node, path: string, found: FieldError[] = []): FieldError[] {
  const children = node.children ?? [];
  if (node.type === 'object' || node.type === 'array') {
    if (children.length > MAX_COLLECTION_ENTRIES) {
      const what = node.type === 'array' ? 'items' : 'properties';
      const where = node.type === 'array' ? 'array' : 'object';
      found.push({
        path,
        message: `has ${children.length} ${what}; a bundle allows at most ${MAX_COLLECTION_ENTRIES} in any one ${where}`,
      });
      return found;
    }
    children.forEach((child, index) => {
      const valueNode = node.type === 'array' ? child : child.children?.[1];
      if (valueNode)
        findOversized(valueNode, childPointer(path, node.type === 'array' ? index : String(child.children?.[0]?.value)), found);
    });
  }
  return found;
}

function toValue(node: Node, path: string, problems: FieldError[], lines: LineIndex): unknown {
  switch (node.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const property of node.children ?? []) {
        const [keyNode, valueNode] = property.children ?? [];
        if (!keyNode) continue;
        const key = String(keyNode.value);
        const at = childPointer(path, key);
        checkText(key, at, problems, 'key');
        if (Object.hasOwn(out, key)) {
          const first = node.children?.find((other) => other.children?.[0]?.value === key)?.offset ?? keyNode.offset;
          problems.push({ path: at, message: `duplicate key "${key}" (first given at ${lines.at(first)})` });
        }
        const value = valueNode ? toValue(valueNode, at, problems, lines) : null;
        if (key === '__proto__') {
          problems.push({ path: at, message: 'the key "__proto__" is not allowed' });
          // Assignment would set the prototype; defineProperty keeps the key as plain data.
          Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
        } else {
          out[key] = value;
        }
      }
      return out;
    }
    case 'array':
      return (node.children ?? []).map((child, index) => toValue(child, childPointer(path, index), problems, lines));
    case 'string': {
      const value = String(node.value);
      checkText(value, path, problems, 'string');
      return value;
    }
    case 'number': {
      const value = Number(node.value);
      if (!Number.isFinite(value)) problems.push({ path, message: 'number is too large' });
      return value;
    }
    default:
      return node.value as boolean | null;
  }
}

function checkText(value: string, path: string, problems: FieldError[], what: 'key' | 'string'): void {
  const problem = unstorableText(value, what);
  if (problem) problems.push({ path, message: problem });
}

/**
 * Offsets to 1-based "line L, column C", lines ending at \n, \r\n or \r as the scanner counts them.
 * Built on first use: most documents never need it.
 */
class LineIndex {
  private starts: number[] | undefined;
  constructor(private readonly text: string) {}
  at(offset: number): string {
    const starts = (this.starts ??= [0, ...[...this.text.matchAll(/\r\n|\r|\n/g)].map((match) => match.index + match[0].length)]);
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((starts[mid] ?? 0) <= offset) low = mid;
      else high = mid - 1;
    }
    return `line ${low + 1}, column ${offset - (starts[low] ?? 0) + 1}`;
  }
}
