/**
 * The fast print of printable ASCII (src/terminal/ascii-print.ts) must leave exactly what
 * xterm.js's own print leaves: two terminals, one with it and one without, are fed the same
 * random output and compared word for word (cells, wrap flags, side tables, cursor, scrolling,
 * the parser's join state).
 */
import fc from 'fast-check';
import xterm from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { installAsciiPrint } from '../../src/terminal/ascii-print.js';
import { useModernUnicode } from '../../src/terminal/unicode-provider.js';

const { Terminal } = xterm;

interface Core {
  _core: {
    _inputHandler: { _parser: { precedingJoinState: number } };
    buffer: { x: number; y: number; ybase: number; ydisp: number; lines: { length: number; get(i: number): RowInternals } };
  };
}
interface RowInternals {
  _data: Uint32Array;
  isWrapped: boolean;
  _combined: Record<number, string>;
  _extendedAttrs: Record<number, unknown>;
}

function make(cols: number, rows: number, fast: boolean): InstanceType<typeof Terminal> {
  const t = new Terminal({ cols, rows, scrollback: 50, allowProposedApi: true });
  useModernUnicode(t);
  if (fast) expect(installAsciiPrint(t)).toBe(true);
  return t;
}

function write(t: InstanceType<typeof Terminal>, data: string): Promise<void> {
  return new Promise((resolve) => t.write(data, resolve));
}

/** Everything print can touch, for both buffers. */
function state(t: InstanceType<typeof Terminal>): unknown {
  const core = (t as unknown as Core)._core;
  const b = core.buffer;
  const rows = [];
  for (let i = 0; i < b.lines.length; i++) {
    const line = b.lines.get(i);
    rows.push({
      data: Array.from(line._data.subarray(0, t.cols * 3)),
      wrapped: line.isWrapped,
      combined: { ...line._combined },
      extended: Object.keys(line._extendedAttrs).sort(),
    });
  }
  return { type: t.buffer.active.type, x: b.x, y: b.y, ybase: b.ybase, ydisp: b.ydisp, join: core._inputHandler._parser.precedingJoinState, rows };
}

const piece = fc.oneof(
  { weight: 8, arbitrary: fc.stringMatching(/^[ -~]{1,40}$/) },
  { weight: 3, arbitrary: fc.stringMatching(/^[a-z 界é🚀\u0301]{1,12}$/) },
  { weight: 4, arbitrary: fc.constantFrom('\r\n', '\n', '\r', '\t', '\b') },
  fc.constantFrom('\x1b[31m', '\x1b[1;44m', '\x1b[38;2;1;2;3m', '\x1b[7m', '\x1b[4:3m', '\x1b[58;5;9m', '\x1b[0m', '\x1b]8;;http://x\x07', '\x1b]8;;\x07'),
  fc.constantFrom('\x1b[K', '\x1b[2J', '\x1b[3S', '\x1b[L', '\x1b[M', '\x1b[2P', '\x1b[2@', '\x1b[4h', '\x1b[4l'),
  fc.constantFrom('\x1b[?1049h', '\x1b[?1049l', '\x1b[2;3r', '\x1b[r', '\x1b[?7l', '\x1b[?7h', '\x1b(0', '\x1b(B'),
  fc.tuple(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 22 })).map(([r, c]) => `\x1b[${r};${c}H`),
);

describe('fast print of printable ASCII', () => {
  it('leaves exactly what xterm’s own print leaves', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 20 }),
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.array(piece, { minLength: 1, maxLength: 10 }), { minLength: 1, maxLength: 20 }),
        async (cols, rows, writes) => {
          const plain = make(cols, rows, false);
          const fast = make(cols, rows, true);
          try {
            for (const pieces of writes) {
              const data = pieces.join('');
              await write(plain, data);
              await write(fast, data);
              expect(state(fast)).toEqual(state(plain));
            }
          } finally {
            plain.dispose();
            fast.dispose();
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('takes the fast path for plain ASCII (the words are written by it, not by xterm)', async () => {
    const t = make(10, 3, true);
    const handler = (t as unknown as { _core: { _inputHandler: { print: { name: string } } } })._core._inputHandler;
    expect(handler.print.name).toBe('asciiPrint');
    await write(t, 'abcdefghijklmnop\r\nxyz');
    expect(t.buffer.active.getLine(0)!.translateToString()).toBe('abcdefghij');
    expect(t.buffer.active.getLine(1)!.isWrapped).toBe(true);
    expect(t.buffer.active.getLine(1)!.translateToString(true)).toBe('klmnop');
    expect(t.buffer.active.getLine(2)!.translateToString(true)).toBe('xyz');
    t.dispose();
  });
});
