// How the agent's workspace files (the bundle's `workspaceFiles`) are listed and found by a path a
// model writes: shared by the `workspace` server and the `code` server's `workspace` object, so both
// show the same list and find the same file for the same words.

/** Every file with its size in UTF-8 bytes, by path. */
export function workspaceListing(files: Readonly<Record<string, string>>): { path: string; bytes: number }[] {
  return Object.keys(files)
    .sort()
    .map((path) => ({ path, bytes: Buffer.byteLength(files[path]!, 'utf8') }));
}

/** The key of `files` that `path` names, if any. Models like to write "./docs/a.md" or "/docs/a.md" for "docs/a.md". */
export function workspaceFileKey(files: Readonly<Record<string, string>>, path: string): string | undefined {
  return [path, path.replace(/^\.?\/+/, '')].find((candidate) => Object.hasOwn(files, candidate));
}
