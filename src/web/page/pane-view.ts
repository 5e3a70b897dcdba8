/**
 * One pane, live: an xterm.js terminal fed the pane's snapshot and then its output, sized to
 * the pane (the pane's size is the server's; a narrow phone scrolls inside the pane, never the
 * page). What the person types goes to `corral web` as a person's keys.
 */
import type { Terminal } from '@xterm/xterm';
import type { PaneWatchMessage, WebAgent } from '../../contract/web.js';
import { el, text } from './dom.js';
import { EchoOverlay } from './echo-overlay.js';
import type { PredictMode } from '../../screen/remote-prediction.js';

export interface PaneActions {
  type(paneId: string, data: string): void;
  answer(paneId: string, label: string): void;
  close(): void;
  readOnly(): boolean;
  /** `corral web --predict`: keys drawn before their echo. */
  predict(): PredictMode;
}

function fromBase64(data: string): Uint8Array {
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export class PaneView {
  readonly root: HTMLElement;
  private readonly term: Terminal;
  private readonly answers: HTMLElement;
  private readonly note: HTMLElement;
  private readonly echo: EchoOverlay;
  /** Bytes written to the terminal so far (tests wait on this rather than on time). */
  written = 0;

  /**
   * xterm.js is loaded the first time a pane opens: it is in the page's one bundle, but a
   * dynamic import there is evaluated only when reached, so the fleet paints without it.
   */
  static async open(paneId: string, title: string, actions: PaneActions): Promise<PaneView> {
    const { Terminal } = await import('@xterm/xterm');
    return new PaneView(paneId, title, actions, Terminal);
  }

  private constructor(
    readonly paneId: string,
    title: string,
    private readonly actions: PaneActions,
    TerminalClass: typeof Terminal,
  ) {
    const back = el('button', { class: 'back', type: 'button', 'aria-label': 'back to the fleet' }, text('← fleet'));
    back.addEventListener('click', () => actions.close());
    this.answers = el('div', { class: 'answers' });
    this.note = el('p', { class: 'note' });
    const screen = el('div', { class: 'screen', id: 'screen' });
    this.root = el('section', { class: 'pane-view', 'data-pane': paneId }, el('header', {}, back, el('h2', {}, text(`${title} · ${paneId}`))), this.answers, screen, this.note);
    this.term = new TerminalClass({ convertEol: false, scrollback: 1000, fontSize: 13, cursorBlink: false, disableStdin: actions.readOnly() });
    this.term.open(screen);
    this.echo = new EchoOverlay(this.term, actions.predict());
    this.term.onData((data) => {
      if (this.actions.readOnly()) return;
      this.echo.typed(data);
      this.actions.type(this.paneId, data);
    });
    this.updateAccess();
  }

  focus(): void {
    this.term.focus();
  }

  /** Read-only shows why and takes no keys. */
  updateAccess(why: string | null = null): void {
    this.term.options.disableStdin = this.actions.readOnly();
    this.note.replaceChildren(text(this.actions.readOnly() ? (why ?? 'read-only') : 'typing goes to the pane'));
  }

  /** The answer buttons of the agent in this pane, while it is blocked. */
  showAgent(agent: WebAgent | undefined): void {
    const buttons: HTMLElement[] = [];
    if (agent && agent.agent_status === 'blocked' && !this.actions.readOnly()) {
      for (const answer of agent.answers) {
        const button = el('button', { class: 'answer', type: 'button', 'data-answer': answer.label }, text(answer.label));
        button.addEventListener('click', () => this.actions.answer(this.paneId, answer.label));
        buttons.push(button);
      }
    }
    this.answers.replaceChildren(...buttons);
  }

  apply(message: PaneWatchMessage): void {
    switch (message.kind) {
      case 'snapshot':
        this.term.reset();
        this.term.resize(message.cols, message.rows);
        this.echo.reset();
        this.term.write(message.data, () => this.echo.reset());
        this.written += message.data.length;
        break;
      case 'output': {
        const bytes = fromBase64(message.data);
        this.term.write(bytes, () => this.echo.parsed());
        this.written += bytes.length;
        break;
      }
      case 'resize':
        this.term.resize(message.cols, message.rows);
        this.echo.reset();
        break;
      case 'closed':
        this.note.replaceChildren(text('the pane closed'));
        break;
    }
  }

  /** The page's round trip to `corral web`, for the predicted echo's 'adaptive' mode. */
  roundTrip(ms: number): void {
    this.echo.roundTrip(ms);
  }

  dispose(): void {
    this.echo.dispose();
    this.term.dispose();
  }
}
