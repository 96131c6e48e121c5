// Reading values out of the sandbox without trusting them: a string's length is read before the
// string (a script can make one of tens of megabytes), and an error's parts are read one by one,
// each checked for its type, since a script can throw anything, with getters that throw too.
import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten';

/** The prelude's helper that cuts a string inside the sandbox: `head(text, chars)`. */
export type HeadFunction = QuickJSHandle;

/** Characters of an error's name, message or stack kept for the model. */
const ERROR_PART_CHARS = 2000;

/** A string's length in UTF-16 units: an own property of every string, which no script can redefine. */
export function stringLength(vm: QuickJSContext, text: QuickJSHandle): number {
  const length = vm.getProp(text, 'length');
  try {
    return vm.getNumber(length);
  } finally {
    length.dispose();
  }
}

/** The first `maxChars` of a string in the sandbox, and whether it was longer; undefined for a value that is no string. */
export function boundedString(
  vm: QuickJSContext,
  head: HeadFunction,
  value: QuickJSHandle,
  maxChars: number,
): { text: string; cut: boolean } | undefined {
  if (vm.typeof(value) !== 'string') return undefined;
  if (stringLength(vm, value) <= maxChars) return { text: vm.getString(value), cut: false };
  const chars = vm.newNumber(maxChars);
  const cut = vm.callFunction(head, vm.undefined, value, chars);
  chars.dispose();
  if (cut.error) {
    cut.error.dispose();
    return { text: '', cut: true };
  }
  try {
    return vm.typeof(cut.value) === 'string' && stringLength(vm, cut.value) <= maxChars
      ? { text: vm.getString(cut.value), cut: true }
      : { text: '', cut: true };
  } finally {
    cut.value.dispose();
  }
}

/** A property that is a string, cut to ERROR_PART_CHARS; undefined when it is absent, another type, or its getter throws. */
function stringProperty(vm: QuickJSContext, head: HeadFunction, object: QuickJSHandle, key: string): string | undefined {
  let value: QuickJSHandle;
  try {
    value = vm.getProp(object, key);
  } catch {
    return undefined;
  }
  try {
    const read = boundedString(vm, head, value, ERROR_PART_CHARS);
    return read && (read.cut ? `${read.text}...` : read.text);
  } finally {
    value.dispose();
  }
}

/** What was thrown, as the engine would print it: "Name: message" and the stack, or the value itself. */
export function describeThrown(vm: QuickJSContext, head: HeadFunction, thrown: QuickJSHandle): { name?: string; text: string } {
  const type = vm.typeof(thrown);
  if (type === 'string') return { text: quoted(vm, head, thrown) };
  if (type !== 'object' && type !== 'function') return { text: String(vm.dump(thrown)) };
  const name = stringProperty(vm, head, thrown, 'name');
  const message = stringProperty(vm, head, thrown, 'message');
  const stack = stringProperty(vm, head, thrown, 'stack');
  if (message === undefined) return { text: 'a value that is not an Error' };
  const first = name ? `${name}: ${message}` : message;
  return { ...(name ? { name } : {}), text: stack ? `${first}\n${stack.trimEnd()}` : first };
}

function quoted(vm: QuickJSContext, head: HeadFunction, text: QuickJSHandle): string {
  const read = boundedString(vm, head, text, ERROR_PART_CHARS)!;
  return JSON.stringify(read.cut ? `${read.text}...` : read.text);
}
