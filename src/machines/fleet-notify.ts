/**
 * Notifications cover every machine (SPEC §14): what the server's notifier reads — panes,
 * their agents, the events that change them — over this machine's core and every machine's
 * mirror. A remote agent's `agent.status_changed` reaches the notifier with the surface id of
 * its mirrored pane here, so a blocked or finished agent on a build box raises the same sidebar
 * mark, desktop notification, bell and `[notify] command` as a local one, unless its pane is in
 * view on a client here.
 */
import type { CorralCore } from '../core/corral-core.js';
import type { CorralEvent } from '../contract/protocol.js';
import type { NotifierOptions } from '../notify/notifier.js';
import type { PaneRecord } from '../session/model.js';
import type { MachineHub } from './machine-hub.js';
import { foreignAgent, type ForeignPane } from './machine-mirror.js';

function isForeign(pane: PaneRecord): pane is ForeignPane {
  return typeof (pane as { machine?: unknown }).machine === 'string';
}

/** The notifier's view of this core and every machine's mirror. */
export function fleetNotifyView(core: CorralCore, machines: MachineHub): NotifierOptions['core'] {
  const mirrorPane = (surfaceId: number): ForeignPane | undefined => {
    for (const mirror of machines.mirrors()) {
      const pane = mirror.paneBySurface(surfaceId);
      if (pane) return pane;
    }
    return undefined;
  };
  return {
    isWatched: (pane) => core.isWatched(pane),
    paneBySurface: (surfaceId) => core.paneBySurface(surfaceId) ?? mirrorPane(surfaceId),
    agents: { agentIn: (pane) => (isForeign(pane) ? foreignAgent(pane) : core.agents.agentIn(pane)) },
    listen(listener) {
      const local = core.listen(listener);
      const remote = machines.onEvent((frame) => {
        if (frame.type !== 'agent.status_changed' || typeof frame.surface_id !== 'number') return;
        const mirror = machines.mirrors().find((m) => m.machine === frame.machine);
        if (!mirror) return;
        // The same event, about the mirrored pane here.
        listener({ ...frame, surface_id: mirror.localSurface(frame.surface_id) } as unknown as CorralEvent);
      });
      return {
        dispose: () => {
          local.dispose();
          remote();
        },
      };
    },
  };
}
