/** The rows above the echoed start command are hidden from detection until the echo is gone. */
import { describe, expect, it } from 'vitest';
import { findStartLine, rowsBelowStartLine, startLineAtAdoption } from '../../src/agents/start-line.js';

const COMMAND = "gemini --resume d3e0c27e-5016-4416-85ee-ca9d60aaeaca";
const SCREEN = [
  ' >   Type your message or @path/to/file',
  '── restored 2026-12-01 06:04 ──',
  'resuming gemini agent "r", its session d3e0c27e-5016-4416-85ee-ca9d60aaeaca',
  `root@vm:/tmp/project# ${COMMAND}`,
];

describe('findStartLine', () => {
  it('finds the lowest row ending with the command (not a note above that ends with the same id)', () => {
    expect(findStartLine(SCREEN, 100, COMMAND)).toEqual({ row: 103, text: SCREEN[3] });
  });
  it('finds the last row of a command that wrapped (its tail)', () => {
    const wrapped = ['$ gemini --resume d3e0c27e-5016-44', '16-85ee-ca9d60aaeaca', ''];
    expect(findStartLine(wrapped, 0, COMMAND)).toEqual({ row: 1, text: wrapped[1] });
    // Wrapped at a space: the row's text has lost it.
    const atSpace = ['$ gemini --resume', 'd3e0c27e-5016-4416-85ee-ca9d60aaeaca'];
    expect(findStartLine(atSpace, 7, COMMAND)).toEqual({ row: 8, text: atSpace[1] });
  });
  it('is null when no row ends with it (a note ending with the same id is not the command), or for an empty command', () => {
    expect(findStartLine(SCREEN.slice(0, 3), 0, COMMAND)).toBeNull();
    expect(findStartLine(SCREEN, 0, '  ')).toBeNull();
  });
});

describe('rowsBelowStartLine', () => {
  const line = { row: 103, text: SCREEN[3]! };
  it('keeps only the rows below the echo while it is where it was', () => {
    const rows = [...SCREEN, 'Gemini starting'];
    expect(rowsBelowStartLine(rows, 100, line)).toEqual({ rows: ['Gemini starting'], line });
  });
  it('follows the echo as the screen scrolls (absolute rows)', () => {
    const rows = [...SCREEN.slice(2), 'a', 'b'];
    expect(rowsBelowStartLine(rows, 102, line)).toEqual({ rows: ['a', 'b'], line });
  });
  it('lets go for good once the echo is cleared, drawn over, or scrolled away', () => {
    expect(rowsBelowStartLine(['x', 'y', 'z', 'other', 'w'], 100, line)).toEqual({ rows: ['x', 'y', 'z', 'other', 'w'], line: null });
    expect(rowsBelowStartLine(['new'], 100, line).line).toBeNull();
    expect(rowsBelowStartLine(['later'], 104, line).line).toBeNull();
  });
});

describe('startLineAtAdoption', () => {
  it('is the echo when it is on screen', () => {
    expect(startLineAtAdoption(SCREEN, 0, COMMAND)).toEqual({ row: 3, text: SCREEN[3] });
  });
  it('is the last row shown when the echo is not read yet: all of it is older than the agent', () => {
    expect(startLineAtAdoption([...SCREEN.slice(0, 3), '', ''], 10, COMMAND)).toEqual({ row: 12, text: SCREEN[2] });
    expect(startLineAtAdoption(['', ''], 0, COMMAND)).toBeNull();
  });
});
