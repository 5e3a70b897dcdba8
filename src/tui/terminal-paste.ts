/**
 * The paste a client's terminal is sending (bracketed paste: its start marker, its text, its
 * end marker; src/tui/input-parser.ts), routed once, when it starts: streamed into the focused
 * pane as it arrives (`CorralCore.openPaste`: one unit of the pane's input, docs/terminal.md
 * "Input"), or gathered for the rename prompt or copy mode's search, or dropped under another
 * overlay. When the pane's input queue fills (its program is not reading), the client's
 * terminal stops being read until the queue has room again: the rest of the paste, and any key
 * typed after it, wait in the terminal, in order, and nothing already read is dropped.
 */
import type { Disposable } from '../contract/disposable.js';
import { CorralError } from '../contract/errors.js';
import type { PaneRecord } from '../session/model.js';
import type { PasteSink } from '../pty/paste-stream.js';
import { mebibytes, PANE_INPUT } from '../pty/pane-input.js';
import type { ClientCore } from './client-view.js';
import type { CopyModes } from './copy-mode/copy-modes.js';
import type { UiState } from './chrome-builder.js';

/** A paste into the rename prompt or copy mode's search is a name or a pattern: longer is cut. */
const GATHERED_PASTE_MAX_CHARS = 64 * 1024;

export interface TerminalPasteHost {
  core: ClientCore;
  copy: CopyModes;
  ui: UiState;
  renderChrome(): void;
  /** A status-line message; a sticky one stays until the next. */
  flash(text: string, error: boolean, sticky?: boolean): void;
  /** Stop reading this client's terminal (the pane's queue is full) … */
  holdInput(): void;
  /** … and read it again. */
  resumeInput(): void;
}

type PasteTarget =
  | { kind: 'pane'; pane: PaneRecord; stream: PasteSink }
  | { kind: 'rename'; text: string }
  | { kind: 'copy'; paneId: string; text: string }
  | { kind: 'drop' };

export class TerminalPaste {
  private target: PasteTarget | null = null;
  /** Waiting for the pane's queue to have room, with this client's terminal not read meanwhile. */
  private held: Disposable | null = null;

  constructor(private readonly host: TerminalPasteHost) {}

  /** The terminal's start marker: the paste goes where the client's focus is now. */
  start(): void {
    this.end();
    this.target = this.route();
  }

  /** A piece of the paste's text, as the terminal sent it. */
  text(text: string): void {
    const target = this.target;
    if (target === null || target.kind === 'drop') return;
    if (target.kind === 'pane') {
      if (!target.stream.write(text) && this.held === null) this.hold(target);
      return;
    }
    if (target.text.length < GATHERED_PASTE_MAX_CHARS) target.text += text.slice(0, GATHERED_PASTE_MAX_CHARS - target.text.length);
  }

  /** The terminal's end marker. */
  end(): void {
    const target = this.target;
    this.target = null;
    if (target === null) return;
    const { ui, copy } = this.host;
    if (target.kind === 'pane') target.stream.end();
    else if (target.kind === 'rename' && ui.overlay?.kind === 'rename') {
      ui.overlay.value += target.text.replace(/[\r\n]+/g, ' ');
      this.host.renderChrome();
    } else if (target.kind === 'copy' && copy.isActive(target.paneId)) copy.paste(target.paneId, target.text);
  }

  /** The client is going away: its paste ends here (the pane's other writers go on). */
  dispose(): void {
    this.end();
    this.held?.dispose();
    this.held = null;
  }

  private route(): PasteTarget {
    const { ui, core, copy } = this.host;
    if (ui.overlay?.kind === 'rename') return { kind: 'rename', text: '' };
    if (ui.overlay) return { kind: 'drop' };
    const pane = core.model.focusedPane();
    if (!pane) return { kind: 'drop' };
    if (copy.isActive(pane.id)) return { kind: 'copy', paneId: pane.id, text: '' };
    try {
      return { kind: 'pane', pane, stream: core.openPaste(pane) };
    } catch (error) {
      // A view-only client (SPEC §8) or an unreachable machine: the person is told why. A pane
      // that has just exited says nothing here: its close event follows.
      if (error instanceof CorralError && (error.code === 'scripting_disabled' || error.code === 'machine_unreachable')) this.host.flash(error.message, true);
      return { kind: 'drop' };
    }
  }

  private hold(target: { pane: PaneRecord; stream: PasteSink }): void {
    this.host.holdInput();
    this.host.flash(`pane ${target.pane.id} is not reading its input: the paste waits (${mebibytes(PANE_INPUT.maxQueuedBytes)} queued) and goes on as it reads`, true, true);
    let resumed = false;
    const room = target.stream.whenRoom(() => {
      resumed = true;
      this.held = null;
      this.host.resumeInput();
      this.host.flash(`pane ${target.pane.id} reads again: the paste goes on`, false);
    });
    if (!resumed) this.held = room;
  }
}
