/**
 * What an attached client may do (SPEC §8, "Clients are a door too"). Decided once, where
 * the client is accepted (ClientHub.attach), from where its process stands — read from the
 * kernel's peer credentials and /proc, never from its hello. Every way a client's input can
 * reach a pane (keys, the typing express, pastes, mouse reports, prefix commands that type or
 * open the gate) asks here, through the client's core view (src/tui/client-view.ts).
 *
 * A person at their own terminal — a process outside every pane with a terminal on fd 0 that
 * no pane's process types into — types as always. Any other client (no terminal, a pane's
 * terminal, a process inside a pane, a terminal run from inside a pane, or one that could not
 * be placed) is view-only while the scripting gate is closed: it sees frames, and nothing it
 * sends reaches a pane or opens the gate. With the gate open, clients are alike, as scripts are.
 */
import { CorralError } from '../contract/protocol.js';
import { controlName, firstControl } from '../terminal/control-chars.js';
import type { PeerPlace } from './peer-place.js';

export class ClientRights {
  constructor(
    /** Where the client's process stood when it attached. */
    readonly place: PeerPlace,
    /** A pane's current id, by surface id (ids change when a pane moves). */
    private readonly paneId: (surfaceId: number) => string,
  ) {}

  /** A person at their own terminal: unaffected by the gate. */
  get isPerson(): boolean {
    return this.place.kind === 'outside' && this.place.terminal;
  }

  /** The pane the client was attached from (inside it, or through its terminal), if any. */
  get paneSurface(): number | null {
    return this.place.kind === 'pane' ? this.place.surfaceId : null;
  }

  /** Why this client's input does not reach panes now (the status line says it), or null when it does. */
  refusal(scripting: boolean): string | null {
    if (this.isPerson || scripting) return null;
    return `view-only: ${this.why()} while the scripting gate is closed`;
  }

  /** Throws `scripting_disabled` unless this client's input may reach a pane now. */
  assertMayType(scripting: boolean): void {
    const why = this.refusal(scripting);
    if (why !== null) throw new CorralError('scripting_disabled', why);
  }

  /** Throws unless this client may set the gate to `open`: closing is anyone's, opening a person's. */
  assertMaySetGate(open: boolean): void {
    if (!open || this.isPerson) return;
    throw new CorralError('scripting_disabled', `view-only: ${this.why()}, so it cannot open the scripting gate`);
  }

  /**
   * A name or label typed by a view-only client is held to what a script may send with the
   * gate closed (SPEC §8): printable characters and TAB only.
   */
  assertInert(text: string, scripting: boolean): void {
    if (this.refusal(scripting) === null) return;
    const bad = firstControl(text, { allowTab: true });
    if (bad) throw new CorralError('scripting_disabled', `view-only: a name may hold printable characters only; this one holds ${controlName(bad.codePoint)}`);
  }

  /** Where the client stands, in words. */
  why(): string {
    const place = this.place;
    switch (place.kind) {
      case 'outside':
        return place.terminal ? 'attached from a terminal' : 'attached with no terminal, so its keys come from a program';
      case 'unknown':
        return `the attaching process could not be identified (${place.why})`;
      case 'pane': {
        const pane = this.paneId(place.surfaceId);
        switch (place.link) {
          case 'process-tree':
            return `attached from inside pane ${pane}`;
          case 'session':
            return `attached from pane ${pane}'s session`;
          case 'terminal':
            return `attached from pane ${pane}'s terminal`;
          case 'terminal-master':
            return `attached through a terminal run from inside pane ${pane}`;
        }
      }
    }
  }
}
