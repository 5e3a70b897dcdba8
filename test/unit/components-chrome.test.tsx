import xterm from '@xterm/headless';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createChromeRenderer, renderChrome, renderOverlay } from '../../components/index.js';
import { ansiToGrid } from '../../src/screen/index.js';
import type { ChromeModel, PaneFrame } from '../../components/chrome-model.js';
import type { Rect } from '../../src/contract/rect.js';
import { hitTest } from '../../components/hit-test.js';
import { listWindowByHeight } from '../../components/list-window.js';

const { Terminal } = xterm;
type Term = InstanceType<typeof Terminal>;

const terminals: Term[] = [];
afterEach(() => {
  for (const t of terminals.splice(0)) t.dispose();
});

/** Shows `text` (lines joined by \n) in a headless terminal of cols × rows, like the user's screen. */
async function show(text: string, cols: number, rows: number): Promise<Term> {
  const t = new Terminal({ cols, rows, scrollback: 50, allowProposedApi: true });
  terminals.push(t);
  await new Promise<void>((resolve) => t.write(text.split('\n').join('\r\n'), resolve));
  return t;
}

/** Paints an overlay at its rect over whatever the terminal shows. */
async function showAt(t: Term, text: string, rect: Rect): Promise<void> {
  const out = text.split('\n').map((line, k) => `\x1b[${rect.y + k + 1};${rect.x + 1}H${line}`).join('');
  await new Promise<void>((resolve) => t.write(out, resolve));
}

const cell = (t: Term, x: number, y: number) => {
  const c = t.buffer.active.getLine(y)?.getCell(x);
  if (!c) throw new Error(`no cell at ${x},${y}`);
  return c;
};
const row = (t: Term, y: number): string => t.buffer.active.getLine(y)?.translateToString(false) ?? '';
/** Text of cells [x, x + n). */
const cellsText = (t: Term, x: number, y: number, n: number): string => row(t, y).slice(x, x + n);
/** A cell's look, for comparing two cells. */
const look = (t: Term, x: number, y: number) => {
  const c = cell(t, x, y);
  return { fg: c.getFgColor(), fgMode: c.getFgColorMode(), bold: c.isBold(), dim: c.isDim(), inverse: c.isInverse() };
};
const isPlainBlank = (t: Term, x: number, y: number): boolean => {
  const c = cell(t, x, y);
  return c.getChars() === '' || c.getChars() === ' ' ? c.isFgDefault() && c.isBgDefault() && !c.isInverse() && !c.isBold() : false;
};

/** Checks, with the compositor's own parser, that there are exactly `rows` lines of exactly `cols` cells. */
function expectExactSize(text: string, cols: number, rows: number): void {
  expect(text.split('\n')).toHaveLength(rows);
  const grid = ansiToGrid(text, cols + 4, rows + 2);
  for (let y = 0; y < rows; y++) {
    if (cols > 0) expect(grid.get(cols - 1, y).transparent, `row ${y} too short`).toBe(false);
    expect(grid.get(cols, y).transparent, `row ${y} too long`).toBe(true);
  }
  expect(grid.get(0, rows).transparent, 'extra line').toBe(true);
}

const SIDEBAR = 28;
const COLS = 160;
const ROWS = 45;

function frame(paneId: string, rect: Rect, title: string, extra: Partial<PaneFrame> = {}): PaneFrame {
  return { paneId, rect, title, focused: false, zoomed: false, agentStatus: null, scrollIndicator: null, ...extra };
}

/** The 160×45 fixture: 3 workspaces, 5 agents, 2 tabs, 4 frames. */
function bigModel(): ChromeModel {
  const mw = COLS - SIDEBAR;
  const hw = Math.floor(mw / 2);
  return {
    cols: COLS,
    rows: ROWS,
    sidebarWidth: SIDEBAR,
    workspaces: [
      { id: 'w1', label: 'api', index: 1, focused: true, badge: 'working' },
      { id: 'w2', label: 'web', index: 2, focused: false, badge: 'done' },
      { id: 'w3', label: 'infra', index: 3, focused: false, badge: null },
    ],
    agents: [
      { key: 'p1', label: 'builder', where: 'w1:t1', status: 'working', seen: true, focused: true },
      { key: 'p2', label: 'reviewer', where: 'w1:t2', status: 'done', seen: false, focused: false },
      { key: 'p3', label: 'claude', where: 'w2:t1', status: 'idle', seen: true, focused: false },
      { key: 'p4', label: 'codex', where: 'w2:t1', status: 'blocked', seen: true, focused: false },
      { key: 'p5', label: 'gemini-with-a-long-name', where: 'w3:t1', status: 'stalled', seen: true, focused: false },
    ],
    tabs: [
      { id: 't1', label: 'api', index: 1, focused: true, badge: 'working' },
      { id: 't2', label: 'tests', index: 2, focused: false, badge: 'done' },
    ],
    frames: [
      frame('p1', { x: SIDEBAR, y: 1, cols: hw, rows: 22 }, 'w1:p1 builder · claude working', { focused: true, agentStatus: 'working' }),
      frame('p2', { x: SIDEBAR + hw, y: 1, cols: mw - hw, rows: 22 }, 'w1:p2 reviewer · codex done', { agentStatus: 'done', scrollIndicator: '↑ 120/5000' }),
      frame('p3', { x: SIDEBAR, y: 23, cols: hw, rows: 21 }, 'w1:p3 shell'),
      frame('p4', { x: SIDEBAR + hw, y: 23, cols: mw - hw, rows: 21 }, 'w1:p4 codex blocked', { agentStatus: 'blocked', zoomed: true }),
    ],
    status: { prefixActive: false, prefixLabel: 'ctrl+b', scripting: true, viewOnly: null, hint: 'ctrl+b ? help', message: 'config error: bad key', messageIsError: true },
    overlay: null,
  };
}

/** Row index of the sidebar line containing `text`. */
function sidebarRowOf(t: Term, text: string): number {
  for (let y = 0; y < t.rows - 1; y++) if (row(t, y).slice(0, SIDEBAR).includes(text)) return y;
  throw new Error(`${text} not in the sidebar`);
}

describe('renderChrome (160×45)', () => {
  it('is exactly rows lines of exactly cols cells, and does not scroll the terminal', async () => {
    const text = renderChrome(bigModel());
    expectExactSize(text, COLS, ROWS);
    const t = await show(text, COLS, ROWS);
    expect(t.buffer.active.baseY).toBe(0);
    expect(row(t, 0)).toContain('WORKSPACES');
    expect(row(t, ROWS - 1)).toContain('scripting: on');
  });

  it('draws the sidebar: workspaces, agents, a border column, the focused workspace highlighted', async () => {
    const t = await show(renderChrome(bigModel()), COLS, ROWS);
    const api = sidebarRowOf(t, '1 api');
    const web = sidebarRowOf(t, '2 web');
    expect(api).toBeLessThan(web);
    expect(sidebarRowOf(t, 'infra')).toBeGreaterThan(web);
    expect(sidebarRowOf(t, 'AGENTS')).toBeGreaterThan(web);
    for (const label of ['builder', 'reviewer', 'claude', 'codex', 'gemini']) expect(sidebarRowOf(t, label)).toBeGreaterThan(sidebarRowOf(t, 'AGENTS'));
    expect(row(t, sidebarRowOf(t, 'builder'))).toContain('w1:t1');
    expect(row(t, sidebarRowOf(t, 'builder'))).toContain('working');
    // Badges: the focused workspace is working (yellow), web is done (✔).
    expect(row(t, api).slice(0, SIDEBAR - 1).trimEnd().endsWith('◐')).toBe(true);
    expect(row(t, web).slice(0, SIDEBAR - 1).trimEnd().endsWith('✔')).toBe(true);
    // Focused workspace: focus bar and bold label; the others neither.
    const apiX = row(t, api).indexOf('api');
    const webX = row(t, web).indexOf('web');
    expect(cell(t, 0, api).getChars()).toBe('▌');
    expect(cell(t, 0, web).getChars()).toBe(' ');
    expect(cell(t, apiX, api).isBold()).toBeTruthy();
    expect(cell(t, webX, web).isBold()).toBeFalsy();
    // Border column on every row but the status line.
    for (let y = 0; y < ROWS - 1; y++) expect(cell(t, SIDEBAR - 1, y).getChars(), `row ${y}`).toBe('│');
    expect(cell(t, SIDEBAR - 1, ROWS - 1).getChars()).not.toBe('│');
    // A long agent name is cut with … inside the sidebar.
    expect(row(t, sidebarRowOf(t, 'gemini')).slice(0, SIDEBAR)).toContain('…');
  });

  it('styles done visibly differently from idle', async () => {
    const t = await show(renderChrome(bigModel()), COLS, ROWS);
    const done = sidebarRowOf(t, 'reviewer');
    const idle = sidebarRowOf(t, 'claude');
    // Badge column is x = 1.
    expect(cell(t, 1, done).getChars()).toBe('✔');
    expect(cell(t, 1, idle).getChars()).toBe('○');
    expect(look(t, 1, done)).not.toEqual(look(t, 1, idle));
    expect(cell(t, 1, done).isBold()).toBeTruthy();
    expect(cell(t, 1, done).isFgPalette()).toBe(true);
    expect(cell(t, 1, done).getFgColor()).toBe(10); // bright green
    expect(cell(t, 1, idle).isDim()).toBeTruthy();
    // The status words differ too.
    const doneX = row(t, done).indexOf('done');
    const idleX = row(t, idle).indexOf('idle');
    expect(doneX).toBeGreaterThan(0);
    expect(idleX).toBe(doneX);
    expect(look(t, doneX, done)).not.toEqual(look(t, idleX, idle));
    expect(cell(t, idleX, idle).isDim()).toBeTruthy();
    expect(cell(t, doneX, done).isBold()).toBeTruthy();
  });

  it('draws the tab bar with the focused tab highlighted and badges coloured', async () => {
    const t = await show(renderChrome(bigModel()), COLS, ROWS);
    const bar = row(t, 0);
    const api = bar.indexOf(' 1:api ');
    const tests = bar.indexOf(' 2:tests ');
    expect(api).toBe(SIDEBAR);
    expect(tests).toBeGreaterThan(api);
    expect(cell(t, api + 1, 0).isInverse()).toBeTruthy();
    expect(cell(t, api + 1, 0).isBold()).toBeTruthy();
    expect(cell(t, tests + 1, 0).isInverse()).toBeFalsy();
    // Badge glyph right after each chip: working is yellow (3), done bright green (10).
    expect(cell(t, api + 7, 0).getChars()).toBe('◐');
    expect(cell(t, api + 7, 0).getFgColor()).toBe(3);
    expect(cell(t, api + 7, 0).isInverse()).toBeFalsy();
    expect(cell(t, tests + 9, 0).getChars()).toBe('✔');
    expect(cell(t, tests + 9, 0).getFgColor()).toBe(10);
  });

  it('draws each pane frame at its rect: corners, title in the top border, blank interior', async () => {
    const model = bigModel();
    const t = await show(renderChrome(model), COLS, ROWS);
    for (const f of model.frames) {
      const { x, y, cols, rows } = f.rect;
      const right = x + cols - 1;
      const bottom = y + rows - 1;
      expect(cell(t, x, y).getChars(), f.paneId).toBe('┌');
      expect(cell(t, right, y).getChars(), f.paneId).toBe('┐');
      expect(cell(t, x, bottom).getChars(), f.paneId).toBe('└');
      expect(cell(t, right, bottom).getChars(), f.paneId).toBe('┘');
      expect(cell(t, x, y + 1).getChars()).toBe('│');
      expect(cell(t, right, bottom - 1).getChars()).toBe('│');
      const top = row(t, y).slice(x, right + 1);
      expect(top).toContain(f.title);
      // Title after `┌─ ` and, when there is a badge, its glyph and a space.
      expect(top.indexOf(f.title)).toBe(f.agentStatus ? 5 : 3);
      for (let yy = y + 1; yy < bottom; yy++) {
        for (let xx = x + 1; xx < right; xx++) expect(isPlainBlank(t, xx, yy), `${f.paneId} ${xx},${yy}`).toBe(true);
      }
    }
    const [focused, scrolled, plain, zoomed] = model.frames;
    // Focused frame bright and bold; others dim.
    expect(cell(t, focused.rect.x, focused.rect.y).isBold()).toBeTruthy();
    expect(cell(t, focused.rect.x, focused.rect.y).getFgColor()).toBe(14);
    expect(cell(t, plain.rect.x, plain.rect.y).isDim()).toBeTruthy();
    expect(look(t, focused.rect.x, focused.rect.y + 1)).not.toEqual(look(t, plain.rect.x, plain.rect.y + 1));
    // Scroll indicator at the bottom right, zoom marker at the top right.
    const sRight = scrolled.rect.x + scrolled.rect.cols - 1;
    const sBottom = row(t, scrolled.rect.y + scrolled.rect.rows - 1);
    expect(sBottom.slice(scrolled.rect.x, sRight + 1).endsWith(' ↑ 120/5000 ─┘')).toBe(true);
    const zRight = zoomed.rect.x + zoomed.rect.cols - 1;
    expect(row(t, zoomed.rect.y).slice(zoomed.rect.x, zRight + 1).endsWith(' zoomed ─┐')).toBe(true);
    expect(row(t, plain.rect.y + plain.rect.rows - 1).slice(plain.rect.x, plain.rect.x + plain.rect.cols)).toMatch(/^└─+┘$/);
  });

  it('draws the status line: prefix, scripting gate, hint, and the message on the right', async () => {
    const model = bigModel();
    const t = await show(renderChrome(model), COLS, ROWS);
    const status = row(t, ROWS - 1);
    expect(status.startsWith(' ctrl+b ')).toBe(true);
    const gate = status.indexOf('scripting: on');
    expect(gate).toBeGreaterThan(0);
    expect(cell(t, gate, ROWS - 1).getFgColor()).toBe(2);
    expect(status).toContain('ctrl+b ? help');
    expect(status.trimEnd().endsWith('config error: bad key')).toBe(true);
    expect(status.length).toBe(COLS);
    const msg = status.indexOf('config error');
    expect(cell(t, msg, ROWS - 1).getFgColor()).toBe(1);

    const active = await show(
      renderChrome({ ...model, status: { ...model.status, prefixActive: true, scripting: false, message: 'saved', messageIsError: false } }),
      COLS,
      ROWS,
    );
    const line = row(active, ROWS - 1);
    expect(line.startsWith(' PREFIX ')).toBe(true);
    expect(cell(active, 1, ROWS - 1).isInverse()).toBeTruthy();
    const off = line.indexOf('scripting: off');
    expect(cell(active, off, ROWS - 1).isDim()).toBeTruthy();
    expect(cell(active, line.indexOf('saved'), ROWS - 1).isFgDefault()).toBe(true);
  });

  it('shows a hint when there are no agents', async () => {
    const t = await show(renderChrome({ ...bigModel(), agents: [] }), COLS, ROWS);
    const y = sidebarRowOf(t, 'no agents yet');
    expect(y).toBeGreaterThan(sidebarRowOf(t, 'AGENTS'));
    expect(cell(t, row(t, y).indexOf('no agents'), y).isDim()).toBeTruthy();
  });

  it('keeps colours when stdout is not a TTY (they do not come from chalk)', async () => {
    expect(process.stdout.isTTY).toBeFalsy();
    const text = renderChrome(bigModel());
    expect(text).toContain('\x1b[');
  });

  it('summarises agents that do not fit and keeps the focused one visible', async () => {
    const agents = Array.from({ length: 30 }, (_, i) => ({
      key: `p${i}`,
      label: `agent${i}`,
      where: 'w1:t1',
      status: 'idle' as const,
      seen: true,
      focused: i === 25,
    }));
    const model = { ...bigModel(), rows: 20, agents, frames: [] };
    const text = renderChrome(model);
    expectExactSize(text, COLS, 20);
    const t = await show(text, COLS, 20);
    expect(sidebarRowOf(t, 'agent25')).toBeGreaterThan(0);
    expect(row(t, sidebarRowOf(t, 'more')).slice(0, SIDEBAR)).toMatch(/\+\d+ more/);
  });

  it('keeps wide characters and hostile labels inside their cells', async () => {
    const model = bigModel();
    model.workspaces[0].label = '日本語のワークスペース名前がとても長い';
    model.agents[0].label = 'evil\x1b[2J\nname';
    model.tabs[1].label = '🚀 rocket 日本';
    model.frames[0].title = '標準 ' + 'x'.repeat(200);
    model.frames[1].title = 'emoji 🚀🚀🚀 title';
    const text = renderChrome(model);
    expect(text).not.toContain('\x1b[2J');
    expectExactSize(text, COLS, ROWS);
    const t = await show(text, COLS, ROWS);
    expect(t.buffer.active.baseY).toBe(0);
    const f = model.frames[0].rect;
    expect(cell(t, f.x + f.cols - 1, f.y).getChars()).toBe('┐');
    expect(row(t, f.y).slice(f.x, f.x + f.cols)).toContain('…');
    expect(sidebarRowOf(t, 'evil')).toBeGreaterThan(0);
  });
});

describe('renderChrome on small screens', () => {
  it('40×10 without a sidebar: tab bar at x=0, frames drawn, nothing overflows', async () => {
    const model: ChromeModel = {
      ...bigModel(),
      cols: 40,
      rows: 10,
      sidebarWidth: 0,
      tabs: [
        { id: 't1', label: 'api', index: 1, focused: false, badge: 'working' },
        { id: 't2', label: 'tests', index: 2, focused: false, badge: 'done' },
        { id: 't3', label: 'docs', index: 3, focused: false, badge: null },
        { id: 't4', label: 'release-candidate', index: 4, focused: false, badge: 'blocked' },
        { id: 't5', label: 'five', index: 5, focused: true, badge: 'idle' },
      ],
      frames: [
        frame('p1', { x: 0, y: 1, cols: 20, rows: 8 }, 'w1:p1 a very long title that cannot fit', { focused: true, agentStatus: 'working' }),
        frame('p2', { x: 20, y: 1, cols: 20, rows: 8 }, 'w1:p2', { scrollIndicator: '↑ 99999/99999' }),
      ],
    };
    const text = renderChrome(model);
    expectExactSize(text, 40, 10);
    const t = await show(text, 40, 10);
    expect(t.buffer.active.baseY).toBe(0);
    // The focused tab (the last) is scrolled into view, with a marker for the hidden ones.
    expect(row(t, 0)).toContain(' 5:five ');
    expect(row(t, 0).startsWith('‹')).toBe(true);
    expect(cell(t, 0, 1).getChars()).toBe('┌');
    expect(cell(t, 19, 1).getChars()).toBe('┐');
    expect(cell(t, 20, 8).getChars()).toBe('└');
    expect(cell(t, 39, 8).getChars()).toBe('┘');
    expect(row(t, 1).slice(0, 20)).toContain('…');
    expect(row(t, 9)).toContain('scripting: on');
  });

  it('never throws and always fills exactly cols × rows, whatever the size', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60 }), fc.integer({ min: 1, max: 14 }), fc.integer({ min: 0, max: 30 }), (cols, rows, sidebar) => {
        const base = bigModel();
        const sidebarWidth = Math.min(sidebar, cols);
        const mainCols = cols - sidebarWidth;
        const half = Math.floor(mainCols / 2);
        const model: ChromeModel = {
          ...base,
          cols,
          rows,
          sidebarWidth,
          frames: [
            frame('a', { x: sidebarWidth, y: 1, cols: half, rows: Math.max(0, rows - 2) }, 'left pane title', { focused: true, agentStatus: 'done' }),
            frame('b', { x: sidebarWidth + half, y: 1, cols: mainCols - half, rows: Math.max(0, rows - 2) }, 'right', { zoomed: true, scrollIndicator: '↑ 1/2' }),
          ],
        };
        expectExactSize(renderChrome(model), cols, rows);
      }),
      { numRuns: 60 },
    );
  });
});

describe('worktree agents in the sidebar (SPEC §15)', () => {
  const withWorktree = (): ChromeModel => {
    const model = bigModel();
    model.agents[1] = { ...model.agents[1]!, worktree: { branch: 'corral/reviewer', added: 12, removed: 3 } };
    return model;
  };

  it('draws the branch and +added −removed on a line under the agent, in green and red', async () => {
    const t = await show(renderChrome(withWorktree()), COLS, ROWS);
    const reviewer = sidebarRowOf(t, 'reviewer');
    expect(row(t, reviewer + 1).slice(0, SIDEBAR)).toMatch(/^\s+\u2387 corral\/reviewer \+12 \u22123\s*│?$/);
    expect(sidebarRowOf(t, 'claude')).toBe(reviewer + 2);
    const plus = row(t, reviewer + 1).indexOf('+12');
    expect(cell(t, plus, reviewer + 1).getFgColor()).toBe(2);
    expect(cell(t, plus + 4, reviewer + 1).getFgColor()).toBe(1);
  });

  it('a click on either of its lines selects the agent; the list below moves down one', () => {
    const model = withWorktree();
    const keys = Array.from({ length: 14 }, (_, y) => {
      const found = hitTest(model, 2, y);
      return found?.kind === 'agent' ? found.key : null;
    });
    const first = keys.indexOf('p1');
    expect(keys.slice(first, first + 5)).toEqual(['p1', 'p2', 'p2', 'p3', 'p4']);
  });

  it('keeps the focused agent in view when worktree lines make the list too long', () => {
    expect(listWindowByHeight([1, 2, 2, 1], 6)).toEqual({ start: 0, end: 4, hidden: 0 });
    expect(listWindowByHeight([2, 2, 2, 2], 5, 0)).toEqual({ start: 0, end: 2, hidden: 2 });
    expect(listWindowByHeight([2, 2, 2, 2], 5, 3)).toEqual({ start: 2, end: 4, hidden: 2 });
    expect(listWindowByHeight([1, 2, 1, 1], 4, 2)).toEqual({ start: 1, end: 3, hidden: 2 });
  });
});
describe('usage in the sidebar (SPEC §18)', () => {
  it('draws the total and the context fill on a line under the agent, after its worktree line', async () => {
    const model = bigModel();
    model.agents[1] = { ...model.agents[1]!, worktree: { branch: 'corral/reviewer', added: 12, removed: 3 }, usage: '48k · ctx 31%' };
    const t = await show(renderChrome(model), COLS, ROWS);
    const reviewer = sidebarRowOf(t, 'reviewer');
    expect(row(t, reviewer + 2).slice(0, SIDEBAR)).toMatch(/^\s+48k · ctx 31%\s*│?$/);
    expect(sidebarRowOf(t, 'claude')).toBe(reviewer + 3);
  });
});

describe('createChromeRenderer', () => {
  it('gives the same output as renderChrome as the model changes', () => {
    const render = createChromeRenderer();
    const model = bigModel();
    expect(render(model)).toBe(renderChrome(model));
    const focusMoved: ChromeModel = {
      ...model,
      frames: model.frames.map((f, i) => ({ ...f, focused: i === 2 })),
      agents: model.agents.map((a, i) => ({ ...a, focused: i === 2 })),
    };
    expect(render(focusMoved)).toBe(renderChrome(focusMoved));
    const tabsChanged = { ...focusMoved, tabs: focusMoved.tabs.map((t) => ({ ...t, focused: !t.focused })) };
    expect(render(tabsChanged)).toBe(renderChrome(tabsChanged));
    expect(render(tabsChanged)).toBe(renderChrome(tabsChanged));
    const resized = { ...tabsChanged, cols: 100, rows: 30 };
    expect(render(resized)).toBe(renderChrome(resized));
  });

  it('a new renderer (a client attaching) reuses what another drew, and draws what differs', () => {
    const model = bigModel();
    const first = createChromeRenderer();
    expect(first(model)).toBe(renderChrome(model));
    const second = createChromeRenderer();
    expect(second(model)).toBe(renderChrome(model));
    const narrower = { ...model, cols: 90 };
    expect(second(narrower)).toBe(renderChrome(narrower));
    expect(first(model)).toBe(renderChrome(model));
  });
});

describe('renderOverlay', () => {
  const helpModel = (sections: { category: string; entries: { keys: string; description: string }[] }[], cols = COLS, rows = ROWS): ChromeModel => ({
    ...bigModel(),
    cols,
    rows,
    overlay: { kind: 'help', sections },
  });
  const SECTIONS = [
    { category: 'Panes', entries: [{ keys: 'ctrl+b v', description: 'split right' }, { keys: 'ctrl+b -', description: 'split down' }, { keys: 'ctrl+b x', description: 'close pane' }] },
    { category: 'Tabs', entries: [{ keys: 'ctrl+b c', description: 'new tab' }, { keys: 'ctrl+b 1…9', description: 'go to tab' }] },
  ];

  it('is null without an overlay', () => {
    expect(renderOverlay(bigModel())).toBeNull();
  });

  it('help: a centred box listing every entry, keys and descriptions in two aligned columns', async () => {
    const out = renderOverlay(helpModel(SECTIONS));
    expect(out).not.toBeNull();
    const { text, rect } = out!;
    expectExactSize(text, rect.cols, rect.rows);
    expect(Math.abs(rect.x + rect.cols / 2 - COLS / 2)).toBeLessThanOrEqual(1);
    expect(Math.abs(rect.y + rect.rows / 2 - ROWS / 2)).toBeLessThanOrEqual(1);
    const t = await show(renderChrome(bigModel()), COLS, ROWS);
    await showAt(t, text, rect);
    expect(cell(t, rect.x, rect.y).getChars()).toBe('╭');
    expect(cell(t, rect.x + rect.cols - 1, rect.y + rect.rows - 1).getChars()).toBe('╯');
    expect(row(t, rect.y).slice(rect.x, rect.x + rect.cols)).toContain('Help');
    const lines = Array.from({ length: rect.rows }, (_, k) => row(t, rect.y + k).slice(rect.x, rect.x + rect.cols));
    expect(lines.some((l) => l.includes('Panes'))).toBe(true);
    expect(lines.some((l) => l.includes('Tabs'))).toBe(true);
    const descX = new Set<number>();
    for (const s of SECTIONS) {
      for (const e of s.entries) {
        const l = lines.find((line) => line.includes(e.keys));
        expect(l, e.keys).toBeDefined();
        expect(l).toContain(e.description);
        descX.add(l!.indexOf(e.description));
      }
    }
    expect(descX.size).toBe(1);
  });

  it('help longer than the screen: splits into columns or cuts off with a note, never overflows', () => {
    const many = Array.from({ length: 6 }, (_, s) => ({
      category: `Category ${s}`,
      entries: Array.from({ length: 10 }, (_, e) => ({ keys: `ctrl+b ${s}${e}`, description: `does thing number ${e} of section ${s}` })),
    }));
    for (const [cols, rows] of [
      [160, 45],
      [80, 24],
      [40, 10],
      [12, 5],
    ] as const) {
      const out = renderOverlay(helpModel(many, cols, rows));
      expect(out, `${cols}x${rows}`).not.toBeNull();
      const { text, rect } = out!;
      expectExactSize(text, rect.cols, rect.rows);
      expect(rect.x).toBeGreaterThanOrEqual(0);
      expect(rect.y).toBeGreaterThanOrEqual(0);
      expect(rect.x + rect.cols).toBeLessThanOrEqual(cols);
      expect(rect.y + rect.rows).toBeLessThanOrEqual(rows);
      const plain = text.replace(/\x1b\[[0-9;]*m/g, '');
      if (rows < 45 && cols >= 40) expect(plain).toMatch(/more lines/);
    }
    const wide = renderOverlay(helpModel(many, 160, 45))!;
    const plain = wide.text.replace(/\x1b\[[0-9;]*m/g, '');
    // Two columns side by side on a wide screen.
    expect(plain.split('\n').some((l) => (l.match(/ctrl\+b \d\d/g) ?? []).length === 2)).toBe(true);
  });

  it('workspace switcher: every workspace with its badge, the selected row highlighted', async () => {
    const model: ChromeModel = {
      ...bigModel(),
      overlay: {
        kind: 'workspace-switcher',
        items: [
          { id: 'w1', label: 'api', badge: 'working' },
          { id: 'w2', label: 'web', badge: 'done' },
          { id: 'w3', label: 'infra', badge: null },
        ],
        selected: 1,
      },
    };
    const { text, rect } = renderOverlay(model)!;
    expectExactSize(text, rect.cols, rect.rows);
    const t = await show(renderChrome(model), COLS, ROWS);
    await showAt(t, text, rect);
    const lines = Array.from({ length: rect.rows }, (_, k) => row(t, rect.y + k).slice(rect.x, rect.x + rect.cols));
    const api = lines.findIndex((l) => l.includes('1 api'));
    const web = lines.findIndex((l) => l.includes('2 web'));
    expect(api).toBeGreaterThan(0);
    expect(web).toBe(api + 1);
    expect(lines[web]).toContain('✔');
    expect(lines[api]).toContain('◐');
    const webX = lines[web].indexOf('web');
    const apiX = lines[api].indexOf('api');
    expect(cell(t, rect.x + webX, rect.y + web).isInverse()).toBeTruthy();
    expect(cell(t, rect.x + apiX, rect.y + api).isInverse()).toBeFalsy();
  });

  it('workspace switcher with more workspaces than rows keeps the selected one visible', () => {
    const items = Array.from({ length: 40 }, (_, i) => ({ id: `w${i}`, label: `space${i}`, badge: null }));
    const { text, rect } = renderOverlay({ ...bigModel(), cols: 40, rows: 12, overlay: { kind: 'workspace-switcher', items, selected: 33 } })!;
    expectExactSize(text, rect.cols, rect.rows);
    expect(rect.rows).toBeLessThanOrEqual(12);
    expect(text).toContain('space33');
  });

  it('rename: one input line with the value and a cursor bar, the cursor position after the value', async () => {
    const model: ChromeModel = { ...bigModel(), overlay: { kind: 'rename', what: 'pane', value: 'builder' } };
    const out = renderOverlay(model)!;
    expectExactSize(out.text, out.rect.cols, out.rect.rows);
    expect(out.rect.rows).toBe(3);
    const t = await show(renderChrome(model), COLS, ROWS);
    await showAt(t, out.text, out.rect);
    expect(row(t, out.rect.y + 1)).toContain('Rename pane: builder▏');
    expect(out.cursor).toBeDefined();
    expect(cell(t, out.cursor!.x, out.cursor!.y).getChars()).toBe('▏');
    expect(cell(t, out.cursor!.x - 1, out.cursor!.y).getChars()).toBe('r');

    const long = renderOverlay({ ...model, cols: 40, rows: 10, overlay: { kind: 'rename', what: 'workspace', value: 'x'.repeat(100) + 'END' } })!;
    expectExactSize(long.text, long.rect.cols, long.rect.rows);
    expect(long.text.replace(/\x1b\[[0-9;]*m/g, '')).toContain('END▏');
  });

  it('is null on a screen too small for a box', () => {
    expect(renderOverlay({ ...bigModel(), cols: 2, rows: 2, overlay: { kind: 'rename', what: 'pane', value: 'x' } })).toBeNull();
  });
});
