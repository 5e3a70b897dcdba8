import { describe, expect, it } from 'vitest';
import { createChromeRenderer, renderChrome } from '../../components/index.js';
import type { ChromeModel, PaneFrame } from '../../components/chrome-model.js';

const TIMING = {
  // Runs thrown away first, so JIT compilation and Yoga's WASM warm-up are not measured.
  warmup: 20,
  runs: 20,
  // The number that matters is the logged one (~3 ms with React's production build, 4–9 ms
  // with the development build vitest loads). Other test files share the 2 cores and have
  // pushed single runs past 15 ms, so the bound only catches something pathological.
  budgetMs: 100,
} as const;

/** 160×45: 3 workspaces, 5 agents, 2 tabs, 4 frames (the case the brief measures). */
function model(focus: number): ChromeModel {
  const cols = 160;
  const rows = 45;
  const sw = 28;
  const mw = cols - sw;
  const hw = Math.floor(mw / 2);
  const rects = [
    { x: sw, y: 1, cols: hw, rows: 22 },
    { x: sw + hw, y: 1, cols: mw - hw, rows: 22 },
    { x: sw, y: 23, cols: hw, rows: 21 },
    { x: sw + hw, y: 23, cols: mw - hw, rows: 21 },
  ];
  const frames: PaneFrame[] = rects.map((rect, i) => ({
    paneId: `p${i}`,
    rect,
    title: `w1:p${i} agent${i} · claude working`,
    focused: i === focus % 4,
    zoomed: false,
    agentStatus: 'working',
    scrollIndicator: i === 1 ? '↑ 120/5000' : null,
  }));
  return {
    cols,
    rows,
    sidebarWidth: sw,
    workspaces: ['api', 'web', 'infra'].map((label, i) => ({ id: `w${i}`, label, index: i + 1, focused: i === 0, badge: 'working' })),
    agents: ['working', 'done', 'idle', 'blocked', 'stalled'].map((status, i) => ({
      key: `p${i}`,
      label: `agent${i}`,
      where: `w1:t${i}`,
      status: status as ChromeModel['agents'][number]['status'],
      seen: status !== 'done',
      focused: i === focus % 5,
    })),
    tabs: [
      { id: 't1', label: 'api', index: 1, focused: true, badge: 'working' },
      { id: 't2', label: 'tests', index: 2, focused: false, badge: 'done' },
    ],
    frames,
    status: { prefixActive: false, prefixLabel: 'ctrl+b', scripting: true, viewOnly: null, hint: 'ctrl+b ? help', message: null, messageIsError: false },
    overlay: null,
  };
}

function averageMs(render: (m: ChromeModel) => string): number {
  for (let i = 0; i < TIMING.warmup; i++) render(model(i));
  const start = performance.now();
  for (let i = 0; i < TIMING.runs; i++) render(model(i));
  return (performance.now() - start) / TIMING.runs;
}

describe('chrome render time (160×45, 4 frames, 3 workspaces, 5 agents)', () => {
  it('renderChrome stays well inside a frame', () => {
    const ms = averageMs(renderChrome);
    console.log(`renderChrome: ${ms.toFixed(2)} ms average over ${TIMING.runs} runs (NODE_ENV=${process.env.NODE_ENV ?? 'unset'})`);
    expect(ms).toBeLessThan(TIMING.budgetMs);
  });

  it('a memoising renderer re-renders only what a focus change touches', () => {
    const ms = averageMs(createChromeRenderer());
    console.log(`createChromeRenderer, focus moving every render: ${ms.toFixed(2)} ms average`);
    expect(ms).toBeLessThan(TIMING.budgetMs);
  });
});
