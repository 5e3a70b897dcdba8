import type { IDisposable, Terminal } from '@xterm/headless';
import { shapeFromDecscusr, type CursorShape } from '../screen/cursor.js';

/** The cursor modes an application set: DECTCEM visibility and DECSCUSR shape. */
export interface CursorModes {
  visible: boolean;
  shape: CursorShape;
  blink: boolean;
}

/** Cursor modes that also stop tracking when disposed. */
export interface CursorModeTracker extends CursorModes, IDisposable {}

/** DEC private mode number of DECTCEM (show/hide cursor). */
const DECTCEM = 25;

function hasParam(params: (number | number[])[], wanted: number): boolean {
  return params.some((p) => (Array.isArray(p) ? p[0] : p) === wanted);
}

/**
 * Follows DECTCEM and DECSCUSR through public parser hooks. @xterm/headless 6 exposes
 * neither publicly: `terminal.modes` has no cursor visibility, and DECSCUSR changes an
 * internal mode, not `options.cursorStyle`. Register before the first write; every
 * handler returns false so xterm still handles the sequence itself.
 */
export function trackCursorModes(terminal: Terminal): CursorModeTracker {
  const disposables: IDisposable[] = [];
  const tracker: CursorModeTracker = {
    visible: true,
    shape: 'default',
    blink: false,
    dispose: () => {
      for (const d of disposables.splice(0)) d.dispose();
    },
  };
  const reset = (): boolean => {
    tracker.visible = true;
    tracker.shape = 'default';
    tracker.blink = false;
    return false;
  };
  const parser = terminal.parser;
  disposables.push(
    parser.registerCsiHandler({ prefix: '?', final: 'h' }, (params) => {
      if (hasParam(params, DECTCEM)) tracker.visible = true;
      return false;
    }),
    parser.registerCsiHandler({ prefix: '?', final: 'l' }, (params) => {
      if (hasParam(params, DECTCEM)) tracker.visible = false;
      return false;
    }),
    parser.registerCsiHandler({ intermediates: ' ', final: 'q' }, (params) => {
      const first = params[0];
      const { shape, blink } = shapeFromDecscusr((Array.isArray(first) ? first[0] : first) ?? 0);
      tracker.shape = shape;
      tracker.blink = blink;
      return false;
    }),
    // DECSTR (soft reset) shows the cursor again; RIS resets everything.
    parser.registerCsiHandler({ intermediates: '!', final: 'p' }, () => {
      tracker.visible = true;
      return false;
    }),
    parser.registerEscHandler({ final: 'c' }, reset),
  );
  return tracker;
}

/** Shape of the private xterm.js state read by `internalCursorModes`. */
interface XtermInternals {
  _core?: {
    coreService?: {
      isCursorHidden?: unknown;
      decPrivateModes?: { cursorStyle?: unknown; cursorBlink?: unknown };
    };
  };
}

/**
 * Reads cursor modes from xterm.js private state (`_core.coreService`, verified against
 * @xterm/headless 6.0.0), or null if that shape is not there. A fallback for terminals
 * that were created without `trackCursorModes`.
 */
export function internalCursorModes(terminal: Terminal): CursorModes | null {
  const core = (terminal as unknown as XtermInternals)._core?.coreService;
  if (!core || typeof core.isCursorHidden !== 'boolean') return null;
  const style = core.decPrivateModes?.cursorStyle;
  const shape: CursorShape = style === 'block' || style === 'underline' || style === 'bar' ? style : 'default';
  return { visible: !core.isCursorHidden, shape, blink: shape !== 'default' && core.decPrivateModes?.cursorBlink === true };
}
