/**
 * The floors rule (docs/architecture.md): every folder of src/ (and components/) stands on a
 * floor; a file may import from its own folder, from a folder on a lower floor, from another
 * folder of its own floor, and from the contract (src/contract/) wherever it stands — never
 * from a higher floor. On top of that, no two folders may import each other, however
 * indirectly (a folder-level loop), and only the TUI may import the Ink views.
 *
 * Type-only imports count. `import type` is erased from the bundle, but it still says that
 * one folder cannot be read or changed without the other: a view typed by a TUI file is
 * reshaped whenever the TUI is, which is exactly the coupling the floors exist to prevent.
 *
 * Imports are read with TypeScript's own pre-processor (static imports, re-exports, side-effect
 * imports and `import('…')` with a literal), so a comment that mentions a path is not an import.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

/**
 * The floors, lowest first. Folders on one floor may import each other (no loop, though).
 * `root` is the loose files of src/ (paths.ts, socket-dir.ts, version.ts, package-root.ts, native-addon.ts, boot-id.ts).
 */
const FLOORS: readonly (readonly string[])[] = [
  ['contract', 'root'],
  ['session', 'screen', 'terminal', 'pty'],
  ['config', 'wait'],
  ['agents'],
  ['core', 'orchestration'],
  ['actions', 'persist', 'worktree', 'checkpoint'],
  ['rpc', 'notify', 'machines'],
  ['components'],
  ['tui'],
  ['server'],
  ['client', 'web', 'mcp', 'doctor'],
  ['cli'],
];

/** Anyone may import the contract: it is the shared ground every floor talks in. */
const SHARED_GROUND = 'contract';

/**
 * The Ink views are the TUI's alone (the CLI bundle must never pull in React). git runs only
 * behind actions (STYLE: "worktrees are git's … called from actions, never from the TUI"):
 * the handlers, the server's wiring and the actions may import src/worktree/ and src/checkpoint/
 * (which builds on src/worktree/'s git runner), nothing else.
 */
const ONLY_IMPORTED_BY: Readonly<Record<string, readonly string[]>> = {
  components: ['tui'],
  worktree: ['actions', 'rpc', 'server', 'checkpoint'],
  checkpoint: ['actions', 'rpc', 'server'],
};

interface Edge {
  from: string;
  to: string;
}

/** The folder a repo-relative file belongs to: `components`, `root`, or src/'s first level. */
function folderOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] === 'components') return 'components';
  if (parts[0] !== 'src') throw new Error(`not a source file: ${file}`);
  return parts.length === 2 ? 'root' : parts[1]!;
}

/** Every .ts/.tsx file under `dir` (repo-relative, forward slashes). */
function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...sourceFiles(rel));
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

/** The file-level relative imports of src/ and components/, as repo-relative paths. */
function readImports(): Edge[] {
  const edges: Edge[] = [];
  for (const file of [...sourceFiles('src'), ...sourceFiles('components')]) {
    const info = ts.preProcessFile(readFileSync(path.join(ROOT, file), 'utf8'), true, true);
    for (const ref of info.importedFiles) {
      if (!ref.fileName.startsWith('.')) continue;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), ref.fileName));
      edges.push({ from: file, to: target });
    }
  }
  return edges;
}

/** The loops of a graph (of folders, or of files): strongly connected groups of more than one node. */
function loopsOf(edges: readonly Edge[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    if (from === to) continue;
    if (!next.has(from)) next.set(from, new Set());
    if (!next.has(to)) next.set(to, new Set());
    next.get(from)!.add(to);
  }
  // Tarjan's algorithm; the graph has a few hundred nodes, so recursion depth is no concern.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const loops: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) loops.push(group.sort());
    }
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) visit(v);
  return loops;
}

/** Every breach of the floors rule in a file-level import graph, as readable sentences. */
function floorViolations(fileEdges: readonly Edge[], floors: readonly (readonly string[])[] = FLOORS): string[] {
  const floorOf = new Map<string, number>();
  floors.forEach((folders, level) => folders.forEach((f) => floorOf.set(f, level)));
  const problems: string[] = [];
  const folderEdges: Edge[] = [];
  const unplaced = new Set<string>();
  for (const edge of fileEdges) {
    const from = folderOf(edge.from);
    const to = folderOf(edge.to);
    for (const folder of [from, to]) if (!floorOf.has(folder)) unplaced.add(folder);
    if (from === to) continue;
    folderEdges.push({ from, to });
    const allowed = ONLY_IMPORTED_BY[to];
    if (allowed && !allowed.includes(from)) problems.push(`${edge.from} imports ${edge.to}: only ${allowed.join(', ')} may import ${to}/`);
    if (to === SHARED_GROUND || !floorOf.has(from) || !floorOf.has(to)) continue;
    if (floorOf.get(to)! > floorOf.get(from)!) {
      problems.push(`${edge.from} imports ${edge.to}: ${from} (floor ${floorOf.get(from)}) may not import ${to} (floor ${floorOf.get(to)})`);
    }
  }
  for (const folder of [...unplaced].sort()) problems.push(`folder ${folder} has no floor: add it to FLOORS in test/unit/import-graph.test.ts`);
  for (const loop of loopsOf(folderEdges)) problems.push(`folder-level loop: ${loop.join(' ⇄ ')}`);
  // Inside one folder too: files that import each other in a loop (types count: they tie the files as much).
  const asSource = (file: string) => file.replace(/\.js$/, '.ts');
  for (const loop of loopsOf(fileEdges.map(({ from, to }) => ({ from: asSource(from), to: asSource(to) })))) {
    if (new Set(loop.map(folderOf)).size === 1) problems.push(`file loop in ${folderOf(loop[0]!)}/: ${loop.join(' ⇄ ')}`);
  }
  return problems;
}

describe('import graph: folders as floors', () => {
  const edges = readImports();

  it('reads the imports of the real tree (a sample it must find)', () => {
    // Guards against a reader that silently finds nothing and so can never fail.
    expect(edges.length).toBeGreaterThan(300);
    expect(edges).toContainEqual({ from: 'src/core/corral-core.ts', to: 'src/agents/agent-registry.js' });
    expect(edges).toContainEqual({ from: 'src/tui/client-hub.ts', to: 'components/index.js' });
  });

  it('has no upward import (except into the contract), no folder loop, views only from the TUI', () => {
    expect(floorViolations(edges)).toEqual([]);
  });

  it('every folder of src/ stands on exactly one floor', () => {
    const placed = FLOORS.flat();
    expect(new Set(placed).size).toBe(placed.length);
    const folders = new Set([...sourceFiles('src'), ...sourceFiles('components')].map(folderOf));
    expect([...folders].filter((f) => !placed.includes(f))).toEqual([]);
  });
});

describe('the floors rule on synthetic graphs', () => {
  const e = (from: string, to: string): Edge => ({ from, to });

  it('accepts downward, same-floor and contract imports', () => {
    expect(
      floorViolations([
        e('src/core/corral-core.ts', 'src/agents/agent-registry.js'),
        e('src/terminal/pane-terminal.ts', 'src/screen/unicode-provider.js'),
        e('src/session/model.ts', 'src/contract/protocol.js'),
        e('src/contract/protocol.ts', 'src/contract/bounds.js'),
        e('src/tui/run-tui.ts', 'components/index.js'),
      ]),
    ).toEqual([]);
  });

  it('fails on a deliberately bad upward import', () => {
    expect(floorViolations([e('src/core/corral-core.ts', 'src/tui/controller.js')])).toEqual([
      'src/core/corral-core.ts imports src/tui/controller.js: core (floor 4) may not import tui (floor 8)',
    ]);
  });

  it('fails on a folder-level loop, even between folders of one floor', () => {
    const problems = floorViolations([
      e('src/terminal/pane-terminal.ts', 'src/screen/unicode-provider.js'),
      e('src/screen/compositor.ts', 'src/pty/pane-host.js'),
      e('src/pty/pane-host.ts', 'src/terminal/pane-terminal.js'),
    ]);
    expect(problems).toEqual(['folder-level loop: pty ⇄ screen ⇄ terminal']);
  });

  it('fails on the loop core ⇄ agents the floors replaced', () => {
    const problems = floorViolations([
      e('src/core/corral-core.ts', 'src/agents/agent-registry.js'),
      e('src/agents/agent-actions.ts', 'src/core/corral-core.js'),
    ]);
    expect(problems).toContain('src/agents/agent-actions.ts imports src/core/corral-core.js: agents (floor 3) may not import core (floor 4)');
    expect(problems).toContain('folder-level loop: agents ⇄ core');
  });

  it('fails on files of one folder that import each other in a loop', () => {
    const problems = floorViolations([
      e('src/terminal/pane-terminal.ts', 'src/terminal/pane-view.js'),
      e('src/terminal/pane-view.ts', 'src/terminal/scrollback-reader.js'),
      e('src/terminal/scrollback-reader.ts', 'src/terminal/pane-terminal.js'),
      e('src/terminal/keys.ts', 'src/terminal/key-protocol.js'),
    ]);
    expect(problems).toEqual(['file loop in terminal/: src/terminal/pane-terminal.ts ⇄ src/terminal/pane-view.ts ⇄ src/terminal/scrollback-reader.ts']);
  });

  it('fails when anything but the TUI imports the views, or a folder has no floor', () => {
    expect(floorViolations([e('src/cli/main.ts', 'components/index.js')])).toEqual([
      'src/cli/main.ts imports components/index.js: only tui may import components/',
    ]);
    expect(floorViolations([e('src/tui/review.ts', 'src/worktree/diff.js')])).toEqual([
      'src/tui/review.ts imports src/worktree/diff.js: only actions, rpc, server, checkpoint may import worktree/',
    ]);
    expect(floorViolations([e('src/elsewhere/attach.ts', 'src/contract/protocol.js')])).toEqual([
      'folder elsewhere has no floor: add it to FLOORS in test/unit/import-graph.test.ts',
    ]);
  });
});
