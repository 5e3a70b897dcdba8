/**
 * The TUI's view of other machines' sessions (SPEC §14): each machine's mirror holds its
 * workspaces, tabs and panes under ids qualified with the machine's name (`build/w1:p2`); this
 * module finds them and lists them after the local ones, so the client's model view can show
 * local and remote records as one session. Only the TUI sees the union: the core, scripts and
 * the saved session know only local records.
 */
import type { MachineMirror, ForeignPane, ForeignTab, ForeignWorkspace } from '../machines/machine-mirror.js';
import type { MirrorDirectory } from '../machines/machine-hub.js';

/** The mirrors of no machine: a server without machine links. */
export const NO_MIRRORS: MirrorDirectory = {
  mirrors: () => [],
  status: () => null,
  onChange: () => () => {},
  setViewport: () => {},
};

/** A read-only map over several maps, the first one's entries first. */
export class UnionMap<K, V> implements ReadonlyMap<K, V> {
  constructor(private readonly parts: () => ReadonlyArray<ReadonlyMap<K, V>>) {}
  get size(): number {
    return this.parts().reduce((n, map) => n + map.size, 0);
  }
  get(key: K): V | undefined {
    for (const map of this.parts()) {
      const value = map.get(key);
      if (value !== undefined) return value;
    }
    return undefined;
  }
  has(key: K): boolean {
    return this.parts().some((map) => map.has(key));
  }
  *entries(): MapIterator<[K, V]> {
    for (const map of this.parts()) yield* map.entries();
  }
  *keys(): MapIterator<K> {
    for (const map of this.parts()) yield* map.keys();
  }
  *values(): MapIterator<V> {
    for (const map of this.parts()) yield* map.values();
  }
  forEach(callback: (value: V, key: K, map: ReadonlyMap<K, V>) => void): void {
    for (const [key, value] of this.entries()) callback(value, key, this);
  }
  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }
}

/** Lookups across every machine's mirror. */
export class ForeignModel {
  constructor(readonly directory: MirrorDirectory) {}

  /** The mirror an id belongs to (`build/…` → build's), or null for a local id. */
  mirrorOf(id: string): MachineMirror | null {
    const slash = id.indexOf('/');
    if (slash <= 0) return null;
    const name = id.slice(0, slash);
    return this.directory.mirrors().find((m) => m.machine === name) ?? null;
  }

  workspace(id: string): ForeignWorkspace | undefined {
    return this.mirrorOf(id)?.workspaces.get(id);
  }
  tab(id: string): ForeignTab | undefined {
    return this.mirrorOf(id)?.tabs.get(id);
  }
  pane(id: string): ForeignPane | undefined {
    return this.mirrorOf(id)?.panes.get(id);
  }
  paneBySurface(surfaceId: number): ForeignPane | undefined {
    for (const mirror of this.directory.mirrors()) {
      const pane = mirror.paneBySurface(surfaceId);
      if (pane) return pane;
    }
    return undefined;
  }

  workspaceMaps(): ReadonlyArray<ReadonlyMap<string, ForeignWorkspace>> {
    return this.directory.mirrors().map((m) => m.workspaces);
  }
  tabMaps(): ReadonlyArray<ReadonlyMap<string, ForeignTab>> {
    return this.directory.mirrors().map((m) => m.tabs);
  }
  paneMaps(): ReadonlyArray<ReadonlyMap<string, ForeignPane>> {
    return this.directory.mirrors().map((m) => m.panes);
  }
}

/** Whether a record came from another machine. */
export function isForeign<T extends object>(record: T): record is T & { machine: string } {
  return typeof (record as { machine?: unknown }).machine === 'string';
}
