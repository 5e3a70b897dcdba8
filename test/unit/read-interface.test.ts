/**
 * The one door from the UI into a pane (docs/architecture.md): outside src/core, src/pty and
 * src/terminal nothing imports xterm, and the readers above the core — the TUI, the RPC
 * handlers, the compositor, the chrome views — reach a pane only through `core.view(pane)`
 * (a PaneView), never through the pane's host.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(path));
    else if (/\.tsx?$/.test(entry.name)) out.push(path);
  }
  return out;
}

const ALL = [...sources('src'), ...sources('components')];
/** Where xterm objects may be touched: the terminal wrapper, the pty host, the core. */
const XTERM_FLOORS = ['src/terminal/', 'src/pty/', 'src/core/'];
/**
 * The web view's page draws a pane in the browser with @xterm/xterm (SPEC §16), fed by
 * `pane.watch`: a renderer in another process, which never touches a pane's own terminal.
 */
const BROWSER_XTERM = 'src/web/page/';
/** Readers of panes that must use the view. */
const READERS = ['src/tui/', 'src/rpc/', 'src/screen/', 'src/client/', 'components/'];

const IMPORTS_XTERM = /from\s+'@xterm\//;
const REACHES_HOST = /\.host\(/;

describe('the read interface is the only door into a pane', () => {
  it('finds the files it checks (a moved tree must not make this pass by reading nothing)', () => {
    expect(ALL.some((f) => f.startsWith('src/tui/'))).toBe(true);
    expect(ALL.some((f) => f.startsWith('src/terminal/') && IMPORTS_XTERM.test(readFileSync(join(ROOT, f), 'utf8')))).toBe(true);
  });

  it('imports xterm only in src/terminal, src/pty and src/core', () => {
    const offenders = ALL.filter((f) => !XTERM_FLOORS.some((floor) => f.startsWith(floor)))
      .filter((f) => !(f.startsWith(BROWSER_XTERM) && !/from\s+'@xterm\/(?!xterm')/.test(readFileSync(join(ROOT, f), 'utf8'))))
      .filter((f) => IMPORTS_XTERM.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(offenders.map((f) => relative(ROOT, join(ROOT, f)))).toEqual([]);
  });

  it('reads panes in the TUI, the handlers, the compositor and the views through core.view, not core.host', () => {
    const offenders = ALL.filter((f) => READERS.some((floor) => f.startsWith(floor)))
      .filter((f) => REACHES_HOST.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
