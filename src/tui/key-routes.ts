/**
 * Where the TUI's keyboard input goes, as pure transitions the controller applies: the
 * mode it is in (an overlay, the prefix pressed, the resize repeat window, copy mode, or
 * none) and the input decide the next step — a command, a key for the overlay or copy
 * mode, bytes for the focused pane. Nothing here touches the core, a timer or the screen,
 * so every mode × key case is unit-tested as data (test/unit/tui-key-routes.test.ts).
 */
import { COMMANDS, type CommandId } from './keybindings.js';
import { splitFirstKey } from './input-parser.js';
import type { OverlayState, RenameTarget } from './chrome-builder.js';

/** After a repeatable command (resize), the same keys work without the prefix this long (tmux's repeat-time). */
export const REPEAT_MS = 500;

/** The keys in force: the prefix's bytes and the bindings (bytes → command). */
export interface KeyMap {
  prefixBytes: string;
  bindings: ReadonlyMap<string, CommandId>;
}

/** The controller's modes as far as input routing cares. */
export interface InputMode {
  overlay: boolean;
  prefixActive: boolean;
  /** Until when a repeatable command's keys work without the prefix (0: not repeating). */
  repeatUntil: number;
  /** Whether the focused pane is in copy mode. */
  copyMode: boolean;
}

/** One step of routing input. */
export type InputRoute =
  /** The open overlay takes one key (see overlayKey). */
  | { kind: 'overlay'; key: string }
  /**
   * A key after the prefix, or a repeatable command's key within the repeat window: the
   * prefix ends, `command` runs (null: nothing is bound to `key`) and the repeat window
   * becomes `repeatUntil`.
   */
  | { kind: 'command'; key: string; command: CommandId | null; repeatUntil: number }
  /** The repeat window ends (a key that does not repeat); the same input is routed again. */
  | { kind: 'end-repeat' }
  /** Copy mode takes these keys; what it hands back (it left) is routed again, before the rest. */
  | { kind: 'copy'; keys: string }
  /** The prefix key was pressed. */
  | { kind: 'prefix' }
  /** Bytes for the focused pane, as they came. */
  | { kind: 'pane'; data: string };

/**
 * The next step for `input` in `mode` at time `now`, and the input left after it. The
 * controller applies the step (which may change the mode) and routes the rest, until none
 * is left.
 */
export function routeInput(mode: InputMode, input: string, now: number, keys: KeyMap): { route: InputRoute; rest: string } {
  if (mode.overlay) {
    const { key, rest } = splitFirstKey(input);
    return { route: { kind: 'overlay', key }, rest };
  }
  if (mode.prefixActive) {
    const { key, rest } = splitFirstKey(input);
    return { route: commandRoute(key, now, keys), rest };
  }
  if (mode.repeatUntil > 0) {
    // Within the repeat window a repeatable command's key runs it again; any other key ends the window.
    const { key, rest } = splitFirstKey(input);
    const command = keys.bindings.get(key);
    if (now < mode.repeatUntil && command && COMMANDS[command].repeatable) return { route: commandRoute(key, now, keys), rest };
    return { route: { kind: 'end-repeat' }, rest: input };
  }
  const at = input.indexOf(keys.prefixBytes);
  if (at === 0) return { route: { kind: 'prefix' }, rest: input.slice(keys.prefixBytes.length) };
  const upToPrefix = at === -1 ? input : input.slice(0, at);
  const rest = at === -1 ? '' : input.slice(at);
  // Copy mode takes every key up to the prefix; what it hands back when it leaves goes on to the pane.
  if (mode.copyMode) return { route: { kind: 'copy', keys: upToPrefix }, rest };
  return { route: { kind: 'pane', data: upToPrefix }, rest };
}

function commandRoute(key: string, now: number, keys: KeyMap): InputRoute {
  const command = keys.bindings.get(key) ?? null;
  return { kind: 'command', key, command, repeatUntil: command && COMMANDS[command].repeatable ? now + REPEAT_MS : 0 };
}

/** What a key does to the open overlay. */
export type OverlayOutcome =
  /** Nothing: the key is not one the overlay answers to. */
  | { kind: 'ignore' }
  /** The overlay stays, changed (or not): redraw it. */
  | { kind: 'update'; overlay: OverlayState }
  /** The overlay closes, then `then` happens. */
  | { kind: 'close'; then: OverlayEffect | null };

export type OverlayEffect =
  /** The workspace at this index (in the model's order) gets focus. */
  | { kind: 'focus-workspace'; index: number }
  /** The confirmed action runs. */
  | { kind: 'confirmed' }
  | { kind: 'rename'; target: RenameTarget; value: string };

const DOWN_KEYS = new Set(['j', '\x1b[B', '\x1bOB']);
const UP_KEYS = new Set(['k', '\x1b[A', '\x1bOA']);
const CONFIRM_NO_KEYS = new Set(['n', 'N', 'q', '\x1b', '\x03']);

/** One key (as splitFirstKey cuts it) to the open overlay; `workspaces`: how many exist now. */
export function overlayKey(overlay: OverlayState, key: string, context: { prefixBytes: string; workspaces: number }): OverlayOutcome {
  switch (overlay.kind) {
    case 'help':
      return { kind: 'close', then: null };
    case 'workspace-switcher': {
      const count = context.workspaces;
      if (key === '\x1b' || key === 'q' || key === context.prefixBytes) return { kind: 'close', then: null };
      if (key === '\r') return { kind: 'close', then: overlay.selected < count ? { kind: 'focus-workspace', index: overlay.selected } : null };
      if (/^[1-9]$/.test(key) && Number(key) <= count) return { kind: 'close', then: { kind: 'focus-workspace', index: Number(key) - 1 } };
      const down = DOWN_KEYS.has(key);
      if (down || UP_KEYS.has(key)) {
        return { kind: 'update', overlay: { ...overlay, selected: (overlay.selected + (down ? 1 : -1) + count) % Math.max(1, count) } };
      }
      return { kind: 'ignore' };
    }
    case 'confirm':
      // Keys that answer are consumed; any other key is ignored rather than guessed at.
      if (key === 'y' || key === 'Y') return { kind: 'close', then: { kind: 'confirmed' } };
      if (CONFIRM_NO_KEYS.has(key) || key === context.prefixBytes) return { kind: 'close', then: null };
      return { kind: 'ignore' };
    case 'rename': {
      if (key === '\x1b') return { kind: 'close', then: null };
      if (key === '\r') return { kind: 'close', then: { kind: 'rename', target: overlay.target, value: overlay.value } };
      return { kind: 'update', overlay: { ...overlay, value: editLine(overlay.value, key) } };
    }
  }
}

/** The rename prompt's line editing: backspace drops a code point, ctrl+u clears, printable keys append. */
function editLine(value: string, key: string): string {
  if (key === '\x7f' || key === '\b') return [...value].slice(0, -1).join('');
  if (key === '\x15') return '';
  if (key >= ' ' && !key.startsWith('\x1b')) return value + key;
  return value;
}
