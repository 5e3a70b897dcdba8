/**
 * Which enhanced keyboard reporting a pane's application asked for, tracked from its output
 * as a terminal would: the kitty keyboard protocol's progressive enhancement (`CSI > flags u`
 * push, `CSI < n u` pop, `CSI = flags ; mode u` set, `CSI ? u` query — one stack per
 * screen, main and alternate, as the protocol says) and xterm's modifyOtherKeys
 * (`CSI > 4 ; n m`, `CSI > 4 n` off). The TUI encodes each key for the focused pane from
 * this (src/terminal/key-protocol.ts). A full reset (RIS) clears everything.
 */
import type { Terminal as XTerminal } from '@xterm/headless';

/** kitty's stack depth is implementation-defined; an app pushing without popping must not grow it forever. */
const MAX_STACK = 16;

/** xterm's resource number of modifyOtherKeys in `CSI > Pp ; Pv m`. */
const MODIFY_OTHER_KEYS = 4;

export interface KeyboardModesView {
  /** kitty progressive-enhancement flags in force on the active screen (0: none). */
  readonly kittyFlags: number;
  /** xterm modifyOtherKeys level: 0 off, 1 or 2. */
  readonly modifyOtherKeys: number;
}

type Params = (number | number[])[];

function param(params: Params, index: number): number | undefined {
  const value = params[index];
  return Array.isArray(value) ? value[0] : value;
}

export class KeyboardModes implements KeyboardModesView {
  private main: number[] = [];
  private alternate: number[] = [];
  modifyOtherKeys = 0;
  /** When the application last changed a mode (ms since the epoch). */
  changedAt = 0;
  private readonly disposables: { dispose(): void }[];

  /** `reply` sends an answer (to `CSI ? u`) back to the application, as a terminal would. */
  constructor(
    private readonly xterm: XTerminal,
    reply: (data: string) => void,
  ) {
    const parser = xterm.parser;
    const changed = (): true => {
      this.changedAt = Date.now();
      return true;
    };
    this.disposables = [
      parser.registerCsiHandler({ prefix: '>', final: 'u' }, (params) => {
        const stack = this.stack();
        stack.push(param(params, 0) ?? 0);
        if (stack.length > MAX_STACK) stack.shift();
        return changed();
      }),
      parser.registerCsiHandler({ prefix: '<', final: 'u' }, (params) => {
        const stack = this.stack();
        stack.splice(Math.max(0, stack.length - Math.max(1, param(params, 0) ?? 1)));
        return changed();
      }),
      parser.registerCsiHandler({ prefix: '=', final: 'u' }, (params) => {
        const stack = this.stack();
        const flags = param(params, 0) ?? 0;
        const mode = param(params, 1) ?? 1;
        const current = stack.pop() ?? 0;
        stack.push(mode === 2 ? current | flags : mode === 3 ? current & ~flags : flags);
        return changed();
      }),
      parser.registerCsiHandler({ prefix: '?', final: 'u' }, () => {
        reply(`\x1b[?${this.kittyFlags}u`);
        return true;
      }),
      parser.registerCsiHandler({ prefix: '>', final: 'm' }, (params) => {
        if (param(params, 0) !== MODIFY_OTHER_KEYS) return false;
        this.modifyOtherKeys = param(params, 1) ?? 0;
        return changed();
      }),
      parser.registerCsiHandler({ prefix: '>', final: 'n' }, (params) => {
        if (param(params, 0) !== MODIFY_OTHER_KEYS) return false;
        this.modifyOtherKeys = 0;
        return changed();
      }),
      parser.registerEscHandler({ final: 'c' }, () => {
        this.reset();
        return false;
      }),
      // Each entry to the alternate screen starts with an empty stack there.
      xterm.buffer.onBufferChange((buffer) => {
        if (buffer.type === 'alternate') this.alternate = [];
      }),
    ];
  }

  get kittyFlags(): number {
    const stack = this.stack();
    return stack[stack.length - 1] ?? 0;
  }

  /** Back to legacy keys: the application that asked is gone (its shell is at the prompt again). */
  reset(): void {
    this.main = [];
    this.alternate = [];
    this.modifyOtherKeys = 0;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }

  private stack(): number[] {
    return this.xterm.buffer.active.type === 'alternate' ? this.alternate : this.main;
  }
}
