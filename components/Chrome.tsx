/**
 * The chrome's base layer: sidebar, tab bar, pane frames and status line as one ANSI string
 * for the compositor's UI layer.
 *
 * Not one Ink tree: laying out a whole 160×45 screen with absolute boxes takes Ink ~10 ms,
 * and this runs on every focus change. The sidebar, tab bar and status line are rendered
 * as three small offscreen Ink blocks (Ink only lays out their cells), the frames with
 * string code (PaneFrames.tsx), and the pieces are joined row by row.
 */
import type { ChromeModel } from './chrome-model.js';
import { screenRegions } from './geometry.js';
import { paneFrameLines } from './PaneFrames.js';
import { paint } from './paint.js';
import { renderBlock } from './render-block.js';
import { Sidebar } from './Sidebar.js';
import { StatusLine } from './StatusLine.js';
import { TabBar } from './TabBar.js';
import { THEME } from './theme.js';
import { BOX_CHARS } from './box.js';

/** Geometry of the base layer, in absolute cells: the TUI's one layout (components/geometry.ts). */
export function chromeLayout(model: Pick<ChromeModel, 'cols' | 'rows' | 'sidebarWidth'>) {
  return screenRegions(model.cols, model.rows, model.sidebarWidth);
}

/** Renders one piece of the chrome, or returns its earlier lines when `key` is unchanged. */
type PieceRenderer = (name: string, key: () => string, render: () => string[]) => string[];

const uncached: PieceRenderer = (_name, _key, render) => render();

function composeChrome(model: ChromeModel, piece: PieceRenderer): string {
  const layout = chromeLayout(model);
  if (layout.rows === 0) return '';
  const { sidebar, tabBar, main, status } = layout;
  const side =
    layout.sidebarWidth > 0
      ? piece('sidebar', () => JSON.stringify([sidebar, model.workspaces, model.agents]), () =>
          renderBlock(<Sidebar workspaces={model.workspaces} agents={model.agents} width={sidebar.cols} height={sidebar.rows} />, sidebar.cols, sidebar.rows),
        )
      : [];
  const border = layout.sidebarWidth > 0 ? paint(BOX_CHARS.square.v, THEME.sidebarBorder) : '';
  const tabs =
    tabBar.rows > 0
      ? piece('tabs', () => JSON.stringify([tabBar, model.tabs]), () => renderBlock(<TabBar tabs={model.tabs} width={tabBar.cols} />, tabBar.cols, 1))
      : [];
  const frames = main.rows > 0 ? piece('frames', () => JSON.stringify([main, model.frames]), () => paneFrameLines(model.frames, main)) : [];
  const statusLine = piece('status', () => JSON.stringify([status, model.status]), () =>
    renderBlock(<StatusLine status={model.status} width={status.cols} />, status.cols, 1),
  );
  const lines: string[] = [];
  for (let y = 0; y < layout.rows - 1; y++) {
    const left = layout.sidebarWidth > 0 ? (side[y] ?? '') + border : '';
    lines.push(left + (y === 0 ? tabs[0] : frames[y - 1]));
  }
  lines.push(statusLine[0]);
  return lines.join('\n');
}

/**
 * Renders the base layer: `model.rows` lines joined by `\n`, each exactly `model.cols`
 * cells, styled with SGR. Pane-frame interiors are plain spaces (panes cover them).
 */
export function renderChrome(model: ChromeModel): string {
  return composeChrome(model, uncached);
}

/**
 * Pieces drawn lately by any client, by name and key (the key is the whole of the piece's
 * input, so equal keys draw equal lines; the lines are never changed once drawn). A client
 * that attaches drew every piece through Ink — the sidebar, tab bar and status line, ~20 ms
 * of the ~25 ms from its claim to its first frame, on every `corral attach` (issue 45) —
 * though the client before it had drawn the same ones. Bounded: the oldest entry goes first.
 */
const recentPieces = new Map<string, string[]>();
const RECENT_PIECES = 32;

function remember(key: string, lines: string[]): void {
  recentPieces.delete(key);
  recentPieces.set(key, lines);
  if (recentPieces.size > RECENT_PIECES) recentPieces.delete(recentPieces.keys().next().value!);
}

/**
 * A renderChrome that remembers each piece's last output (sidebar, tab bar, frames, status
 * line) and re-renders only the pieces whose part of the model changed: a pane focus change
 * inside one tab re-renders the sidebar and frames but not the tab bar or status line. One
 * per TUI; it holds only the last output of each piece.
 */
export function createChromeRenderer(): (model: ChromeModel) => string {
  const last = new Map<string, { key: string; lines: string[] }>();
  const piece: PieceRenderer = (name, key, render) => {
    const k = key();
    const hit = last.get(name);
    if (hit && hit.key === k) return hit.lines;
    const lines = recentPieces.get(`${name}\0${k}`) ?? render();
    last.set(name, { key: k, lines });
    remember(`${name}\0${k}`, lines);
    return lines;
  };
  return (model) => composeChrome(model, piece);
}
