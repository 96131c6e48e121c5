// Text PostgreSQL cannot store: U+0000 (refused in `text` and in `jsonb`), and an unpaired UTF-16
// surrogate (its `\uD800` escape is refused by `jsonb`). Such text is refused where it enters (a 400
// naming where it is), because once past the API it fails every write it reaches, every time: a
// signalled send would retry forever and hold its session.
import { ValidationError, type FieldError } from './workflow-safe/errors.ts';
import { childPointer } from './bundle/pointer.ts';

// eslint-disable-next-line no-control-regex -- finding NUL is the point
const SUSPECT_TEXT = /[\u0000\uD800-\uDFFF]/;
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `value` cannot be stored, or undefined when it can; `what` names it in the message ("string", "key"...). */
export function unstorableText(value: string, what = 'text'): string | undefined {
  // One cheap scan first: few strings hold a NUL or a surrogate at all.
  if (!SUSPECT_TEXT.test(value)) return undefined;
  if (value.includes('\u0000')) return `${what} must not contain the NUL character (\\u0000)`;
  if (UNPAIRED_SURROGATE.test(value)) return `${what} contains an unpaired surrogate (invalid Unicode)`;
  return undefined;
}

/**
 * Every string and member name in `value` (parsed JSON, or a parsed form) that cannot be stored, by
 * JSON pointer, in document order. Iterative: a deeply nested body cannot overflow the stack.
 */
export function findUnstorableText(value: unknown, path = ''): FieldError[] {
  const problems: FieldError[] = [];
  const pending: Array<{ value: unknown; path: string }> = [{ value, path }];
  while (pending.length > 0) {
    const current = pending.pop()!;
    if (typeof current.value === 'string') {
      const problem = unstorableText(current.value, 'string');
      if (problem) problems.push({ path: current.path, message: problem });
      continue;
    }
    if (typeof current.value !== 'object' || current.value === null) continue;
    const children: Array<{ value: unknown; path: string }> = [];
    for (const [key, item] of Object.entries(current.value)) {
      const itemPath = childPointer(current.path, key);
      const problem = Array.isArray(current.value) ? undefined : unstorableText(key, 'key');
      if (problem) problems.push({ path: itemPath, message: problem });
      children.push({ value: item, path: itemPath });
    }
    // Reversed onto the stack, so they come off it in order.
    pending.push(...children.reverse());
  }
  return problems;
}

/** Throws a ValidationError (400) naming every place in `value` that holds text that cannot be stored. */
export function assertStorableText(value: unknown, what: string, path = ''): void {
  const problems = findUnstorableText(value, path);
  const first = problems[0];
  if (first) throw new ValidationError(`The ${what} is not valid: ${first.path || '(root)'} ${first.message}`, problems);
}

// eslint-disable-next-line no-control-regex -- finding NUL is the point
const UNSTORABLE_CHARACTERS = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * `value` with each character PostgreSQL cannot store replaced by U+FFFD, for text the service does
 * not refuse but receives, such as a model's output: stored as it streams and again whole, it must
 * read the same both times.
 */
export function storableText(value: string): string {
  return SUSPECT_TEXT.test(value) ? value.replace(UNSTORABLE_CHARACTERS, '\uFFFD') : value;
}
