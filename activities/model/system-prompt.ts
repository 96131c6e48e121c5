// The system prompt of an agent: its instructions, its always-on string skills, then the skills it can
// load (progressive disclosure, see lib/skills.ts): each listed by name and one line, its whole text
// read through the load_skill tool only when a task calls for it. The layout is fixed so that the same
// revision always gives the same prompt (provider prompt caches key on the exact prefix):
//
//   <instructions>
//
//   # Skills
//
//   <string skill, verbatim>
//
//   # Skills you can load
//
//   <how to load them>
//
//   - <name>: <description>
//
// Blocks are separated by one blank line, and each block loses its trailing whitespace.
import type { Bundle } from '../../contract/bundle.ts';
import { skillRefs, type LoadableSkill } from '../../lib/skills.ts';
import { LOAD_SKILL } from '../tools/load-skill.ts';

export function systemPrompt(
  bundle: Pick<Bundle, 'instructions' | 'skills'>,
  loadable: readonly Pick<LoadableSkill, 'name' | 'description'>[],
): string | undefined {
  const sections: string[] = [];
  const instructions = bundle.instructions?.trimEnd();
  if (instructions) sections.push(instructions);
  const { inline } = skillRefs(bundle.skills);
  if (inline.length > 0) sections.push('# Skills', ...inline);
  if (loadable.length > 0) {
    sections.push(
      '# Skills you can load',
      `Each skill below is a document of instructions for one kind of task. When a task matches a skill's description, call ${LOAD_SKILL} with its name first, then follow what it says.`,
      loadable.map(({ name, description }) => `- ${name}: ${description}`).join('\n'),
    );
  }
  return sections.length > 0 ? sections.join('\n\n') : undefined;
}
