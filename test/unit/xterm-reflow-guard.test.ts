/**
 * xterm's narrowing reflow with a full scrollback (src/terminal/xterm-reflow-guard.ts): the rows
 * it trims must not land on the rows it keeps.
 */
import xtermHeadless from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { useModernUnicode } from '../../src/terminal/unicode-provider.js';
import { guardReflowTrim } from '../../src/terminal/xterm-reflow-guard.js';

const { Terminal } = xtermHeadless;

// Found by the compact-scrollback property test: wide characters at 2 columns make the
// wrapped lines many times taller, far past a 5-row scrollback.
const OUTPUT = ['界界 0aa界', ' aa0  界é\n🚀', '界 a界ééa 界  界0éaaa0é0é a\r\n\r\n界'];

async function narrowed(scrollback: number): Promise<{ rows: string[]; cursorRow: string; cursorRowWrapped: boolean }> {
  const t = new Terminal({ cols: 12, rows: 2, scrollback, allowProposedApi: true });
  useModernUnicode(t);
  guardReflowTrim(t);
  for (const data of OUTPUT) await new Promise<void>((resolve) => t.write(data, resolve));
  t.resize(2, 2);
  const buffer = t.buffer.normal;
  const rows = Array.from({ length: buffer.length }, (_, i) => buffer.getLine(i)!.translateToString(true));
  const cursor = buffer.getLine(buffer.baseY + buffer.cursorY)!;
  t.dispose();
  return { rows, cursorRow: cursor.translateToString(true), cursorRowWrapped: cursor.isWrapped };
}

describe('xterm reflow guard', () => {
  it('keeps the rows of a full scrollback that a narrower width trims off its bottom rows', async () => {
    const full = await narrowed(5);
    const roomy = await narrowed(1000);
    // Unguarded, the cursor's row read " a" and claimed to continue the row above it.
    expect(full.cursorRow).toBe(roomy.cursorRow);
    expect(full.cursorRowWrapped).toBe(false);
    // The 7 rows kept are the newest 7 of the same reflow with room for all of them.
    expect(full.rows).toEqual(roomy.rows.slice(-7));
  });
});
