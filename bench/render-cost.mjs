/**
 * CPU cost of two things done on every screen change, in-process (bundled by `importBundled`):
 *
 * - the TUI's chrome (sidebar, tab bar, frames, status line) at 160×45 with 3 workspaces,
 *   5 agents, 2 tabs and 4 frames: `renderChrome` from scratch, and the memoising renderer
 *   with focus moving every render (what a focus change costs);
 * - one evaluation of every kind's agent rules (assets/agents/*.toml) on a 40-line screen.
 *
 * Warm-up runs first (JIT, Yoga's WASM), then the average of many. Target: a chrome render
 * well inside one 60 Hz frame (16.7 ms); a rules evaluation a few µs.
 */
import { join } from 'node:path';
import { importBundled, median, round, ROOT } from './lib.mjs';

export const description = 'TUI chrome render and agent-rules evaluation, CPU per call';

/** 160×45: 3 workspaces, 5 agents, 2 tabs, 4 frames (the case the brief measures). */
function chromeModel(focus) {
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
  return {
    cols,
    rows,
    sidebarWidth: sw,
    workspaces: ['api', 'web', 'infra'].map((label, i) => ({ id: `w${i}`, label, index: i + 1, focused: i === 0, badge: 'working' })),
    agents: ['working', 'done', 'idle', 'blocked', 'stalled'].map((status, i) => ({ key: `p${i}`, label: `agent${i}`, where: `w1:t${i}`, status, seen: status !== 'done', focused: i === focus % 5 })),
    tabs: [
      { id: 't1', label: 'api', index: 1, focused: true, badge: 'working' },
      { id: 't2', label: 'tests', index: 2, focused: false, badge: 'done' },
    ],
    frames: rects.map((rect, i) => ({ paneId: `p${i}`, rect, title: `w1:p${i} agent${i} · claude working`, focused: i === focus % 4, zoomed: false, agentStatus: 'working', scrollIndicator: i === 1 ? '↑ 120/5000' : null })),
    status: { prefixActive: false, prefixLabel: 'ctrl+b', scripting: true, viewOnly: null, hint: 'ctrl+b ? help', message: null, messageIsError: false },
    overlay: null,
  };
}

/** Average ms per call of `fn(i)` over `runs`, after `warmup` calls; the median of 5 such rounds. */
function perCallMs(fn, { warmup, runs }) {
  for (let i = 0; i < warmup; i++) fn(i);
  const rounds = [];
  for (let r = 0; r < 5; r++) {
    const start = performance.now();
    for (let i = 0; i < runs; i++) fn(i);
    rounds.push((performance.now() - start) / runs);
  }
  return median(rounds);
}

export async function run({ quick = false } = {}) {
  // The TUI runs with React's production build.
  process.env.NODE_ENV = 'production';
  // Ink and React from node_modules, as the product loads them (Ink's devtools stay unloaded).
  const bundle = await importBundled('bench/src/render-cost.ts', { packagesExternal: true });
  try {
    const { createChromeRenderer, renderChrome, evaluateRules, loadAllRules, snapshotFromText } = bundle.mod;
    const runs = quick ? 20 : 100;
    const fromScratch = perCallMs((i) => renderChrome(chromeModel(i)), { warmup: 20, runs });
    const memo = createChromeRenderer();
    const focusMove = perCallMs((i) => memo(chromeModel(i)), { warmup: 20, runs });
    const kinds = [...loadAllRules(join(ROOT, 'assets', 'agents')).values()];
    const text = `${'● Some streamed answer text with a few words in it, like a real transcript line.\n'.repeat(36)}\n──────\n❯ \n──────\n  ? for shortcuts\n`;
    const snap = snapshotFromText(text, '✳ Claude Code', '');
    const rulesUs = perCallMs((i) => evaluateRules(kinds[i % kinds.length], snap), { warmup: 200, runs: quick ? 500 : 5000 }) * 1000;
    const frame = 1000 / 60;
    return [
      { name: 'chrome render from scratch, 160×45, 4 frames, 5 agents', value: round(fromScratch, 2), unit: 'ms', baseline: 'one 60 Hz frame', baselineValue: round(frame, 1), ratio: round(fromScratch / frame, 2), target: '< 1 frame', pass: fromScratch < frame },
      { name: 'chrome render, memoised, focus moving every render', value: round(focusMove, 2), unit: 'ms', baseline: 'from scratch', baselineValue: round(fromScratch, 2), ratio: round(focusMove / fromScratch, 2), target: '< from scratch', pass: focusMove < fromScratch },
      { name: `agent rules, one kind's evaluation on a 40-line screen (${kinds.length} kinds)`, value: round(rulesUs, 1), unit: 'µs', target: '< 100 µs', pass: rulesUs < 100 },
    ];
  } finally {
    bundle.dispose();
  }
}
