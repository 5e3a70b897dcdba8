/**
 * The visible panes' output, as the compositor needs it: each revision of a visible pane's
 * screen marks its damaged rows dirty (the first after a keystroke — its echo — drawn at once,
 * never paced), and bytes about to be parsed reach the compositor's echo prediction first.
 * Panes that leave the view are no longer listened to.
 */
import type { Disposable } from '../contract/disposable.js';
import type { Compositor } from '../screen/compositor.js';
import { damagedRows } from '../terminal/damage.js';
import type { PaneView } from '../terminal/pane-view.js';
import type { PaneOverlay } from './client-view.js';

export class PaneOutput {
  private readonly subscriptions = new Map<string, Disposable>();
  /** The pane a keystroke was just sent to, until its next output (the echo) is drawn. */
  echoPending: string | null = null;

  constructor(private readonly compositor: Compositor) {}

  /**
   * Listens to the panes in `visible` (by pane id) and stops listening to any other; a pane in
   * `overlays` also redraws, at once, the rows its overlay changes (a predicted echo appears).
   */
  follow(visible: ReadonlyMap<string, PaneView>, overlays: ReadonlyMap<string, PaneOverlay> = new Map()): void {
    for (const [id, view] of visible) {
      if (this.subscriptions.has(id)) continue;
      const overlay = overlays.get(id)?.onChange((rows) => this.compositor.markPaneDirty(id, rows, { urgent: true }));
      // First of the revision's listeners: an urgent frame (the echo) is drawn in this call,
      // and the core's bookkeeping of the same output (events, agent checks) can come after.
      const parsed = view.onRevision(
        () => {
          const urgent = this.echoPending === id;
          if (urgent) this.echoPending = null;
          this.compositor.markPaneDirty(id, damagedRows(view.lastDamage), { urgent });
        },
        { first: true },
      );
      const arriving = view.onBeforeParse((data) => this.compositor.beforePaneParse(id, data));
      this.subscriptions.set(id, { dispose: () => (parsed.dispose(), arriving.dispose(), overlay?.dispose()) });
    }
    for (const [id, subscription] of this.subscriptions) {
      if (visible.has(id)) continue;
      subscription.dispose();
      this.subscriptions.delete(id);
    }
  }

  dispose(): void {
    for (const subscription of this.subscriptions.values()) subscription.dispose();
    this.subscriptions.clear();
  }
}
