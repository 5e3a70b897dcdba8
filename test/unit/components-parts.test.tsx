import xterm from '@xterm/headless';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { BADGE, NO_BADGE, badgeFor } from '../../components/badges.js';
import { Canvas } from '../../components/canvas.js';
import { borderRow } from '../../components/box.js';
import { listWindow } from '../../components/list-window.js';
import { sgr } from '../../components/paint.js';
import { tabBarSegments } from '../../components/TabBar.js';
import { GLYPH } from '../../components/theme.js';
import { clean, fit, fitAnsi, textWidth, truncate, truncateStart } from '../../components/text-cells.js';
import { codePointWidth } from '../../src/screen/index.js';
import type { AgentStatus } from '../../src/contract/protocol.js';
import type { TabEntry } from '../../components/chrome-model.js';

const { Terminal } = xterm;
const strip = (s: string): string => s.replace(/\x1b\[[0-9;]*m/g, '');

describe('badges', () => {
  const statuses: AgentStatus[] = ['idle', 'working', 'blocked', 'done', 'unknown', 'errored', 'stalled'];

  it('has a glyph, word and style for every status, each glyph distinct', () => {
    for (const s of statuses) {
      expect(BADGE[s].glyph, s).toHaveLength(1);
      expect(BADGE[s].word.length, s).toBeGreaterThan(0);
    }
    expect(new Set(statuses.map((s) => BADGE[s].glyph)).size).toBe(statuses.length);
    expect(badgeFor(null)).toBe(NO_BADGE);
  });

  it('makes done stand out from idle', () => {
    expect(BADGE.done.glyph).not.toBe(BADGE.idle.glyph);
    expect(sgr(BADGE.done.style)).not.toBe(sgr(BADGE.idle.style));
    expect(BADGE.done.style.bold).toBe(true);
    expect(BADGE.idle.style.dim).toBe(true);
  });

  it('uses glyphs one cell wide in Ink (string-width), the compositor (char-width) and xterm', async () => {
    const glyphs = [...statuses.map((s) => BADGE[s].glyph), ...Object.values(GLYPH), '┌┐└┘─│╭╮╰╯…↑'].join('');
    const t = new Terminal({ cols: 80, rows: 2, allowProposedApi: true });
    try {
      for (const g of glyphs) {
        expect(stringWidth(g), g).toBe(1);
        expect(codePointWidth(g.codePointAt(0)!), g).toBe(1);
        await new Promise<void>((resolve) => t.write(`\x1b[H${g}`, resolve));
        expect(t.buffer.active.cursorX, g).toBe(1);
      }
    } finally {
      t.dispose();
    }
  });
});

describe('text cells', () => {
  it('measures wide characters as two cells', () => {
    expect(textWidth('abc')).toBe(3);
    expect(textWidth('日本')).toBe(4);
    expect(textWidth('🚀x')).toBe(3);
    expect(textWidth('é')).toBe(1);
  });

  it('truncates to the width with …, never splitting a wide character past the limit', () => {
    expect(truncate('hello world', 5)).toBe('hell…');
    expect(truncate('hello', 5)).toBe('hello');
    expect(truncate('日本語', 4)).toBe('日…');
    expect(textWidth(truncate('日本語テキスト', 6))).toBeLessThanOrEqual(6);
    expect(truncate('abc', 0)).toBe('');
    expect(truncateStart('abcdefgh', 4)).toBe('…fgh');
  });

  it('pads to exactly the width', () => {
    expect(fit('ab', 4)).toBe('ab  ');
    expect(fit('abcdef', 4)).toBe('abc…');
    expect(textWidth(fit('日本語', 5))).toBe(5);
  });

  it('makes control characters visible, so they neither act on the terminal nor break the row', () => {
    expect(clean('a\x1b[2Jb\nc\td\x9b')).toBe('a^[[2Jb^Jc^Id\\x9b');
    expect(fit('\x1b]0;x\x07', 8)).toBe('^[]0;x^G');
    expect(truncate('\x1b[2J long label', 6)).toBe('^[[2J…');
  });

  it('fits ANSI lines: pads, cuts, resets styles and keeps wide characters whole', () => {
    expect(fitAnsi('ab', 4)).toBe('ab  ');
    const styled = fitAnsi('\x1b[1mbold\x1b[22m', 6);
    expect(strip(styled)).toBe('bold  ');
    expect(styled).toContain('\x1b[0m');
    expect(strip(fitAnsi('\x1b[31mabcdef', 3))).toBe('abc');
    // A wide character that would straddle the edge becomes a space.
    expect(strip(fitAnsi('a日本', 4))).toBe('a日 ');
  });
});

describe('canvas and borders', () => {
  it('embeds left and right labels in a border row', () => {
    const c = new Canvas({ x: 10, y: 5, cols: 30, rows: 1 });
    borderRow(c, 10, 5, 30, ['┌', '┐'], '─', {}, [{ text: 'title' }], [{ text: 'zoomed' }]);
    expect(strip(c.toLines()[0])).toBe('┌─ title ─────────── zoomed ─┐');
  });

  it('truncates the left label and drops the right one when it cannot fit', () => {
    const c = new Canvas({ x: 0, y: 0, cols: 14, rows: 1 });
    borderRow(c, 0, 0, 14, ['┌', '┐'], '─', {}, [{ text: 'a long title here' }], [{ text: 'a very long right label' }]);
    expect(strip(c.toLines()[0])).toBe('┌─ a long … ─┐');
  });

  it('keeps wide characters whole when drawing over or past the edge', () => {
    const c = new Canvas({ x: 0, y: 0, cols: 5, rows: 1 });
    c.put(0, 0, '日本語');
    expect(strip(c.toLines()[0])).toBe('日本 ');
    c.put(1, 0, 'x');
    expect(strip(c.toLines()[0])).toBe(' x本 ');
    expect(textWidth(strip(c.toLines()[0]))).toBe(5);
  });

  it('clips drawing outside its area', () => {
    const c = new Canvas({ x: 2, y: 2, cols: 3, rows: 2 });
    c.put(0, 2, 'abcdefg');
    c.put(0, 9, 'zzz');
    expect(c.toLines().map(strip)).toEqual(['cde', '   ']);
  });
});

describe('listWindow', () => {
  it('shows everything that fits', () => {
    expect(listWindow(3, 5, 0)).toEqual({ start: 0, end: 3, hidden: 0 });
  });

  it('keeps the item in view and leaves a line for the note', () => {
    expect(listWindow(10, 4, 0)).toEqual({ start: 0, end: 3, hidden: 7 });
    const w = listWindow(10, 4, 8);
    expect(w.start).toBeLessThanOrEqual(8);
    expect(w.end).toBeGreaterThan(8);
    expect(w.end - w.start).toBe(3);
    expect(listWindow(10, 4, 9)).toEqual({ start: 7, end: 10, hidden: 7 });
    expect(listWindow(10, 1, 5)).toEqual({ start: 0, end: 0, hidden: 10 });
  });
});

describe('tab bar', () => {
  const tabs = (n: number, focused: number): TabEntry[] =>
    Array.from({ length: n }, (_, i) => ({ id: `t${i}`, label: `tab${i}`, index: i + 1, focused: i === focused, badge: null }));

  it('shows every tab when they fit', () => {
    expect(strip(tabBarSegments(tabs(3, 0), 80).map((s) => s.text).join(''))).toBe(' 1:tab0    2:tab1    3:tab2   ');
  });

  it('scrolls to the focused tab and marks the cut-off sides', () => {
    for (let focus = 0; focus < 12; focus++) {
      const text = tabBarSegments(tabs(12, focus), 30).map((s) => s.text).join('');
      expect(textWidth(text), `focus ${focus}`).toBeLessThanOrEqual(30);
      expect(text, `focus ${focus}`).toContain(` ${focus + 1}:tab${focus} `);
      if (focus > 2) expect(text.startsWith('‹')).toBe(true);
      if (focus < 9) expect(text.endsWith('›')).toBe(true);
    }
  });
});
