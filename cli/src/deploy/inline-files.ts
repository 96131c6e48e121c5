// A bundle on disk names its skills' files by path; the service takes their text in workspaceFiles.
// Before validating, the text read from disk is written into the bundle's text (jsonc-parser edits,
// so the rest of the file, comments included, stays as written):
//   {name, path}   the file at `path`, relative to the bundle's folder, as workspaceFiles[path]
//   "triage"       every file under skills/triage/ as workspaceFiles["skills/triage/..."]
// An entry already in workspaceFiles is left alone, and a file that is not on disk is left for the
// validator to report where the skill names it.
import fs from 'node:fs';
import path from 'node:path';
import { applyEdits, modify, parse, type ParseError } from 'jsonc-parser';

/** lib/skills.ts's SKILL_NAME: a string skill of this form is the folder skills/<name>/. */
const SKILL_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export interface Inlined {
  /** The bundle's text with the files written into workspaceFiles. */
  text: string;
  /** workspaceFiles keys added from disk. */
  added: string[];
}

export function inlineFilesFromDisk(text: string, bundleDir: string): Inlined {
  const errors: ParseError[] = [];
  const bundle = parse(text, errors, { allowTrailingComma: true }) as Record<string, unknown> | undefined;
  if (errors.length > 0 || !bundle || typeof bundle !== 'object' || Array.isArray(bundle)) return { text, added: [] };
  const existing = isRecord(bundle.workspaceFiles) ? bundle.workspaceFiles : {};
  const wanted = new Map<string, string>();
  const skills = Array.isArray(bundle.skills) ? bundle.skills : [];
  for (const skill of skills) {
    if (isRecord(skill) && typeof skill.path === 'string') {
      addFile(wanted, bundleDir, skill.path);
    } else if (typeof skill === 'string' && SKILL_NAME.test(skill)) {
      for (const file of filesUnder(bundleDir, `skills/${skill}`)) addFile(wanted, bundleDir, file);
    }
  }
  let result = text;
  const added: string[] = [];
  for (const [key, content] of wanted) {
    if (Object.hasOwn(existing, key)) continue;
    const edits = modify(result, ['workspaceFiles', key], content, { formattingOptions: { insertSpaces: true, tabSize: 2 } });
    result = applyEdits(result, edits);
    added.push(key);
  }
  return { text: result, added };
}

function addFile(wanted: Map<string, string>, bundleDir: string, relative: string): void {
  const full = path.resolve(bundleDir, relative);
  // Only files inside the bundle's folder: a bundle must not read the rest of the disk.
  if (!isInside(bundleDir, full)) return;
  try {
    if (fs.statSync(full).isFile()) wanted.set(relative, fs.readFileSync(full, 'utf8'));
  } catch {
    // Not on disk: the validator says where the bundle names it.
  }
}

function filesUnder(bundleDir: string, folder: string): string[] {
  const full = path.join(bundleDir, folder);
  if (!fs.existsSync(full) || !fs.statSync(full).isDirectory()) return [];
  return fs
    .readdirSync(full, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !entry.name.startsWith('.'))
    .map((entry) => path.relative(bundleDir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
}

function isInside(dir: string, file: string): boolean {
  const relative = path.relative(path.resolve(dir), file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
