// The JavaScript that runs inside the sandbox before the model's script: it gives the script `console`
// and `workspace`, and the runner the helpers it reads the result with. It holds the built-ins it
// uses from the start, so a script that replaces JSON.stringify or String.prototype.slice changes
// only what it prints itself; the runner checks every value it takes out (type and length) anyway.

/**
 * A function expression: the runner calls it with its host functions, `write(text)`, `list()` (JSON
 * text) and `read(path)`, and the longest text worth passing out, and gets `{ json, head }` back.
 */
export const PRELUDE = `(function (write, list, read, maxChars) {
  'use strict';
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const apply = Reflect.apply;
  const slice = String.prototype.slice;
  const join = Array.prototype.join;
  const map = Array.prototype.map;
  const toText = String;
  const head = (text, chars) => apply(slice, text, [0, chars]);

  // As Node's console shows values, roughly: strings as they are, errors with their stack, the rest as JSON.
  function show(value) {
    if (typeof value === 'string') return value;
    if (value === undefined) return 'undefined';
    if (typeof value === 'function') return '[Function ' + (value.name || '(anonymous)') + ']';
    if (typeof value === 'bigint') return toText(value) + 'n';
    if (typeof value === 'symbol') return value.toString();
    if (value instanceof Error) return toText(value.name) + ': ' + toText(value.message) + (value.stack ? '\\n' + value.stack : '');
    try {
      const text = stringify(value);
      return text === undefined ? toText(value) : text;
    } catch {
      return toText(value);
    }
  }
  const log = (...values) => {
    write(head(apply(join, apply(map, values, [show]), [' ']), maxChars));
  };
  globalThis.console = { log, info: log, warn: log, error: log, debug: log };
  globalThis.workspace = Object.freeze({ list: () => parse(list()), read: (path) => read(toText(path)) });

  // The result as JSON text, or undefined when there is none; what JSON has no form for is described.
  function json(value) {
    if (value === undefined) return undefined;
    if (typeof value === 'function') return stringify('[Function ' + (value.name || '(anonymous)') + ']');
    if (typeof value === 'bigint') return stringify(toText(value));
    if (typeof value === 'symbol') return stringify(value.toString());
    return stringify(value);
  }
  return { json, head };
})`;
