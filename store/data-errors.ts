// PostgreSQL's data exceptions (SQLSTATE class 22): text `jsonb` or `text` refuses (U+0000, an
// unpaired surrogate), a number out of range, a malformed value. The same data fails the same way on
// every try, so a write that meets one is not worth retrying.

/** Whether `error` is a PostgreSQL data exception (SQLSTATE 22xxx). */
export function isDataException(error: unknown): error is Error & { code: string } {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return error instanceof Error && typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code);
}
