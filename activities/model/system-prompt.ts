// The system prompt of an agent: its instructions, then its skills. The layout is fixed so that the
// same bundle always gives the same prompt (provider prompt caches key on the exact prefix):
//
//   <instructions>
//
//   # Skills
//
//   <string skill, verbatim>
//
//   ## <name>
//
//   <content of workspaceFiles[path]>
//
//   # References
//
//   - <name>: <url>
//
// String and {name, path} skills keep their bundle order under "Skills"; {name, url} skills are only
// listed under "References" and never fetched (the prompt must not depend on what a URL says today).
// Blocks are separated by one blank line, and each block loses its trailing whitespace.
import type { Bundle } from '../../contract/bundle.ts';

export function systemPrompt(bundle: Pick<Bundle, 'instructions' | 'skills' | 'workspaceFiles'>): string | undefined {
  const sections: string[] = [];
  const instructions = bundle.instructions?.trimEnd();
  if (instructions) sections.push(instructions);

  const skills: string[] = [];
  const references: string[] = [];
  for (const skill of bundle.skills) {
    if (typeof skill === 'string') {
      if (skill.trim()) skills.push(skill.trimEnd());
    } else if ('path' in skill) {
      const content = Object.hasOwn(bundle.workspaceFiles, skill.path) ? bundle.workspaceFiles[skill.path] : undefined;
      // Deploy refuses a path that is not a workspace file; this only guards a bundle stored before that check.
      const body = content === undefined ? `(The file ${skill.path} is not in the workspace.)` : content.trimEnd();
      skills.push(body ? `## ${skill.name}\n\n${body}` : `## ${skill.name}`);
    } else {
      references.push(`- ${skill.name}: ${skill.url}`);
    }
  }
  if (skills.length > 0) sections.push('# Skills', ...skills);
  if (references.length > 0) sections.push(`# References\n\n${references.join('\n')}`);
  return sections.length > 0 ? sections.join('\n\n') : undefined;
}
