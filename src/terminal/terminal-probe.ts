import xterm from '@xterm/headless';
import { CellGrid } from '../screen/cell-grid.js';
import type { CursorState } from '../screen/cursor.js';
import { copyXtermRows, cursorFor } from './xterm-screen.js';
import { useModernUnicode } from './unicode-provider.js';

const { Terminal } = xterm;

/**
 * A headless terminal standing in for the user's real one: feed it what the compositor
 * writes and read back what a person would see. Tests check screens this way instead
 * of asserting escape bytes.
 */
export class TerminalProbe {
  readonly terminal: InstanceType<typeof Terminal>;

  /** `modernUnicode`: measure emoji 2 wide, like most real terminals (see unicode-provider). */
  constructor(cols: number, rows: number, options: { modernUnicode?: boolean } = {}) {
    this.terminal = new Terminal({ cols, rows, allowProposedApi: true, scrollback: 0 });
    if (options.modernUnicode) useModernUnicode(this.terminal);
  }

  /** Writes bytes and resolves once the terminal has parsed them. */
  write(bytes: string): Promise<void> {
    return new Promise((resolve) => this.terminal.write(bytes, resolve));
  }

  /** Resizes the probe, as the user's terminal window would be. */
  resize(cols: number, rows: number): void {
    this.terminal.resize(cols, rows);
  }

  /** The visible screen as a cell grid. */
  grid(): CellGrid {
    const { cols, rows } = this.terminal;
    const grid = new CellGrid(cols, rows);
    copyXtermRows(this.terminal.buffer.active, grid, { x: 0, y: 0, cols, rows });
    return grid;
  }

  /** The visible screen as text lines (wide continuations omitted). */
  lines(): string[] {
    return this.grid().toLines();
  }

  /** Where the cursor is and how it looks. */
  cursor(): CursorState {
    return cursorFor(this.terminal);
  }

  dispose(): void {
    this.terminal.dispose();
  }
}
