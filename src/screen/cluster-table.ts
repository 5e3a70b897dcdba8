import { CLUSTER_BIT } from './cell.js';

/**
 * Interns grapheme clusters that do not fit one code point (flags, ZWJ emoji, combining
 * marks) so a cell's character stays a single number. Grids that share one table can copy
 * and compare cells numerically; the compositor gives all of its grids the same table.
 * Ids are never reused, so the table grows with the number of distinct clusters ever seen —
 * small in practice (a few hundred at most for emoji-heavy output).
 */
export class ClusterTable {
  private readonly strings: string[] = [];
  private readonly ids = new Map<string, number>();

  /** The cell code for `cluster` (a code point when it is one, else an interned id). */
  codeFor(cluster: string): number {
    const first = cluster.codePointAt(0) ?? 0x20;
    if (cluster.length === 1 || (cluster.length === 2 && first > 0xffff)) return first;
    let id = this.ids.get(cluster);
    if (id === undefined) {
      id = this.strings.length;
      this.strings.push(cluster);
      this.ids.set(cluster, id);
    }
    return CLUSTER_BIT + id;
  }

  /** The string a cell code stands for ('' for a wide continuation). */
  stringFor(code: number): string {
    if (code >= CLUSTER_BIT) return this.strings[code - CLUSTER_BIT] ?? ' ';
    return code === 0 ? '' : String.fromCodePoint(code);
  }

  /** How many clusters are interned (for tests and stats). */
  get size(): number {
    return this.strings.length;
  }
}
