// JSON pointers (RFC 6901), the `path` of every bundle error.

export function escapeToken(token: string | number): string {
  return String(token).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The pointer to `token` inside the value at `base`. */
export function childPointer(base: string, ...tokens: (string | number)[]): string {
  return base + tokens.map((token) => `/${escapeToken(token)}`).join('');
}

/** True when `path` is `ancestor` itself or lies below it ('' is the whole document). */
export function isWithin(path: string, ancestor: string): boolean {
  return path === ancestor || path.startsWith(`${ancestor}/`);
}

/** `path` itself, then each pointer above it, ending with '' (the whole document). */
export function selfAndAncestors(path: string): string[] {
  const paths = [path];
  for (let current = path; current !== '';) {
    current = current.slice(0, current.lastIndexOf('/'));
    paths.push(current);
  }
  return paths;
}
