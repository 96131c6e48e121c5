import { describe, expect, it } from 'vitest';
import { systemPrompt } from '../../activities/model/system-prompt.ts';
import type { Skill } from '../../contract/bundle.ts';

const prompt = (instructions: string | undefined, skills: Skill[], workspaceFiles: Record<string, string> = {}) =>
  systemPrompt({ instructions, skills, workspaceFiles });

describe('systemPrompt', () => {
  it('is undefined when the agent has neither instructions nor skills', () => {
    expect(prompt(undefined, [])).toBeUndefined();
    expect(prompt('', [])).toBeUndefined();
  });

  it('is the instructions alone when there are no skills', () => {
    expect(prompt('You are terse.\n\n', [])).toBe('You are terse.');
  });

  it('lays out instructions, skills in bundle order, then references', () => {
    const text = prompt(
      'You help with orders.',
      [
        'Always answer in French.',
        { name: 'Refunds', path: 'skills/refunds.md' },
        { name: 'Style guide', url: 'https://example.com/style' },
        { name: 'Empty', path: 'skills/empty.md' },
        'Sign every reply.\n',
        { name: 'API docs', url: 'https://example.com/api' },
      ],
      { 'skills/refunds.md': 'Refund within 30 days.\n', 'skills/empty.md': '', 'other.md': 'not a skill' },
    );
    expect(text).toBe(
      [
        'You help with orders.',
        '# Skills',
        'Always answer in French.',
        '## Refunds\n\nRefund within 30 days.',
        '## Empty',
        'Sign every reply.',
        '# References\n\n- Style guide: https://example.com/style\n- API docs: https://example.com/api',
      ].join('\n\n'),
    );
  });

  it('works with skills and no instructions, and says so when a skill file is missing', () => {
    expect(prompt(undefined, [{ name: 'Gone', path: 'gone.md' }])).toBe(
      '# Skills\n\n## Gone\n\n(The file gone.md is not in the workspace.)',
    );
    expect(prompt(undefined, [{ name: 'Only a link', url: 'https://example.com' }])).toBe(
      '# References\n\n- Only a link: https://example.com',
    );
  });

  it('is deterministic', () => {
    const skills: Skill[] = ['a', { name: 'b', path: 'b.md' }, { name: 'c', url: 'https://c' }];
    expect(prompt('x', skills, { 'b.md': 'B' })).toBe(prompt('x', skills, { 'b.md': 'B' }));
  });
});
