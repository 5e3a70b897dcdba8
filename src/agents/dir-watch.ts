/**
 * One `fs.watch` per directory, shared by every agent whose record lives there (SPEC §18):
 * agents in one project write their records side by side (Claude's `~/.claude/projects/<cwd>/`,
 * OpenCode's database), and each change is handed only to the listeners of the file it names.
 * The watch ends with its last listener. Subscribing returns a disposer.
 */
import { watch, type FSWatcher } from 'node:fs';
import type { Disposable } from '../contract/disposable.js';

interface DirWatch {
  watcher: FSWatcher;
  /** File name → listeners; `null` names none (some platforms): every listener hears it. */
  byName: Map<string, Set<() => void>>;
}

export class DirWatches {
  private readonly dirs = new Map<string, DirWatch>();

  /** Calls `onChange` when one of `names` in `dir` changes; null when the directory cannot be watched. */
  watch(dir: string, names: readonly string[], onChange: () => void): Disposable | null {
    let entry = this.dirs.get(dir);
    if (!entry) {
      let watcher: FSWatcher;
      try {
        watcher = watch(dir, { persistent: false });
      } catch {
        return null;
      }
      const made: DirWatch = { watcher, byName: new Map() };
      watcher.on('change', (_event, name) => {
        if (name === null || name === undefined) {
          for (const set of made.byName.values()) for (const listener of set) listener();
          return;
        }
        const set = made.byName.get(String(name));
        if (set) for (const listener of set) listener();
      });
      watcher.on('error', () => this.close(dir));
      this.dirs.set(dir, made);
      entry = made;
    }
    const current = entry;
    for (const name of names) {
      let set = current.byName.get(name);
      if (!set) current.byName.set(name, (set = new Set()));
      set.add(onChange);
    }
    return {
      dispose: () => {
        for (const name of names) {
          const set = current.byName.get(name);
          set?.delete(onChange);
          if (set?.size === 0) current.byName.delete(name);
        }
        if (current.byName.size === 0 && this.dirs.get(dir) === current) this.close(dir);
      },
    };
  }

  private close(dir: string): void {
    const entry = this.dirs.get(dir);
    if (!entry) return;
    this.dirs.delete(dir);
    entry.watcher.close();
  }

  /** Ends every watch. */
  dispose(): void {
    for (const dir of [...this.dirs.keys()]) this.close(dir);
  }
}
