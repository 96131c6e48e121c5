// JSONC as highlighted, read-only text: keys, strings, numbers, literals and comments each in their
// colour, using jsonc-parser's scanner (the same tokens the server parses). `notes` puts a message
// under a line (deploy errors shown where they are).
import type { ComponentChildren } from 'preact';
import { createScanner } from 'jsonc-parser';

// jsonc-parser's SyntaxKind is a const enum, which isolated modules cannot read.
const COLON = 6;
const NULL = 7;
const TRUE = 8;
const FALSE = 9;
const STRING = 10;
const NUMBER = 11;
const LINE_COMMENT = 12;
const BLOCK_COMMENT = 13;
const LINE_BREAK = 14;
const TRIVIA = 15;
const EOF = 17;

interface Token {
  text: string;
  kind: number;
}

function tokenize(text: string): Token[] {
  const scanner = createScanner(text, false);
  const tokens: Token[] = [];
  for (let kind = scanner.scan(); kind !== EOF; kind = scanner.scan()) {
    tokens.push({ text: text.slice(scanner.getTokenOffset(), scanner.getTokenOffset() + scanner.getTokenLength()), kind });
  }
  return tokens;
}

function classOf(tokens: Token[], index: number): string | undefined {
  const { kind } = tokens[index]!;
  if (kind === STRING) {
    // A string followed (across blanks and comments) by ':' is a key.
    for (let next = index + 1; next < tokens.length; next++) {
      const after = tokens[next]!.kind;
      if (after === TRIVIA || after === LINE_BREAK || after === LINE_COMMENT || after === BLOCK_COMMENT) continue;
      return after === COLON ? 'tok-key' : 'tok-string';
    }
    return 'tok-string';
  }
  if (kind === NUMBER) return 'tok-number';
  if (kind === TRUE || kind === FALSE || kind === NULL) return 'tok-literal';
  if (kind === LINE_COMMENT || kind === BLOCK_COMMENT) return 'tok-comment';
  if (kind === TRIVIA || kind === LINE_BREAK) return undefined;
  return 'tok-punct';
}

/** Tokens split into lines (a token spanning lines, a block comment, is cut at each break). */
function lines(text: string): ComponentChildren[][] {
  const tokens = tokenize(text);
  const result: ComponentChildren[][] = [[]];
  tokens.forEach((token, index) => {
    const className = classOf(tokens, index);
    token.text.split(/\r\n|\r|\n/).forEach((piece, pieceIndex) => {
      if (pieceIndex > 0) result.push([]);
      if (piece) result.at(-1)!.push(className ? <span class={className}>{piece}</span> : piece);
    });
  });
  return result;
}

export function JsoncView({ text, label, notes }: { text: string; label: string; notes?: Map<number, string[]> }) {
  return (
    <pre class="jsonc" role="region" aria-label={label} tabIndex={0}>
      <code>
        {lines(text).map((line, index) => (
          <span class="line" key={index}>
            {line}
            {'\n'}
            {notes?.get(index + 1)?.map((note) => (
              <span class="line-note" role="note">
                {note}
                {'\n'}
              </span>
            ))}
          </span>
        ))}
      </code>
    </pre>
  );
}
