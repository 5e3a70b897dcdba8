/**
 * Typing through the TUI controller (src/tui/controller.ts): plain input takes a short way to the
 * focused pane (no parse, no routing step), so every byte must still arrive, in order, however
 * the terminal's reads cut a fast burst — and the short way must never bypass a mode (the
 * prefix, an overlay). The real core and headless terminals; the pty child scripted
 * (fakePanes), so what the pane's program receives is read back exactly.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CorralCore } from '../../src/core/corral-core.js';
import { Compositor } from '../../src/screen/compositor.js';
import { ManualScheduler } from '../../src/screen/frame-scheduler.js';
import { TuiController, type ChromeRenderer } from '../../src/tui/controller.js';
import { ClientCoreView } from '../../src/tui/client-view.js';
import { unitCore } from './support/unit-core.js';

const cores: CorralCore[] = [];
const controllers: TuiController[] = [];
afterEach(async () => {
  for (const controller of controllers.splice(0)) controller.dispose();
  for (const core of cores.splice(0)) await core.shutdown();
});

/** The chrome is not under test: drawn as nothing. */
const NO_CHROME: ChromeRenderer = { renderChrome: () => '', renderOverlay: () => null, hitTest: () => null };

function typingSetup(prefix?: string) {
  const made = unitCore(prefix === undefined ? {} : { keys: { prefix, overrides: {} } });
  cores.push(made.core);
  made.core.createWorkspace({ cwd: '/srv' });
  const compositor = new Compositor({ cols: 100, rows: 30, write: () => true, scheduler: new ManualScheduler() });
  const controller = new TuiController({
    // The controller sees the core as a client does (src/tui/client-view.ts); no place: global focus.
    core: new ClientCoreView(made.core, () => null),
    compositor,
    renderer: NO_CHROME,
    cols: 100,
    rows: 30,
    onQuit: () => {},
    onDetach: () => {},
  });
  controllers.push(controller);
  const child = made.children[0]!;
  const host = made.core.host(made.core.model.focusedPane()!);
  return { controller, child, core: made.core, received: () => child.writes.join(''), inputWritten: () => host.input.whenIdle() };
}

/**
 * One read of the terminal, as AttachedClient hands it over: the typing express first, and
 * `handleInput` when the express does not take it. Returns whether the express took it.
 */
function typeRead(controller: TuiController, text: string): boolean {
  if (controller.typeExpress(Buffer.from(text, 'utf8'))) return true;
  controller.handleInput(text);
  return false;
}

/** A small deterministic PRNG (mulberry32): the same cuts every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('typing into the focused pane', () => {
  it('delivers every byte of fast bursts in order, however the reads cut them (sequences split across reads too)', () => {
    const { controller, received } = typingSetup();
    // Typing, controls, arrow keys (CSI and SS3), alt+key, UTF-8, and a paste with no newline.
    const pieces = ['ls -la', '\r', 'é€', '\x1b[A', '\x1bOB', '\x1bx', '\x7f', '\x03', 'git status\r', '\x1b[200~pasted\x1b[201~', 'q'];
    const next = random(12);
    let sent = '';
    let expected = '';
    for (let i = 0; i < 400; i++) {
      const piece = pieces[Math.floor(next() * pieces.length)]!;
      sent += piece;
      expected += piece.replace('\x1b[200~', '').replace('\x1b[201~', '');
    }
    sent += 'end';
    expected += 'end';
    // One burst, cut into reads of 1–12 characters: a read may end inside an escape sequence.
    for (let at = 0; at < sent.length; ) {
      const length = 1 + Math.floor(next() * 12);
      controller.handleInput(sent.slice(at, at + length));
      at += length;
    }
    expect(received()).toBe(expected);
  });

  it('does not send what the prefix and an open overlay take, in the middle of typing', () => {
    const { controller, received } = typingSetup();
    controller.handleInput('ab');
    // The prefix, then `?`: the help overlay opens; the next key only closes it.
    controller.handleInput('\x02');
    controller.handleInput('?');
    expect(controller.ui.overlay?.kind).toBe('help');
    controller.handleInput('x');
    expect(controller.ui.overlay).toBeNull();
    controller.handleInput('cd\x02');
    expect(controller.ui.prefixActive).toBe(true);
    // A key after the prefix is a command (here none is bound), never typing.
    controller.handleInput('y');
    controller.handleInput('ef');
    expect(received()).toBe('abcdef');
  });

  it('takes plain typing by the express, and leaves every mode and every other key to handleInput', async () => {
    const { controller, child, received, inputWritten } = typingSetup();
    expect(typeRead(controller, 'ab')).toBe(true);
    expect(typeRead(controller, '\x02')).toBe(false); // the prefix
    expect(typeRead(controller, '?')).toBe(false); // a command after the prefix: help opens
    expect(controller.ui.overlay?.kind).toBe('help');
    expect(typeRead(controller, 'x')).toBe(false); // a key for the overlay: it closes
    expect(controller.ui.overlay).toBeNull();
    expect(typeRead(controller, 'cd')).toBe(true);
    expect(typeRead(controller, 'é\r\x1b[A')).toBe(false); // not printable ASCII: the usual way
    expect(typeRead(controller, '\x1b')).toBe(false); // a lone ESC waits for its timer…
    expect(typeRead(controller, 'q')).toBe(false); // …and what follows it goes with it (alt+q)
    // A program that takes nothing now: the keys wait in the pane's queue, and the next ones
    // take the usual way, behind them.
    child.takesInput = false;
    expect(typeRead(controller, 'gh')).toBe(true);
    child.takesInput = true;
    expect(typeRead(controller, 'ij')).toBe(false);
    await inputWritten();
    expect(typeRead(controller, 'kl')).toBe(true);
    expect(received()).toBe('abcdé\r\x1b[A\x1bqghijkl');
  });

  it('never types ahead of a paste still arriving: a piece of it that reads like typing stays in its place (issue 27)', () => {
    const { controller, received } = typingSetup();
    // A terminal's read ends inside a pasted line; the next read is a piece of that line with
    // no newline and no escape — exactly what the express takes when no paste is open.
    expect(typeRead(controller, 'ls\r\x1b[200~paste line 0 abc\rpaste line 1 ')).toBe(false);
    expect(typeRead(controller, 'defghijklm')).toBe(false);
    expect(typeRead(controller, 'n\rpaste line 2\x1b[20')).toBe(false);
    expect(typeRead(controller, '1~')).toBe(false);
    expect(typeRead(controller, 'after')).toBe(true);
    expect(received()).toBe('ls\rpaste line 0 abc\rpaste line 1 defghijklmn\rpaste line 2after');
  });

  it('keeps a paste whole while keys and a script write to the same pane (they go after it)', async () => {
    const { controller, core, received } = typingSetup();
    const pane = core.model.focusedPane()!;
    typeRead(controller, '\x1b[200~first half, ');
    // Another writer while the paste is open: it waits behind the paste.
    core.writeToPane(pane, '<script>');
    expect(received()).toBe('first half, ');
    typeRead(controller, 'second half\x1b[201~');
    typeRead(controller, 'typed');
    expect(received()).toBe('first half, second half<script>typed');
  });

  it('never types a printable prefix into the pane: a backtick prefix still starts a command', () => {
    const { controller, received } = typingSetup('`');
    expect(typeRead(controller, 'ab')).toBe(true);
    expect(typeRead(controller, '`')).toBe(false);
    expect(controller.ui.prefixActive).toBe(true);
    expect(typeRead(controller, '?')).toBe(false);
    expect(controller.ui.overlay?.kind).toBe('help');
    expect(typeRead(controller, 'q')).toBe(false);
    expect(typeRead(controller, 'x`')).toBe(false); // typing with the prefix inside it
    expect(controller.ui.prefixActive).toBe(true);
    expect(received()).toBe('abx');
  });
});
