// Cutting text a tool returns to a byte budget without leaving half a character at the end.

/** The longest prefix of `bytes` within `maxBytes` that does not end inside a UTF-8 character. */
export function utf8Prefix(bytes: Buffer, maxBytes: number): string {
  // A cut multi-byte sequence decodes to U+FFFD at the end; drop it.
  return bytes
    .subarray(0, maxBytes)
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
}
