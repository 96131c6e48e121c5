// The `workspace` tool server: the agent reads the files its bundle ships (`workspaceFiles`). The
// workspace is read-only and lives in the bundle, so these tools need no storage of their own.
import { WORKSPACE_READ_BYTES } from '../../contract/tool-servers.ts';
import { defineBuiltinTool, toolError } from './define.ts';
import { utf8Prefix } from './utf8.ts';
import { workspaceFileKey, workspaceListing } from './workspace-files.ts';

/** Content beyond this many UTF-8 bytes is cut, with a note: one file must not flood the context. */
export const MAX_READ_BYTES = WORKSPACE_READ_BYTES;
const MAX_LISTED_IN_ERROR = 20;

export const listWorkspaceFiles = defineBuiltinTool<Record<string, never>>('workspace', 'list_workspace_files', (_input, { bundle }) => {
  return { output: { files: workspaceListing(bundle.workspaceFiles) }, isError: false };
});

export const readWorkspaceFile = defineBuiltinTool<{ path: string }>('workspace', 'read_workspace_file', ({ path }, { bundle }) => {
  const files = bundle.workspaceFiles;
  const key = workspaceFileKey(files, path);
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
      content: utf8Prefix(Buffer.from(content, 'utf8'), MAX_READ_BYTES),
      truncated: true,
      note: `The file has ${bytes} bytes; only the first ${MAX_READ_BYTES} are shown.`,
    },
    isError: false,
  };
});
