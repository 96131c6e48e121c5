// Workspace files: bounded in total (each file alone is bounded by the schema), and skills that
// point into the workspace must point at a file that is there.
import { MAX_WORKSPACE_BYTES } from '../../contract/bundle-constants.ts';
import { isRecord, type Json, type Report } from './report.ts';

export function checkFiles(bundle: Json, report: Report): void {
  const files = isRecord(bundle.workspaceFiles) ? bundle.workspaceFiles : undefined;
  if (files) {
    let total = 0;
    for (const content of Object.values(files)) if (typeof content === 'string') total += Buffer.byteLength(content, 'utf8');
    if (total > MAX_WORKSPACE_BYTES) {
      report.error('/workspaceFiles', `holds ${total} bytes of content in all; the limit is ${MAX_WORKSPACE_BYTES} bytes (512 KiB)`);
    }
  }
  if (!Array.isArray(bundle.skills) || !files) return;
  bundle.skills.forEach((skill: unknown, index) => {
    if (!isRecord(skill)) return;
    const at = `/skills/${index}/path`;
    const path = report.string(skill.path, at);
    if (path !== undefined && !Object.hasOwn(files, path)) report.error(at, `"${path}" is not a key of workspaceFiles`);
  });
}
