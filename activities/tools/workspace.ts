// The `workspace` tool server: the agent reads the files its bundle ships (`workspaceFiles`). The
// workspace is read-only and lives in the bundle, so these tools need no storage of their own.
import { defineBuiltinTool, toolError } from './define.ts';

/** Content beyond this many UTF-8 bytes is cut, with a note: one file must not flood the context. */
export const MAX_READ_BYTES = 64 * 1024;
const MAX_LISTED_IN_ERROR = 20;

export const listWorkspaceFiles = defineBuiltinTool<Record<string, never>>({
  name: 'list_workspace_files',
  description: "List the files in the agent's workspace, with their sizes in bytes.",
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  run(_input, { bundle }) {
    const files = Object.keys(bundle.workspaceFiles)
      .sort()
      .map((path) => ({ path, bytes: Buffer.byteLength(bundle.workspaceFiles[path]!, 'utf8') }));
    return { output: { files }, isError: false };
  },
});

export const readWorkspaceFile = defineBuiltinTool<{ path: string }>({
  name: 'read_workspace_file',
  description: `Read a text file from the agent's workspace by its path (as listed by list_workspace_files). Files over ${MAX_READ_BYTES / 1024} KiB are cut short.`,
  inputSchema: {
    type: 'object',
    properties: { path: { type: 'string', description: 'The file path, e.g. "docs/guide.md".' } },
    required: ['path'],
    additionalProperties: false,
  },
  run({ path }, { bundle }) {
    const files = bundle.workspaceFiles;
    // Models like to write "./docs/a.md" or "/docs/a.md" for "docs/a.md".
    const key = [path, path.replace(/^\.?\/+/, '')].find((candidate) => Object.hasOwn(files, candidate));
    if (key === undefined) {
      const known = Object.keys(files).sort();
      const listed = known.slice(0, MAX_LISTED_IN_ERROR).join(', ') + (known.length > MAX_LISTED_IN_ERROR ? ', ...' : '');
      return toolError(
        known.length === 0 ? `No file "${path}": the workspace is empty.` : `No file "${path}" in the workspace. Files: ${listed}`,
      );
    }
    const content = files[key]!;
    const bytes = Buffer.byteLength(content, 'utf8');
    if (bytes <= MAX_READ_BYTES) return { output: { path: key, content }, isError: false };
    return {
      output: {
        path: key,
        content: utf8Prefix(content, MAX_READ_BYTES),
        truncated: true,
        note: `The file has ${bytes} bytes; only the first ${MAX_READ_BYTES} are shown.`,
      },
      isError: false,
    };
  },
});

/** The longest prefix of `text` that fits in `maxBytes` of UTF-8 without splitting a character. */
function utf8Prefix(text: string, maxBytes: number): string {
  const buffer = Buffer.from(text, 'utf8').subarray(0, maxBytes);
  // A cut multi-byte sequence decodes to U+FFFD at the end; drop it.
  return buffer.toString('utf8').replace(/\uFFFD+$/, '');
}
