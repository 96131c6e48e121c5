// What the semantic checks write to, and what they ask before looking at a part of the bundle: a
// check runs only where the schema found nothing wrong, so it never meets a value of the wrong
// type, and each independent mistake is still reported once.
import type { FieldError } from '../workflow-safe/errors.ts';
import { selfAndAncestors } from './pointer.ts';
import type { SchemaIssue } from './schema-errors.ts';

export type Json = Record<string, unknown>;

/**
 * Errors that make everything below them not worth checking: a value of the wrong type or of no
 * recognisable form (a failed oneOf), or a collection too big to go through item by item.
 */
const BLOCKING = new Set(['type', 'oneOf', 'maxItems', 'maxProperties']);

// The checks ask "a JSON object of the bundle?" with the one rule every parser here uses.
export { isRecord } from '../workflow-safe/is-record.ts';

export class Report {
  readonly errors: FieldError[] = [];
  readonly warnings: string[] = [];

  /** Every path that has an issue at or below it. */
  private readonly troubled = new Set<string>();
  /** Paths of blocking issues. */
  private readonly blocked = new Set<string>();

  // Indexed once, so that each question below costs the depth of the path, not the issue count.
  constructor(schemaIssues: readonly SchemaIssue[]) {
    for (const issue of schemaIssues) {
      if (BLOCKING.has(issue.keyword)) this.blocked.add(issue.path);
      for (const path of selfAndAncestors(issue.path)) {
        if (this.troubled.has(path)) break;
        this.troubled.add(path);
      }
    }
  }

  error(path: string, message: string): void {
    this.errors.push({ path, message });
  }

  warn(path: string, message: string): void {
    this.warnings.push(`${path}: ${message}`);
  }

  /** Nothing is wrong at or below `path`, and no blocking error sits above it. */
  clean(path: string): boolean {
    if (this.troubled.has(path)) return false;
    for (const above of selfAndAncestors(path)) if (this.blocked.has(above)) return false;
    return true;
  }

  /** `value` when it is a string the schema accepted at `path`. */
  string(value: unknown, path: string): string | undefined {
    return typeof value === 'string' && this.clean(path) ? value : undefined;
  }

  /** `value` when it is an array the schema accepted at `path`, items included. */
  strings(value: unknown, path: string): string[] | undefined {
    return Array.isArray(value) && value.every((item) => typeof item === 'string') && this.clean(path) ? (value as string[]) : undefined;
  }
}
