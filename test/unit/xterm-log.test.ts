import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RateLimitedXtermLog, XTERM_LOG } from '../../src/terminal/xterm-log.js';
import { PaneTerminal } from '../../src/terminal/pane-terminal.js';

describe('xterm errors are rate-limited per pane', () => {
  it('reports the first error, holds the rest for a minute, then reports with the count', () => {
    const lines: string[] = [];
    let now = 1_000;
    const log = new RateLimitedXtermLog((line) => lines.push(line), () => now);
    log.label = 'surface 3';
    for (let i = 0; i < 1000; i++) log.error('Parsing error: ', { code: 0x9b, params: [i] });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^corral: surface 3: xterm error: Parsing error: \{"code":155/);
    now += XTERM_LOG.windowMs - 1;
    log.error('Parsing error: ', {});
    expect(lines).toHaveLength(1);
    now += 1;
    log.warn('odd', 'thing');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('(+1000 more since the last report)');
    log.error('again');
    log.flush();
    expect(lines[2]).toBe('corral: surface 3: 1 more xterm error since the last report\n');
    log.flush();
    expect(lines).toHaveLength(3);
  });

  it('shows a message quoting pane bytes with its controls made visible', () => {
    const lines: string[] = [];
    new RateLimitedXtermLog((line) => lines.push(line)).error('bad \x1b]52;c;x\x07');
    expect(lines[0]).toContain('bad ^[]52;c;x^G');
    expect(lines[0].slice(0, -1)).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
  });

  it('keeps a pane fed 2 MB of random bytes to one line of log', async () => {
    const lines: string[] = [];
    const terminal = new PaneTerminal({ cols: 80, rows: 24, log: new RateLimitedXtermLog((line) => lines.push(line)) });
    for (let i = 0; i < 32; i++) await terminal.write(randomBytes(64 * 1024));
    expect(lines.length).toBe(1);
    terminal.dispose();
    expect(lines.length).toBe(2);
    expect(lines[1]).toMatch(/^corral: pane: \d+ more xterm errors since the last report\n$/);
  });
});
