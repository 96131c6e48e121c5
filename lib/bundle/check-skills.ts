// Skills the model can load must be there and be told apart: a bare-name string skill needs its
// skills/<name>/SKILL.md in the workspace, a URL string must be an http(s) URL, and loadable skills
// need distinct names (load_skill finds them by name). URL skills are fetched after these checks,
// at deploy (api/agents/fetch-skills.ts). lib/skills.ts says what each form means.
import type { Skill } from '../../contract/bundle.ts';
import { isHttpUrl } from '../urls.ts';
import { skillRefs } from '../skills.ts';
import { isRecord, type Json, type Report } from './report.ts';

export function checkSkills(bundle: Json, report: Report): void {
  if (!Array.isArray(bundle.skills) || !report.clean('/skills')) return;
  const skills = bundle.skills as Skill[];
  const files = isRecord(bundle.workspaceFiles) ? bundle.workspaceFiles : {};
  const firstByName = new Map<string, number>();
  for (const { index, name, source } of skillRefs(skills).loadable) {
    const skill = skills[index];
    const isString = typeof skill === 'string';
    const at = isString ? `/skills/${index}` : `/skills/${index}/name`;
    if (!report.clean(`/skills/${index}`)) continue;
    if (isString && source.kind === 'url' && !isHttpUrl(source.url)) {
      report.error(at, 'is not a valid http(s) URL');
      continue;
    }
    if (isString && source.kind === 'file' && !Object.hasOwn(files, source.path)) {
      report.error(at, `names the skill file "${source.path}", which is not a key of workspaceFiles`);
      continue;
    }
    const first = firstByName.get(name);
    if (first !== undefined) report.error(at, `a skill named "${name}" is already /skills/${first}; loadable skills need distinct names`);
    else firstByName.set(name, index);
  }
}
