// The system prompt: instructions, always-on string skills, then the loadable skills listed by name
// and description only (their texts come through load_skill).
import { describe, expect, it } from 'vitest';
import { systemPrompt } from '../../activities/model/system-prompt.ts';
import type { Skill } from '../../contract/bundle.ts';
import { loadableSkills } from '../../lib/skills.ts';

const prompt = (instructions: string | undefined, skills: Skill[], workspaceFiles: Record<string, string> = {}, fetched = {}) =>
  systemPrompt({ instructions, skills }, loadableSkills({ skills, workspaceFiles }, fetched));

describe('systemPrompt', () => {
  it('is undefined when the agent has neither instructions nor skills', () => {
    expect(prompt(undefined, [])).toBeUndefined();
    expect(prompt('', [])).toBeUndefined();
  });

  it('is the instructions alone when there are no skills', () => {
    expect(prompt('You are terse.\n\n', [])).toBe('You are terse.');
  });

  it('lays out instructions, always-on skills in bundle order, then the loadable ones by name and one line', () => {
    const text = prompt(
      'You help with orders.',
      [
        'Always answer in French.',
        { name: 'refunds', path: 'docs/refunds.md' },
        { name: 'style', url: 'https://example.com/style.md' },
        'Sign every reply.\n',
        'release-notes',
      ],
      {
        'docs/refunds.md': '# Refunds\n\nRefund within 30 days.\n',
        'skills/release-notes/SKILL.md': '---\nname: release-notes\ndescription: Write release notes from a changelog\n---\nStep 1...',
      },
      { '2': 'Use the house style: short sentences.' },
    );
    expect(text).toBe(
      [
        'You help with orders.',
        '# Skills',
        'Always answer in French.',
        'Sign every reply.',
        '# Skills you can load',
        "Each skill below is a document of instructions for one kind of task. When a task matches a skill's description, call load_skill with its name first, then follow what it says.",
        '- refunds: Refunds\n- style: Use the house style: short sentences.\n- release-notes: Write release notes from a changelog',
      ].join('\n\n'),
    );
    expect(text).not.toContain('Refund within 30 days');
  });

  it('says so when a skill has no text (a revision stored before the checks)', () => {
    expect(prompt(undefined, [{ name: 'gone', path: 'gone.md' }])).toContain('- gone: (unavailable)');
  });

  it('is deterministic', () => {
    const skills: Skill[] = ['a rule', { name: 'b', path: 'b.md' }, { name: 'c', url: 'https://c' }];
    expect(prompt('x', skills, { 'b.md': 'B' }, { '2': 'C' })).toBe(prompt('x', skills, { 'b.md': 'B' }, { '2': 'C' }));
  });
});
