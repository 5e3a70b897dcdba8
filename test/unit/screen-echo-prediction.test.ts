import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { Compositor, ManualScheduler } from '../../src/screen/index.js';
import { TerminalProbe } from '../../src/terminal/terminal-probe.js';
import { damagedRows } from '../../src/terminal/damage.js';
import { PaneTerminal } from '../../src/terminal/pane-terminal.js';

const disposables: { dispose(): void }[] = [];
afterEach(() => {
  for (const d of disposables.splice(0)) d.dispose();
});

const SCREEN = { cols: 30, rows: 8 };
const RECT = { x: 2, y: 1, cols: 20, rows: 5 };

/**
 * A pane terminal shown by a compositor on a probe standing in for the user's terminal, wired
 * as the TUI wires them: output is offered to predictEcho before it is parsed, and each parse
 * marks the damaged rows. Every byte the compositor writes reaches the probe in order.
 */
function setup(options: { predict?: boolean; colors?: 256 } = {}) {
  const pane = new PaneTerminal({ cols: RECT.cols, rows: RECT.rows, scrollback: 20 });
  const probe = new TerminalProbe(SCREEN.cols, SCREEN.rows);
  let written = '';
  let fed = Promise.resolve();
  const compositor = new Compositor({
    ...SCREEN,
    scheduler: new ManualScheduler(),
    ...(options.colors ? { colors: options.colors } : {}),
    write: (bytes) => {
      written += bytes;
      fed = fed.then(() => probe.write(bytes));
    },
  });
  disposables.push(pane, probe, compositor);
  compositor.setPaneLayers([{ id: 'p', screen: pane, rect: RECT, focused: true }]);
  compositor.renderNow();
  const predicted: boolean[] = [];
  if (options.predict !== false) {
    pane.onBeforeParse((data) => predicted.push(compositor.beforePaneParse('p', data)));
  }
  pane.onRevision(() => compositor.markPaneDirty('p', damagedRows(pane.lastDamage)));
  /** Output from the pane's program; returns what went to the terminal before and at the next frame. */
  const output = async (data: string) => {
    written = '';
    await pane.write(data);
    const ahead = written;
    const frame = compositor.renderNow();
    await fed;
    return { ahead, frame };
  };
  /** The user's terminal shows exactly what the compositor thinks it shows, cursor included. */
  const expectInSync = () => {
    expect(probe.grid().equals(compositor.screen)).toBe(true);
    const cursor = probe.terminal.buffer.active;
    const shown = compositor.cursor;
    expect(shown && [cursor.cursorX, cursor.cursorY]).toEqual(shown && [shown.x, shown.y]);
  };
  /**
   * The typing express as the TUI drives it: `typed` armed right after the key went to the
   * pane (`between` runs while the shell echoes), then the pane's output `data` offered to
   * `expressEcho` as it comes off the pty, before the usual path (predictEcho, parse, frame).
   */
  const typed = async (text: string, data: string, between?: () => void) => {
    compositor.armEcho('p', text);
    between?.();
    written = '';
    const expressed = compositor.expressEcho('p', Buffer.from(data, 'latin1'));
    const early = written;
    const { ahead, frame } = await output(data);
    return { expressed, early, ahead, frame };
  };
  return { pane, probe, compositor, output, typed, expectInSync, predicted };
}

/** Pane output as shells and editors produce it: typing, escapes, wide text, wraps, scrolls. */
const piece = fc.oneof(
  { weight: 4, arbitrary: fc.stringMatching(/^[ -~]{1,6}$/) },
  fc.constantFrom('\r\n', '\r', '\b', '\b \b', '\t', '\x1b[K', '\x1b[2J\x1b[H', '\x1b[31m', '\x1b[0m', '\x1b[1;7m', '\x1b[4h', '\x1b[4l', '\x1b(0', '\x1b(B', '\x1b[?25l', '\x1b[?25h', '界', 'é', '\x1b[?1049h', '\x1b[?1049l', '\x1b[2P', '\x1b[3@'),
  fc.tuple(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 21 })).map(([r, c]) => `\x1b[${r};${c}H`),
);


describe('echo prediction', () => {
  it('writes a typed character before the frame, and the frame then has nothing to add', async () => {
    const s = setup();
    await s.output('$ ');
    const { ahead, frame } = await s.output('l');
    expect(ahead).toBe('l');
    expect(frame).toBe('');
    s.expectInSync();
    expect(s.probe.lines()[RECT.y]?.slice(RECT.x, RECT.x + 3)).toBe('$ l');
  });

  it('does not predict insert mode, other character sets, or text that would wrap', async () => {
    const s = setup();
    await s.output('$ ');
    for (const setupSeq of ['\x1b[4h', '\x1b(0', `\x1b[1;${RECT.cols - 1}H`]) {
      await s.output(setupSeq);
      const { ahead } = await s.output('qq');
      expect(ahead).toBe('');
      s.expectInSync();
      await s.output('\x1b[0m\x1b[4l\x1b(B\r\n');
    }
  });

  it('predicts output in a coloured or bold pen: its SGR around the text, the default pen after, in step', async () => {
    const s = setup();
    await s.output('$ ');
    await s.output('\x1b[1;38;2;255;100;0m');
    const { ahead, frame } = await s.output('ab');
    expect(ahead).toBe('\x1b[1;38;2;255;100;0mab\x1b[m');
    expect(frame).toBe('');
    s.expectInSync();
    // The terminal is back in the default pen: a plain echo after a reset needs no SGR.
    await s.output('\x1b[0m');
    expect((await s.output('c')).ahead).toBe('c');
    s.expectInSync();
  });

  it('writes a predicted pen in the colours a 256-colour terminal shows', async () => {
    const s = setup({ colors: 256 });
    await s.output('$ \x1b[38;2;255;0;0m');
    const { ahead, frame } = await s.output('x');
    expect(ahead).toBe('\x1b[38;5;196mx\x1b[m');
    expect(frame).toBe('');
  });

  it('does not write over an overlay that covers the pane', async () => {
    const s = setup();
    await s.output('$ ');
    s.compositor.setOverlay('o', 'XXXXXXXX', { x: RECT.x, y: RECT.y });
    s.compositor.renderNow();
    const { ahead } = await s.output('ab');
    expect(ahead).toBe('');
    s.expectInSync();
  });

  it('predicts only what the frame would have drawn, and keeps the user\'s terminal in step', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { minLength: 1, maxLength: 40 }), async (pieces) => {
        const s = setup();
        try {
          for (const p of pieces) {
            const { ahead, frame } = await s.output(p);
            // A prediction is never a guess that needs correcting.
            if (ahead !== '') expect(frame).toBe('');
            s.expectInSync();
          }
        } finally {
          for (const d of disposables.splice(0)) d.dispose();
        }
      }),
      { numRuns: 120 },
    );
  });

  it('predicts the ordinary case: most typed characters go out ahead of the frame', async () => {
    const s = setup();
    await s.output('$ ');
    s.predicted.length = 0;
    for (const ch of 'echo hello') await s.output(ch);
    expect(s.predicted).toEqual(Array('echo hello'.length).fill(true));
  });
});

describe('typing express (armEcho, expressEcho)', () => {
  it('writes the armed echo as it comes off the pty, once: the usual prediction and the frame add nothing', async () => {
    const s = setup();
    await s.output('$ ');
    const { expressed, early, ahead, frame } = await s.typed('l', 'l');
    expect(expressed).toBe(true);
    expect(early).toBe('l');
    expect(ahead).toBe(''); // predictEcho, which follows, writes it no second time
    expect(frame).toBe('');
    s.expectInSync();
    expect(s.probe.lines()[RECT.y]?.slice(RECT.x, RECT.x + 3)).toBe('$ l');
  });

  it('writes nothing when the output is not the typed text, or when anything asked for a frame in between', async () => {
    const s = setup();
    await s.output('$ ');
    expect((await s.typed('a', 'b')).expressed).toBe(false);
    s.expectInSync();
    expect((await s.typed('ab', 'a')).expressed).toBe(false);
    s.expectInSync();
    const disturbances = [
      () => s.compositor.requestFrame(),
      () => s.compositor.markPaneDirty('p'),
      () => s.compositor.writeControl('\x1b]52;c;eA==\x07'),
      () => s.compositor.setOverlay('o', 'XXXX', { x: RECT.x, y: RECT.y }),
      () => s.compositor.renderNow(),
    ];
    for (const disturb of disturbances) {
      const { expressed, early } = await s.typed('x', 'x', disturb);
      expect(expressed).toBe(false);
      expect(early).toBe('');
      s.compositor.setOverlay('o', null);
      await s.output(''); // a frame, and the probe fed
      s.expectInSync();
    }
    // An echo that came and went disarms: a second copy of it is not written ahead.
    await s.typed('y', 'y');
    expect(s.compositor.expressEcho('p', Buffer.from('y'))).toBe(false);
  });

  it('never writes what the frame would not have drawn, whatever the pane prints after a key', async () => {
    const typedText = fc.stringMatching(/^[ -~]{1,4}$/);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(typedText, fc.boolean(), piece), { minLength: 1, maxLength: 30 }),
        async (steps) => {
          const s = setup();
          try {
            for (const [text, echoes, other] of steps) {
              // The pane echoes what was typed, or prints something else first.
              const { early, ahead, frame } = await s.typed(text, echoes ? text : other);
              // Written early, it is the typed text — in the pane's pen when that is not the default.
              if (early !== '') expect(early.replace(/\x1b\[[0-9;]*m/g, '')).toBe(text);
              if (ahead !== '') expect(frame).toBe('');
              s.expectInSync();
            }
          } finally {
            for (const d of disposables.splice(0)) d.dispose();
          }
        },
      ),
      { numRuns: 120 },
    );
  });
});
