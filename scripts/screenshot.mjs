#!/usr/bin/env node
/**
 * Renders a screenshot of the real corral TUI to assets/screenshot.svg.
 *
 *   npm run -s build && node scripts/screenshot.mjs [--out assets/screenshot.svg] [--cols 150] [--rows 42]
 *
 * Starts `node bin/corral.cjs` (the TUI, server embedded) in a node-pty inside a temporary
 * HOME (bench/tui-lib.mjs), builds a session through the CLI against its socket — two
 * workspaces; in the focused tab three panes: colour/attribute test output and `ls --color`,
 * a coloured `git log --graph` of a throwaway repo, and a shell at a coloured prompt after
 * `corral ls` — waits for the screen to settle, then draws the headless terminal's cells
 * (16/256/truecolor, bold, italic, underline, strikethrough, dim, inverse; the cursor) as
 * an SVG: background <rect>s merged per run, text in <tspan>s merged per style run with
 * every glyph placed on its cell (so box drawing and fallback fonts cannot drift).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BIN, ROOT, sleep } from '../bench/lib.mjs';
import { CorralTui } from '../bench/tui-lib.mjs';

const { values: opts } = parseArgs({
  options: {
    out: { type: 'string', default: join(ROOT, 'assets', 'screenshot.svg') },
    cols: { type: 'string', default: '150' },
    rows: { type: 'string', default: '42' },
  },
});
const COLS = Number(opts.cols);
const ROWS = Number(opts.rows);

// -- theme --------------------------------------------------------------------------------

const THEME = {
  background: '#1e1e1e',
  foreground: '#cccccc',
  cursor: '#aeafad',
  window: '#2d2d2d',
  // VS Code's dark terminal palette.
  ansi: [
    '#000000', '#cd3131', '#0dbc79', '#e5e510', '#2472c8', '#bc3fbc', '#11a8cd', '#e5e5e5',
    '#666666', '#f14c4c', '#23d18b', '#f5f543', '#3b8eea', '#d670d6', '#29b8db', '#e5e5e5',
  ],
};

const hex = (r, g, b) => `#${[r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('')}`;

function palette256(i) {
  if (i < 16) return THEME.ansi[i];
  if (i < 232) {
    const n = i - 16;
    const level = (v) => (v === 0 ? 0 : 55 + v * 40);
    return hex(level(Math.floor(n / 36)), level(Math.floor(n / 6) % 6), level(n % 6));
  }
  const v = 8 + (i - 232) * 10;
  return hex(v, v, v);
}

function colorOf(cell, which) {
  const fg = which === 'fg';
  if (fg ? cell.isFgDefault() : cell.isBgDefault()) return null;
  const value = fg ? cell.getFgColor() : cell.getBgColor();
  if (fg ? cell.isFgRGB() : cell.isBgRGB()) return hex((value >> 16) & 255, (value >> 8) & 255, value & 255);
  return palette256(value);
}

function mix(a, b, t) {
  const p = (h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16));
  const [x, y] = [p(a), p(b)];
  return hex(...x.map((v, i) => Math.round(v * (1 - t) + y[i] * t)));
}

// -- cells to SVG -------------------------------------------------------------------------

const FONT = {
  family: "'DejaVu Sans Mono', 'Menlo', 'Consolas', 'Liberation Mono', monospace",
  size: 14,
  // DejaVu Sans Mono's advance is 0.602 em.
  cellWidth: 8.43,
  cellHeight: 18,
  baseline: 13.5,
};
const PAD = 14;
const TITLE = 30;

const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const num = (v) => (Math.round(v * 100) / 100).toString();

/**
 * Box-drawing characters are drawn as lines from the cell's centre to its edges (l, r, u, d),
 * so frames join up whatever the font, and never show gaps between rows.
 */
const BOX = new Map(
  Object.entries({
    '─': 'lr', '│': 'ud', '┌': 'rd', '┐': 'ld', '└': 'ru', '┘': 'lu', '├': 'udr', '┤': 'udl',
    '┬': 'lrd', '┴': 'lru', '┼': 'lrud', '╭': 'rd', '╮': 'ld', '╰': 'ru', '╯': 'lu',
    '╴': 'l', '╶': 'r', '╵': 'u', '╷': 'd',
    '━': 'LR', '┃': 'UD', '┏': 'RD', '┓': 'LD', '┗': 'RU', '┛': 'LU', '┣': 'UDR', '┫': 'UDL',
    '┳': 'LRD', '┻': 'LRU', '╋': 'LRUD', '═': 'LR', '║': 'UD',
  }),
);
/** Block elements as rectangles: [x, y, w, h] as fractions of the cell. */
const BLOCKS = new Map(
  Object.entries({
    '█': [0, 0, 1, 1], '▌': [0, 0, 0.5, 1], '▐': [0.5, 0, 0.5, 1], '▀': [0, 0, 1, 0.5], '▄': [0, 0.5, 1, 0.5],
    '▎': [0, 0, 0.25, 1], '▏': [0, 0, 0.125, 1], '▊': [0, 0, 0.75, 1],
  }),
);

/** The styled cells of the outer terminal: rows of { ch, width, fg, bg, bold, italic, underline, strike }. */
function readCells(terminal) {
  const buffer = terminal.buffer.active;
  const cell = buffer.getNullCell();
  const rows = [];
  for (let y = 0; y < terminal.rows; y++) {
    const line = buffer.getLine(buffer.viewportY + y);
    const row = [];
    for (let x = 0; x < terminal.cols; x++) {
      line?.getCell(x, cell);
      const width = line ? cell.getWidth() : 1;
      if (width === 0) continue; // right half of a wide character
      let fg = line ? colorOf(cell, 'fg') : null;
      let bg = line ? colorOf(cell, 'bg') : null;
      const bold = line ? cell.isBold() !== 0 : false;
      if (bold && fg === null) fg = '#ffffff';
      if (line && cell.isInverse()) [fg, bg] = [bg ?? THEME.background, fg ?? THEME.foreground];
      fg ??= THEME.foreground;
      if (line && cell.isDim()) fg = mix(fg, bg ?? THEME.background, 0.4);
      const invisible = line ? cell.isInvisible() !== 0 : false;
      row.push({
        x,
        width,
        ch: invisible ? ' ' : (line ? cell.getChars() : '') || ' ',
        fg,
        bg,
        bold,
        italic: line ? cell.isItalic() !== 0 : false,
        underline: line ? cell.isUnderline() !== 0 : false,
        strike: line ? cell.isStrikethrough() !== 0 : false,
      });
    }
    rows.push(row);
  }
  return rows;
}

function cursorOf(terminal) {
  const buffer = terminal.buffer.active;
  let hidden = false;
  try {
    hidden = Boolean(terminal._core.coreService.isCursorHidden);
  } catch {
    hidden = false;
  }
  return hidden ? null : { x: buffer.cursorX, y: buffer.cursorY };
}

export function renderSvg(terminal, { title = 'corral' } = {}) {
  const { cellWidth: cw, cellHeight: ch } = FONT;
  const rows = readCells(terminal);
  const width = Math.ceil(terminal.cols * cw + PAD * 2);
  const height = Math.ceil(terminal.rows * ch + PAD * 2 + TITLE);
  const ox = PAD;
  const oy = PAD + TITLE;
  const out = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<rect width="${width}" height="${height}" rx="8" fill="${THEME.window}"/>`,
    `<rect x="${PAD / 2}" y="${TITLE}" width="${width - PAD}" height="${height - TITLE - PAD / 2}" fill="${THEME.background}"/>`,
    ...['#ff5f56', '#ffbd2e', '#27c93f'].map((c, i) => `<circle cx="${18 + i * 20}" cy="15" r="6" fill="${c}"/>`),
    `<text x="${width / 2}" y="20" fill="#9a9a9a" font-family="${FONT.family}" font-size="13" text-anchor="middle">${esc(title)}</text>`,
  );

  // Backgrounds: one rect per run of equal non-default background.
  const bgs = [];
  for (const [y, row] of rows.entries()) {
    let run = null;
    for (const c of row) {
      if (run && c.bg === run.bg && c.x === run.end) {
        run.end = c.x + c.width;
        continue;
      }
      if (run?.bg) bgs.push({ y, ...run });
      run = { bg: c.bg, start: c.x, end: c.x + c.width };
    }
    if (run?.bg) bgs.push({ y, ...run });
  }
  out.push('<g shape-rendering="crispEdges">');
  for (const r of bgs) {
    // Overlap by a hair so adjacent runs and rows leave no seams.
    out.push(`<rect x="${num(ox + r.start * cw)}" y="${num(oy + r.y * ch)}" width="${num((r.end - r.start) * cw + 0.4)}" height="${ch + 0.4}" fill="${r.bg}"/>`);
  }
  const cursor = cursorOf(terminal);
  if (cursor) out.push(`<rect x="${num(ox + cursor.x * cw)}" y="${num(oy + cursor.y * ch)}" width="${num(cw)}" height="${ch}" fill="${THEME.cursor}"/>`);
  out.push('</g>');

  // Text: one <text> per row, one <tspan> per run of equal style, every glyph on its cell.
  const lines = [];
  const shapes = [];
  /** Box-drawing segments by colour and weight, in half-cell units: h [y, x1, x2], v [x, y1, y2]. */
  const segments = new Map();
  out.push(`<g font-family="${FONT.family}" font-size="${FONT.size}" xml:space="preserve">`);
  for (const [y, row] of rows.entries()) {
    const spans = [];
    let run = null;
    const flush = () => {
      if (!run) return;
      const text = run.chars.join('');
      if (text.trim() !== '') {
        const attrs = [`x="${run.xs.map((x) => num(ox + x * cw)).join(' ')}"`];
        if (run.fg !== THEME.foreground) attrs.push(`fill="${run.fg}"`);
        if (run.bold) attrs.push('font-weight="bold"');
        if (run.italic) attrs.push('font-style="italic"');
        spans.push(`<tspan ${attrs.join(' ')}>${esc(text)}</tspan>`);
      }
      const x1 = ox + run.start * cw;
      const w = (run.end - run.start) * cw;
      if (run.underline) lines.push(`<rect x="${num(x1)}" y="${num(oy + y * ch + FONT.baseline + 2)}" width="${num(w)}" height="1" fill="${run.fg}"/>`);
      if (run.strike) lines.push(`<rect x="${num(x1)}" y="${num(oy + y * ch + FONT.baseline - 4.5)}" width="${num(w)}" height="1" fill="${run.fg}"/>`);
      run = null;
    };
    for (const c of row) {
      const box = BOX.get(c.ch);
      const block = BLOCKS.get(c.ch);
      if (box || block) {
        flush();
        if (block) {
          const [bx, by, bw, bh] = block;
          shapes.push(`<rect x="${num(ox + (c.x + bx) * cw)}" y="${num(oy + (y + by) * ch)}" width="${num(bw * cw)}" height="${num(bh * ch)}" fill="${c.fg}"/>`);
          continue;
        }
        const heavy = box !== box.toLowerCase();
        const seg = (segments.get(`${c.fg}|${heavy}`) ?? segments.set(`${c.fg}|${heavy}`, { h: [], v: [] }).get(`${c.fg}|${heavy}`));
        const x0 = c.x * 2;
        const y0 = y * 2;
        // Half-cell units: the centre of cell (x, y) is (2x+1, 2y+1).
        const b = box.toLowerCase();
        if (b.includes('l')) seg.h.push([y0 + 1, x0, x0 + 1]);
        if (b.includes('r')) seg.h.push([y0 + 1, x0 + 1, x0 + 2]);
        if (b.includes('u')) seg.v.push([x0 + 1, y0, y0 + 1]);
        if (b.includes('d')) seg.v.push([x0 + 1, y0 + 1, y0 + 2]);
        continue;
      }
      const key = `${c.fg}|${c.bold}|${c.italic}|${c.underline}|${c.strike}`;
      // Plain spaces with no decoration break runs cheaply (nothing to draw).
      if (c.ch === ' ' && !c.underline && !c.strike) {
        flush();
        continue;
      }
      if (!run || run.key !== key || run.end !== c.x) {
        flush();
        run = { key, fg: c.fg, bold: c.bold, italic: c.italic, underline: c.underline, strike: c.strike, chars: [], xs: [], start: c.x, end: c.x };
      }
      run.chars.push(c.ch);
      // A cluster of several code points is one glyph at one position.
      run.xs.push(c.x, ...Array([...c.ch].length - 1).fill(c.x));
      run.end = c.x + c.width;
    }
    flush();
    if (spans.length > 0) out.push(`<text y="${num(oy + y * ch + FONT.baseline)}" fill="${THEME.foreground}">${spans.join('')}</text>`);
  }
  out.push('</g>');
  if (lines.length > 0 || shapes.length > 0) out.push('<g shape-rendering="crispEdges">', ...lines, ...shapes, '</g>');
  // Join touching segments into long strokes, then one path per colour and weight.
  const merge = (list) => {
    list.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    const merged = [];
    for (const s of list) {
      const last = merged[merged.length - 1];
      if (last && last[0] === s[0] && last[2] >= s[1]) last[2] = Math.max(last[2], s[2]);
      else merged.push([...s]);
    }
    return merged;
  };
  for (const [key, seg] of segments) {
    const [color, heavy] = key.split('|');
    const hx = (u) => num(ox + (u * cw) / 2);
    const vy = (u) => num(oy + (u * ch) / 2);
    const d = [
      ...merge(seg.h).map(([y, x1, x2]) => `M${hx(x1)} ${vy(y)}H${hx(x2)}`),
      ...merge(seg.v).map(([x, y1, y2]) => `M${hx(x)} ${vy(y1)}V${vy(y2)}`),
    ].join('');
    out.push(`<path d="${d}" stroke="${color}" stroke-width="${heavy === 'true' ? 2.2 : 1.2}" stroke-linecap="square" fill="none"/>`);
  }
  out.push('</svg>');
  return out.join('\n') + '\n';
}

// -- the session ---------------------------------------------------------------------------

const COLOURS_SCRIPT = String.raw`#!/bin/bash
# Attributes, the 16 colours, the 256-colour cube and a truecolor ramp.
printf '\e[1mbold\e[0m \e[2mdim\e[0m \e[3mitalic\e[0m \e[4munderline\e[0m \e[7m inverse \e[0m \e[9mstrike\e[0m \e[1;3;38;2;255;160;60mtruecolor\e[0m\n'
for i in 0 1 2 3 4 5 6 7; do printf '\e[4%sm   \e[0m' "$i"; done; printf '  '
for i in 0 1 2 3 4 5 6 7; do printf '\e[10%sm   \e[0m' "$i"; done; printf '\n'
for row in 0 1 2 3 4 5; do
  for col in $(seq 0 35); do printf '\e[48;5;%sm ' $((16 + row * 36 + col)); done
  printf '\e[0m  '
  [ $row -lt 4 ] && for col in $(seq 0 5); do printf '\e[48;5;%sm ' $((232 + row * 6 + col)); done
  printf '\e[0m\n'
done
w=$(( $(tput cols) - 2 ))
for i in $(seq 0 $((w - 1))); do
  r=$(( 255 - i * 255 / w )); g=$(( i * 510 / w )); [ $g -gt 255 ] && g=$(( 510 - g )); b=$(( i * 255 / w ))
  printf '\e[48;2;%s;%s;%sm ' $r $g $b
done
printf '\e[0m\n'
`;

async function makeRepo(dir, env) {
  mkdirSync(dir, { recursive: true });
  const git = (...args) =>
    execFileSync('git', args, {
      cwd: dir,
      env: {
        ...env,
        GIT_AUTHOR_NAME: 'corral',
        GIT_AUTHOR_EMAIL: 'corral@example.invalid',
        GIT_COMMITTER_NAME: 'corral',
        GIT_COMMITTER_EMAIL: 'corral@example.invalid',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  git('init', '-q', '-b', 'main');
  const commit = (msg, day) => {
    writeFileSync(join(dir, `${msg.toLowerCase().replace(/[^a-z0-9]+/g, '-').slice(0, 40)}.md`), `${msg}\n`);
    git('add', '.');
    const date = `2026-11-${String(day).padStart(2, '0')}T10:00:00Z`;
    execFileSync('git', ['commit', '-q', '-m', msg], {
      cwd: dir,
      env: { ...env, GIT_AUTHOR_NAME: 'corral', GIT_AUTHOR_EMAIL: 'c@example.invalid', GIT_COMMITTER_NAME: 'corral', GIT_COMMITTER_EMAIL: 'c@example.invalid', GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
    });
  };
  commit('Workspaces, tabs and panes', 2);
  commit('JSON-RPC socket and CLI', 5);
  commit('Compositor: diff changed cells', 9);
  git('checkout', '-q', '-b', 'agents');
  commit('Recognise agents on screen', 12);
  commit('Hooks for claude and codex', 14);
  git('checkout', '-q', 'main');
  commit('Flow control pty → xterm', 15);
  git('merge', '-q', '--no-ff', '-m', "Merge branch 'agents'", 'agents');
  commit('Echo keystrokes without a timer hop', 21);
  commit('bench: the TUI against tmux', 29);
}

async function main() {
  const tui = new CorralTui({
    cols: COLS,
    rows: ROWS,
    cwd: (sandbox) => {
      const dir = join(sandbox.home, 'src', 'api');
      mkdirSync(dir, { recursive: true });
      return dir;
    },
  });
  // `corral` on the panes' PATH, for the `corral ls` in the third pane.
  const binDir = join(tui.sandbox.dir, 'bin');
  mkdirSync(binDir);
  writeFileSync(join(binDir, 'corral'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(binDir, 'corral'), 0o755);
  const home = tui.sandbox.home;
  const api = join(home, 'src', 'api');
  const web = join(home, 'src', 'web');
  mkdirSync(web, { recursive: true });
  writeFileSync(join(tui.sandbox.dir, 'colours.sh'), COLOURS_SCRIPT);
  try {
    await makeRepo(api, tui.env);
    await tui.ready();
    const run = async (pane, command) => tui.cli(['pane', 'run', pane, command]);
    const path = `export PATH=${binDir}:$PATH`;

    await tui.cli(['workspace', 'rename', 'w1', 'api']);
    const ws2 = await tui.json(['workspace', 'create', '--cwd', web, '--label', 'web', '--no-focus']);
    await tui.json(['tab', 'create', '--workspace', ws2.result.workspace.workspace_id ?? ws2.result.workspace.id, '--label', 'tests', '--cwd', web, '--no-focus']).catch(() => null);
    await tui.json(['tab', 'create', '--label', 'logs', '--cwd', api, '--no-focus']);
    const right = (await tui.json(['pane', 'split', 'w1:p1', '--direction', 'right', '--ratio', '0.52', '--no-focus'])).result.pane.pane_id;
    const bottom = (await tui.json(['pane', 'split', right, '--direction', 'down', '--ratio', '0.55'])).result.pane.pane_id;
    await tui.cli(['pane', 'rename', 'w1:p1', 'colours']);
    await tui.cli(['pane', 'rename', right, 'history']);
    await tui.cli(['pane', 'rename', bottom, 'shell']);

    await tui.cli(['tab', 'rename', 'w1:t1', 'dev']);
    await run('w1:p1', `clear; bash ${join(tui.sandbox.dir, 'colours.sh')}; ls -lA -g -G --color=always /etc | head -n 22`);
    await tui.term.waitForText('total ');
    await run(right, `clear; git --no-pager log --graph --color=always --pretty=format:'%C(yellow)%h%C(reset) %s%C(auto)%d%C(reset)'; echo; echo; git --no-pager diff --color=always --stat HEAD~3`);
    await tui.term.waitForText('files changed');
    await run(bottom, `${path}; PS1='\\[\\e[1;32m\\]dev\\[\\e[0m\\]:\\[\\e[1;34m\\]~/src/api\\[\\e[0m\\]$ '; clear`);
    await tui.term.settle(300);
    await run(bottom, `corral pane get --current | jq -C '.result.pane | {pane_id, name, workspace_id, tab_id, cols, rows, focused}'`);
    await tui.term.waitForText('"focused"');
    // Leave a half-typed command at the prompt, with the cursor after it.
    await tui.cli(['pane', 'send-text', bottom, 'npm test']);
    await sleep(500);
    await tui.term.settle(800, 15_000);
    const svg = renderSvg(tui.term.screen, { title: 'corral — api' });
    const out = resolve(opts.out);
    writeFileSync(out, svg);
    process.stderr.write(`${tui.term.text()}\nwrote ${out} (${(Buffer.byteLength(svg) / 1024).toFixed(0)} KB)\n`);
  } finally {
    await tui.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('screenshot.mjs')) await main();
