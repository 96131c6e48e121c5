// What each form of skill means, front matter, and the deploy checks that keep load_skill unambiguous.
import { describe, expect, it } from 'vitest';
import { loadableSkills, nameFromUrl, parseSkillText, skillRefs } from '../../lib/skills.ts';
import { validateBundle } from '../../lib/bundle/index.ts';
import { findBuiltinTool, modelToolSet } from '../../activities/tools/index.ts';

describe('skill forms', () => {
  it('objects, URL strings and bare names are loadable; other strings are always-on instructions', () => {
    const { loadable, inline } = skillRefs([
      { name: 'a', path: 'docs/a.md' },
      { name: 'b', url: 'https://example.com/b' },
      'https://example.com/skills/pdf-forms/SKILL.md',
      'triage',
      'Be kind.',
    ]);
    expect(loadable).toEqual([
      { index: 0, name: 'a', source: { kind: 'file', path: 'docs/a.md' } },
      { index: 1, name: 'b', source: { kind: 'url', url: 'https://example.com/b' } },
      { index: 2, name: 'pdf-forms', source: { kind: 'url', url: 'https://example.com/skills/pdf-forms/SKILL.md' } },
      { index: 3, name: 'triage', source: { kind: 'file', path: 'skills/triage/SKILL.md' } },
    ]);
    expect(inline).toEqual(['Be kind.']);
    expect(nameFromUrl('https://example.com/guides/style-guide.md')).toBe('style-guide');
    expect(nameFromUrl('https://example.com/')).toBe('example.com');
  });

  it('front matter gives the description; without it, the first line does; malformed front matter is text', () => {
    expect(parseSkillText('---\nname: x\ndescription: Fill PDF forms\n---\n# Title\nBody')).toEqual({
      body: '# Title\nBody',
      description: 'Fill PDF forms',
    });
    expect(parseSkillText('\n## Refunds policy\nWithin 30 days.')).toEqual({
      body: '## Refunds policy\nWithin 30 days.',
      description: 'Refunds policy',
    });
    expect(parseSkillText('---\n: [\n---\nText').body).toBe('---\n: [\n---\nText');
  });

  it('load_skill is offered only with skills, and returns the whole text without front matter', async () => {
    const bundle = { mcps: [], customTools: [] };
    expect(Object.keys(modelToolSet(bundle))).toEqual(['ask_my_user']);
    const skills = loadableSkills(
      { skills: [{ name: 'triage', path: 't.md' }], workspaceFiles: { 't.md': '---\ndescription: Sort tickets\n---\nStep 1: read.' } },
      {},
    );
    expect(Object.keys(modelToolSet(bundle, skills))).toEqual(['ask_my_user', 'load_skill']);
    const tool = findBuiltinTool(bundle, 'load_skill', skills)!;
    expect(await tool.execute({ name: 'triage' }, { bundle: {} as never })).toEqual({
      output: { name: 'triage', content: 'Step 1: read.' },
      isError: false,
    });
    expect(await tool.execute({ name: 'nope' }, { bundle: {} as never })).toEqual({
      output: 'No skill named "nope". Skills: triage',
      isError: true,
    });
    expect(findBuiltinTool(bundle, 'load_skill')).toBeUndefined();
  });
});

describe('deploy checks', () => {
  const deploy = (extra: Record<string, unknown>) =>
    validateBundle(JSON.stringify({ name: 's', model: { providerId: 'openai-compatible', modelId: 'm' }, ...extra }), {
      existingSecretKeys: new Set(),
    });

  it('a bare name needs its SKILL.md; names must be distinct; a custom tool may not be load_skill', () => {
    const result = deploy({
      skills: ['triage', { name: 'dup', path: 'a.md' }, { name: 'dup', url: 'https://example.com/d' }],
      workspaceFiles: { 'a.md': 'A' },
      customTools: [{ id: 'load_skill', description: 'd', parameters: { type: 'object' } }],
    });
    expect(result).toEqual({
      ok: false,
      errors: expect.arrayContaining([
        { path: '/customTools/0/id', message: '"load_skill" is the name of a built-in tool' },
        { path: '/skills/0', message: 'names the skill file "skills/triage/SKILL.md", which is not a key of workspaceFiles' },
        { path: '/skills/2/name', message: 'a skill named "dup" is already /skills/1; loadable skills need distinct names' },
      ]),
    });
    expect(deploy({ skills: ['triage'], workspaceFiles: { 'skills/triage/SKILL.md': 'T' } })).toMatchObject({ ok: true });
  });
});
