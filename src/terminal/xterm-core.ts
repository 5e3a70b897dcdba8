/**
 * Everything built on one headless xterm for a pane: the terminal and corral's parts that hook
 * into it (serializer, keyboard modes, Unicode widths, the ASCII fast path, the scrollback
 * store, damage tracking, the parse guard). `PaneTerminal` holds one; a pane whose terminal
 * hibernated gets a new one, fed the pane's output again (hibernation.ts). What the core
 * reports goes to its owner through `XtermCoreEvents`, so the owner decides what is news.
 */
import xterm from '@xterm/headless';
import type { IBuffer, ILogger, Terminal as XTerminal } from '@xterm/headless';
import serializeAddon from '@xterm/addon-serialize';
import type { Disposable } from '../contract/disposable.js';
import { DamageTracker } from './damage.js';
import { guardParser } from './parse-guard.js';
import { clampCounts } from './count-clamp.js';
import { installAsciiPrint } from './ascii-print.js';
import { KeyboardModes } from './keyboard-modes.js';
import { useModernUnicode } from './unicode-provider.js';
import { guardReflowTrim } from './xterm-reflow-guard.js';
import { Scrollback, xtermScrollbackFor, type LineBuffer, type ScrollbackOptions } from './scrollback.js';
import { XtermScreen } from './xterm-screen.js';

// @xterm/headless and addon-serialize are CommonJS bundles without named ESM exports.
const { Terminal } = xterm;
const { SerializeAddon } = serializeAddon;

/** OSC identifiers handled by the owner. */
export const OSC = {
  /** ConEmu/Windows Terminal `OSC 9 ; 4 ; state ; value` progress reports (and iTerm2 OSC 9 notifications). */
  conemu: 9,
} as const;

export interface XtermCore {
  readonly xterm: XTerminal;
  /** The screen as the compositor reads it. */
  readonly screen: XtermScreen;
  readonly serializer: InstanceType<typeof SerializeAddon>;
  /** The enhanced keyboard reporting the application asked for (kitty flags, modifyOtherKeys). */
  readonly keyboard: KeyboardModes;
  readonly lines: Scrollback;
  readonly damageTracker: DamageTracker;
  readonly subscriptions: Disposable[];
}

/** What a core tells its owner. */
export interface XtermCoreEvents {
  /** An answer the terminal owes the application (kitty's `CSI ? u`). */
  reply(data: string): void;
  /** xterm threw on a write (see parse-guard.ts). */
  parseError(): void;
  /** The application switched to the alternate screen. */
  toAlternate(core: XtermCore): void;
  /** A write batch was parsed. */
  parsed(core: XtermCore): void;
  title(title: string): void;
  scroll(): void;
  bell(): void;
  /** OSC 9; true when handled. */
  osc9(data: string): boolean;
}

export function buildXtermCore(
  size: { cols: number; rows: number },
  scrollback: ScrollbackOptions,
  logger: ILogger,
  events: XtermCoreEvents,
): XtermCore {
  const xterm = new Terminal({
    logger,
    cols: size.cols,
    rows: size.rows,
    scrollback: xtermScrollbackFor(scrollback),
    // The serialize addon uses proposed API.
    allowProposedApi: true,
  });
  const serializer = new SerializeAddon();
  xterm.loadAddon(serializer);
  const keyboard = new KeyboardModes(xterm, (data) => events.reply(data));
  // Unicode 15 widths, the same clusters the compositor and the chrome draw (graphemes.ts).
  useModernUnicode(xterm);
  // xterm's narrowing reflow can overwrite screen rows when its scrollback is full.
  guardReflowTrim(xterm);
  // Printable ASCII in a plain pen, the bulk of a flood, without xterm's per-character steps.
  installAsciiPrint(xterm);
  const lines = new Scrollback(xterm, scrollback);
  const damageTracker = new DamageTracker(xterm, () => lines.scrolls);
  const core: XtermCore = { xterm, screen: new XtermScreen(xterm), serializer, keyboard, lines, damageTracker, subscriptions: [] };
  guardParser(xterm, () => {
    events.parseError();
    // The interrupted parse never reported its rows.
    damageTracker.markAll();
  });
  core.subscriptions.push(
    // Counts of 2^31 would hold the event loop for hours (count-clamp.ts).
    clampCounts(xterm),
    keyboard,
    lines,
    damageTracker,
    xterm.buffer.onBufferChange((buffer: IBuffer) => {
      if (buffer.type === 'alternate') events.toAlternate(core);
    }),
    xterm.onWriteParsed(() => events.parsed(core)),
    xterm.onTitleChange((title) => events.title(title)),
    xterm.onScroll(() => events.scroll()),
    xterm.onBell(() => events.bell()),
    xterm.parser.registerOscHandler(OSC.conemu, (data) => events.osc9(data)),
  );
  return core;
}

export function disposeXtermCore(core: XtermCore): void {
  for (const sub of core.subscriptions) sub.dispose();
  core.xterm.dispose();
}

/**
 * Parses `data` before returning, as PaneTerminal.write does (see there): xterm's "user input"
 * flag makes its next write parse at once. Returns whether it did; `drain` parses whatever
 * is still queued right away (a replay cannot wait for xterm's timer).
 */
export function parseNow(core: XtermCore, data: string | Uint8Array, onParsed?: () => void, drain = false): boolean {
  let parsed = false;
  core.xterm.input('', true);
  core.xterm.write(data, () => {
    parsed = true;
    onParsed?.();
  });
  if (!parsed && drain) (core.xterm as unknown as { _core: { writeSync(data: string): void } })._core.writeSync('');
  return parsed;
}

/**
 * A buffer's rows read through whichever core is current: a reader that keeps it (copy mode)
 * reads the rebuilt terminal after a sleep, not the disposed one.
 */
export function rowsThrough(buffer: () => LineBuffer): LineBuffer {
  return {
    get type() {
      return buffer().type;
    },
    get length() {
      return buffer().length;
    },
    get baseY() {
      return buffer().baseY;
    },
    get viewportY() {
      return buffer().viewportY;
    },
    get cursorX() {
      return buffer().cursorX;
    },
    get cursorY() {
      return buffer().cursorY;
    },
    getLine: (y) => buffer().getLine(y),
    getNullCell: () => buffer().getNullCell(),
  };
}

/** `log`, except while `silent()`: a replay meets the same complaints the first parse reported. */
export function silencedWhile(log: ILogger, silent: () => boolean): ILogger {
  return {
    trace: () => {},
    debug: () => {},
    info: () => {},
    warn: (message, ...params) => silent() || log.warn(message, ...params),
    error: (message, ...params) => silent() || log.error(message, ...params),
  };
}
