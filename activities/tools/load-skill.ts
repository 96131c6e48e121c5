// load_skill: the model reads a skill's whole text when a task calls for it (progressive disclosure,
// lib/skills.ts). Offered only to agents with loadable skills; the texts come from the revision (the
// workspace, or what deploy fetched and froze), never from the network at run time.
import type { JsonObject } from '../../contract/bundle.ts';
import type { LoadableSkill } from '../../lib/skills.ts';
import { toolError } from './define.ts';
import type { BuiltinTool } from './types.ts';
import { toolInputProblem } from './validate-input.ts';

export const LOAD_SKILL = 'load_skill';

const INPUT_SCHEMA: JsonObject = {
  type: 'object',
  properties: { name: { type: 'string', description: 'The name of a skill listed under "Skills you can load".' } },
  required: ['name'],
  additionalProperties: false,
};

/** The tool, for an agent with these skills. */
export function loadSkillTool(skills: readonly LoadableSkill[]): BuiltinTool {
  return {
    name: LOAD_SKILL,
    description: `Load the full text of one of your skills by its name: ${skills.map((skill) => skill.name).join(', ')}.`,
    inputSchema: INPUT_SCHEMA,
    async execute(input) {
      const problem = toolInputProblem(INPUT_SCHEMA, input);
      if (problem !== undefined) return toolError(problem);
      const { name } = input as { name: string };
      const skill = skills.find((candidate) => candidate.name === name);
      if (!skill) return toolError(`No skill named "${name}". Skills: ${skills.map((candidate) => candidate.name).join(', ')}`);
      return { output: { name: skill.name, content: skill.body }, isError: false };
    },
  };
}
