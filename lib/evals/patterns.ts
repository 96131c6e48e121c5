// An eval's `regex` check, compiled as grading runs it: on RE2, linear in the reply's length, so a
// tenant's pattern cannot hold a shared worker. The API compiles it too, to refuse one RE2 cannot run.
import { RE2JS } from 're2js';

/** Throws RE2's error for a pattern it cannot run (lookaround, backreferences). */
export function compilePattern(pattern: string): RE2JS {
  return RE2JS.compile(RE2JS.translateRegExp(pattern));
}
