/**
 * Focus reports for the panes' apps (DECSET 1004), as a terminal of their own would send
 * them: `ESC [ I` when a pane gains focus, `ESC [ O` when it loses it. With several clients a
 * pane has focus while it is the focused pane of some client whose terminal has focus — as
 * tmux counts it; a client whose terminal cannot report focus counts as focused. Moving the
 * focus between panes (a key, a click, `corral focus`) and a client's terminal gaining or
 * losing focus both change it. Only apps that asked hear anything.
 */
import type { ClientCore } from './client-view.js';

const FOCUS_IN = '\x1b[I';
const FOCUS_OUT = '\x1b[O';

export class PaneFocusReports {
  /** Surface ids of the panes that have focus, as last reported. */
  private focused = new Set<number>();

  constructor(private readonly core: Pick<ClientCore, 'model' | 'view' | 'writeToPane'>) {}

  /** `now`: the surface ids that have focus now; each pane whose share changed hears of it. */
  update(now: ReadonlySet<number>): void {
    const before = this.focused;
    this.focused = new Set(now);
    for (const surface of before) if (!now.has(surface)) this.report(surface, FOCUS_OUT);
    for (const surface of now) if (!before.has(surface)) this.report(surface, FOCUS_IN);
  }

  private report(surfaceId: number, bytes: string): void {
    const pane = this.core.model.paneBySurface(surfaceId);
    if (!pane) return;
    try {
      if (this.core.view(pane).sendFocusMode) this.core.writeToPane(pane, bytes);
    } catch {
      // The pane exited between the change and the report (its close event follows), or it is
      // not reading its input (a full queue): a focus report is not worth waiting for.
    }
  }
}
