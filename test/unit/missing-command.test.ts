import { describe, expect, it } from 'vitest';
import { notFoundLine } from '../../src/agents/missing-command.js';

describe('notFoundLine', () => {
  it('finds each common shell\u2019s report for the executable', () => {
    expect(notFoundLine(['$ claude', 'bash: claude: command not found'], 'claude')).toBe('bash: claude: command not found');
    expect(notFoundLine(['zsh: command not found: codex'], 'codex')).toBe('zsh: command not found: codex');
    expect(notFoundLine(['sh: 1: gemini: not found'], 'gemini')).toBe('sh: 1: gemini: not found');
    expect(notFoundLine(['fish: Unknown command: claude'], 'claude')).toBe('fish: Unknown command: claude');
  });

  it('ignores other programs and lines without a shell phrase', () => {
    expect(notFoundLine(['bash: claudette: command not found'], 'claude')).toBeNull();
    expect(notFoundLine(['bash: foo: command not found'], 'claude')).toBeNull();
    expect(notFoundLine(['$ claude', 'Welcome to Claude Code'], 'claude')).toBeNull();
  });
});
