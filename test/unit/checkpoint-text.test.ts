/**
 * The pure parts of checkpoints (SPEC §20): what a person typed into an agent's input as the
 * bytes tell it (src/checkpoint/prompt-line.ts), the facts a checkpoint's commit message
 * carries and reads back, and the ref key an agent's checkpoints live under.
 */
import { describe, expect, it } from 'vitest';
import { PromptLine } from '../../src/checkpoint/prompt-line.js';
import { checkpointMessage, parseFacts, type CheckpointFacts } from '../../src/checkpoint/checkpoint-git.js';
import { checkpointKey } from '../../src/actions/checkpoint-keeper.js';

describe('PromptLine', () => {
  it('submits the typed line on Enter, in every encoding of Enter', () => {
    for (const enter of ['\r', '\x1b[13u', '\x1b[13;1u', '\x1b[57414u', '\x1bOM']) {
      const line = new PromptLine();
      expect(line.feed('fix the tests')).toEqual([]);
      expect(line.feed(enter)).toEqual(['fix the tests']);
      expect(line.feed('\r')).toEqual(['']);
    }
  });

  it('applies Backspace, Ctrl+U and Ctrl+C, and skips cursor keys', () => {
    const line = new PromptLine();
    expect(line.feed('helo\x7f\x7fllo wörld\x7f\x7f\x7f\x7f\x7fworld\x1b[D\x1b[1;5C\r')).toEqual(['hello world']);
    expect(line.feed('thrown away\x15kept\r')).toEqual(['kept']);
    expect(line.feed('gone\x03again\r')).toEqual(['again']);
  });

  it('keeps a paste as text: its line breaks do not submit', () => {
    const line = new PromptLine();
    expect(line.feed('\x1b[200~first\r\nsecond\x1b[201~')).toEqual([]);
    expect(line.feed('\r')).toEqual(['first  second']);
  });

  it('is not fooled by Shift+Enter, Ctrl+J, or an escape sequence cut between two writes', () => {
    const line = new PromptLine();
    expect(line.feed('a\x1b[13;2ub\nc')).toEqual([]);
    expect(line.feed('\x1b[')).toEqual([]);
    expect(line.feed('Dd\x1b')).toEqual([]);
    expect(line.feed('[13u')).toEqual(['ab cd']);
  });

  it('submits several lines from one write, in order', () => {
    expect(new PromptLine().feed('one\rtwo\r')).toEqual(['one', 'two']);
  });
});

describe('checkpoint facts', () => {
  const facts: CheckpointFacts = { id: 7, turn: 3, at: '2026-12-07T10:00:00.000Z', prompt: 'say "hi"\u001b[31m', reason: 'turn', ms: 42, checkout: '/r', kind: 'claude' };

  it('round-trip through the commit message, with a subject people read', () => {
    const message = checkpointMessage('alice', facts);
    expect(message.split('\n')[0]).toBe('corral checkpoint alice/7: before turn 3');
    expect(parseFacts(message.split('\n').slice(2).join('\n'))).toEqual(facts);
    expect(checkpointMessage('alice', { ...facts, reason: 'rewind' }).split('\n')[0]).toBe('corral checkpoint alice/7: before a rewind (turn 3)');
  });

  it('read back as nothing from a message that is not a checkpoint\u2019s', () => {
    expect(parseFacts('just a commit')).toBeNull();
    expect(parseFacts('{not json')).toBeNull();
    expect(parseFacts(JSON.stringify({ ...facts, id: 'seven' }))).toBeNull();
    expect(parseFacts(JSON.stringify({ ...facts, reason: 'other' }))).toBeNull();
  });
});

describe('checkpointKey', () => {
  it('is the agent\u2019s name, else its kind and surface id, always a valid ref component', () => {
    expect(checkpointKey({ name: 'alice', kind: 'claude' }, 4)).toBe('alice');
    expect(checkpointKey({ name: null, kind: 'claude' }, 4)).toBe('claude-4');
    expect(checkpointKey({ name: null, kind: 'My Agent.v2' }, 9)).toBe('my-agent-v2-9');
    expect(checkpointKey({ name: null, kind: '..' }, 1)).toBe('agent-1');
  });
});
