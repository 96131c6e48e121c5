// Skills, by progressive disclosure: the system prompt lists each skill's name and one-line
// description, and the model loads a skill's whole text with the built-in `load_skill` tool when a task
// calls for it, so a long skill costs nothing until used.
//
// What a bundle's `skills` item means:
//   {name, path}        the workspace file at `path`
//   {name, url}         the text at `url`, fetched once at deploy and frozen into the revision
//   "https://..."       the same, named after the URL's last path segment
//   "release-notes"     a bare name (SKILL_NAME): the workspace file skills/<name>/SKILL.md
//   any other string    an always-on instruction, in the system prompt verbatim (not loadable)
// A skill's text may start with YAML front matter (`name`, `description`); its `description` is the
// line the prompt lists, else the text's first line.
import { parse as parseYaml } from 'yaml';
import type { Bundle, Skill } from '../contract/bundle.ts';

/** A string skill of this form names the workspace file skills/<name>/SKILL.md. */
export const SKILL_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** Characters of a description the system prompt lists. */
const DESCRIPTION_CHARS = 200;

export const skillFilePath = (name: string) => `skills/${name}/SKILL.md`;

/** Where a loadable skill's text comes from. */
export type SkillSource = { kind: 'file'; path: string } | { kind: 'url'; url: string };

export interface SkillRef {
  /** The skill's index in the bundle's `skills`. */
  index: number;
  name: string;
  source: SkillSource;
}

/** The loadable skills of a bundle, in bundle order, and its always-on string instructions. */
export function skillRefs(skills: readonly Skill[]): { loadable: SkillRef[]; inline: string[] } {
  const loadable: SkillRef[] = [];
  const inline: string[] = [];
  skills.forEach((skill, index) => {
    if (typeof skill !== 'string') {
      const source: SkillSource = 'path' in skill ? { kind: 'file', path: skill.path } : { kind: 'url', url: skill.url };
      loadable.push({ index, name: skill.name, source });
    } else if (/^https?:\/\//i.test(skill.trim())) {
      const url = skill.trim();
      loadable.push({ index, name: nameFromUrl(url), source: { kind: 'url', url } });
    } else if (SKILL_NAME.test(skill)) {
      loadable.push({ index, name: skill, source: { kind: 'file', path: skillFilePath(skill) } });
    } else if (skill.trim()) {
      inline.push(skill.trimEnd());
    }
  });
  return { loadable, inline };
}

/** `https://example.com/skills/pdf-forms.md` -> `pdf-forms`. */
export function nameFromUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // An unparsable URL is refused at deploy; its name then does not matter.
    return url;
  }
  const segments = parsed.pathname.split('/').filter(Boolean).map(safeDecode);
  // A skill folder's SKILL.md is named after its folder, as in skills/<name>/SKILL.md.
  const last = segments.at(-1)?.replace(/\.(md|markdown|txt)$/i, '');
  const name = last && /^skill$/i.test(last) ? segments.at(-2) : last;
  return name || parsed.hostname;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export interface SkillText {
  /** The text the model loads: without front matter. */
  body: string;
  description: string;
}

/** Splits YAML front matter (`---` lines) from a skill's text; malformed front matter is kept as text. */
export function parseSkillText(text: string): SkillText {
  const match = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  let front: unknown;
  if (match) {
    try {
      front = parseYaml(match[1]!);
    } catch {
      front = undefined;
    }
  }
  const hasFront = match !== null && typeof front === 'object' && front !== null;
  const body = (hasFront ? text.slice(match[0].length) : text).trim();
  const declared = hasFront ? (front as Record<string, unknown>).description : undefined;
  const firstLine =
    body
      .split('\n')
      .map((line) => line.replace(/^#+\s*/, '').trim())
      .find(Boolean) ?? '';
  const description = (typeof declared === 'string' && declared.trim() ? declared : firstLine).replace(/\s+/g, ' ').trim();
  return { body, description: description.length > DESCRIPTION_CHARS ? `${description.slice(0, DESCRIPTION_CHARS - 1)}…` : description };
}

export interface LoadableSkill extends SkillText {
  name: string;
}

/**
 * The loadable skills of a revision, with their texts: workspace files from the bundle, fetched texts
 * from `fetched` (by the skill's index, as stored at deploy). A text that is missing (a bundle stored
 * before these checks) becomes a note, so the model is told rather than misled.
 */
export function loadableSkills(
  bundle: Pick<Bundle, 'skills' | 'workspaceFiles'>,
  fetched: Readonly<Record<string, string>>,
): LoadableSkill[] {
  return skillRefs(bundle.skills).loadable.map(({ index, name, source }) => {
    const text =
      source.kind === 'file'
        ? Object.hasOwn(bundle.workspaceFiles, source.path)
          ? bundle.workspaceFiles[source.path]
          : undefined
        : fetched[String(index)];
    if (text === undefined) {
      const where = source.kind === 'file' ? `the file ${source.path} is not in the workspace` : `${source.url} was not fetched`;
      return { name, body: `(This skill has no text: ${where}.)`, description: '(unavailable)' };
    }
    return { name, ...parseSkillText(text) };
  });
}
