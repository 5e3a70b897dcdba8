/**
 * The web view (SPEC §16, issue 31's measures), against one server that also has a TUI
 * attached (`corral` in a node-pty, the person at the terminal) and 100 panes:
 *
 * 1. First paint of the fleet with 100 panes over loopback: a logged-in page loaded again and
 *    again; the page records when it first drew the fleet (`performance.now()` from navigation
 *    start: the page, its bundle, the fleet POST and the DOM). Target ≤ 300 ms.
 * 2. State change → page: the fake Claude (bench/fixtures/fake-claude) switches between
 *    working and blocked; from the wall-clock time it wrote its screen to when the page's list
 *    showed the new state (a MutationObserver stamps it). Target p95 ≤ 100 ms.
 * 3. A pane's echo typed on the page vs through `corral attach`: one letter at a time into the
 *    same bash pane, alternating, the page's from sending the key on its WebSocket to the echo
 *    arriving in its pane stream, the TUI's from the key written to its pty to the echo on its
 *    terminal. Target p50 ≤ 2× attach.
 *
 * Chromium: /usr/bin/chromium (CORRAL_CHROMIUM to override), driven by playwright-core.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import NodeWebSocket from 'ws';
import { BIN, median, percentile, round } from './lib.mjs';
import { CorralTui, LETTERS, clearLine, keyGap, warmUp } from './tui-lib.mjs';
import { typeAndTime } from './tui-latency.mjs';
import { FAKE_DIR, FakeControl, RpcClient } from './agent-lib.mjs';

export const description = 'web view: first paint of 100 panes, state change → page, echo on the page vs corral attach';

const CHROMIUM = process.env.CORRAL_CHROMIUM ?? '/usr/bin/chromium';
const PANES = 100;

function startWeb(env, cwd) {
  const child = spawn(process.execPath, [BIN, 'web', '--listen', '127.0.0.1:0', '--predict', 'always'], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const m = /open (http:\/\/\S+#token=[A-Za-z0-9_-]+)/.exec(out);
      if (m) resolve({ child, url: m[1] });
    });
    child.once('exit', (code) => reject(new Error(`corral web exited ${code}: ${out}`)));
  });
}

export async function run({ quick = false } = {}) {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM} (apt-get install chromium)`);
  const paints = quick ? 5 : 20;
  const switches = quick ? 10 : 40;
  const keys = quick ? 20 : 100;
  const tui = new CorralTui({ cols: 120, rows: 40, extraEnv: { PATH: `${FAKE_DIR}:${process.env.PATH}` } });
  let web;
  let browser;
  try {
    await tui.ready();
    const home = tui.sandbox.home;
    const control = join(tui.sandbox.dir, 'web-bench.ctl');
    const agentPane = (await tui.json(['workspace', 'create', '--cwd', home, '--no-focus'])).result.root_pane.pane_id;
    await tui.json(['agent', 'start', 'bench', '--kind', 'claude', '--pane', agentPane, '--timeout', '20000', '--', '--control', control, '--spinner-ms', '0', '--work-ms', '600000'], { timeoutMs: 30_000 });
    const agent = await FakeControl.connectTo(control);
    for (let i = 2; i < PANES; i++) await tui.json(['workspace', 'create', '--cwd', home, '--no-focus']);
    web = await startWeb(tui.env, home);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(web.url);
    await page.waitForFunction((n) => document.querySelectorAll('#fleet .card').length >= n, PANES);
    const origin = new URL(web.url).origin;

    // 1. First paint, logged in (the cookie), a fresh page each time.
    const firstPaint = [];
    for (let i = 0; i < paints + 2; i++) {
      const p = await context.newPage();
      await p.goto(origin);
      await p.waitForFunction((n) => window.corral?.firstPaintAt != null && document.querySelectorAll('#fleet .card').length >= n, PANES);
      const at = await p.evaluate(() => window.corral.firstPaintAt);
      if (i >= 2) firstPaint.push(at); // the first two warm the bundle's compile cache
      await p.close();
    }

    // 2. State change → page (in front again: the pages opened above left it in the background).
    await page.bringToFront();
    await page.evaluate((pane) => {
      window.__seen = [];
      let last = null;
      new MutationObserver(() => {
        const need = document.querySelector(`#fleet [data-pane="${pane}"]`)?.getAttribute('data-need') ?? null;
        if (need !== last) {
          last = need;
          window.__seen.push({ need, at: Date.now() });
        }
      }).observe(document.getElementById('fleet'), { subtree: true, childList: true, attributes: true });
    }, agentPane);
    // The server's own share (screen → detection → event) is timed beside it, from an event
    // subscriber on the socket, so the web view's share (event → page) shows on its own.
    const events = await RpcClient.open(join(tui.sandbox.env.XDG_RUNTIME_DIR, 'corral', 'default.sock'));
    await events.call('events.subscribe', { types: ['agent.status_changed'] });
    const change = [];
    const webShare = [];
    const wire = [];
    for (let i = 0; i < switches; i++) {
      const state = i % 2 === 0 ? 'blocked' : 'working';
      events.drainEvents();
      await page.evaluate(() => (window.corral.statusArrivals = []));
      const report = await agent.switchTo(state);
      const { receivedAt } = await events.nextEvent((e) => e.pane_id === agentPane && e.agent_status === state, 5000);
      const handle = await page.waitForFunction((need) => window.__seen.findLast((s) => s.need === need), state, { timeout: 5000 });
      const seen = await handle.jsonValue();
      change.push(seen.at - report.t);
      webShare.push(seen.at - receivedAt);
      const arrived = await page.evaluate(() => window.corral.statusArrivals[0] ?? null);
      if (arrived !== null) wire.push(arrived - receivedAt);
      await page.evaluate(() => (window.__seen = window.__seen.slice(-1)));
    }

    // 3. Echo: the page (its pane open on w1:p1) and the attached TUI, into the same shell.
    await page.locator('#fleet [data-pane="w1:p1"] button.open').click();
    await page.waitForFunction(() => (window.corral.pane?.written ?? 0) > 0);
    const pageSide = {
      name: 'page',
      type: (ch) =>
        page.evaluate(
          (ch) =>
            new Promise((resolve, reject) => {
              const timer = setTimeout(() => reject(new Error('no echo on the page')), 5000);
              const t0 = performance.now();
              window.corral.onScreen = (m) => {
                if (m.kind === 'output' && atob(m.data).includes(ch)) {
                  window.corral.onScreen = null;
                  clearTimeout(timer);
                  resolve(performance.now() - t0);
                }
              };
              window.corral.send({ t: 'input', pane: 'w1:p1', data: ch });
            }),
          ch,
        ),
    };
    // The same path without the browser: a Node WebSocket client with the page's cookie, to
    // tell corral web's share from Chromium's.
    const session = (await context.cookies()).find((c) => c.name === 'corral_web');
    const nodeWs = new NodeWebSocket(`${origin.replace('http', 'ws')}/ws`, { headers: { Origin: origin, Cookie: `corral_web=${session.value}` } });
    await new Promise((r, j) => (nodeWs.once('open', r), nodeWs.once('error', j)));
    let onNodeScreen = null;
    nodeWs.on('message', (data) => {
      const m = JSON.parse(String(data));
      if (m.t === 'screen') onNodeScreen?.(m);
    });
    const watching = new Promise((r) => (onNodeScreen = (m) => m.kind === 'snapshot' && r()));
    nodeWs.send(JSON.stringify({ t: 'watch', pane: 'w1:p1' }));
    await watching;
    const nodeSide = {
      type: (ch) =>
        new Promise((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error('no echo on the node client')), 5000);
          const t0 = performance.now();
          onNodeScreen = (m) => {
            if (m.kind === 'output' && Buffer.from(m.data, 'base64').toString('latin1').includes(ch)) {
              onNodeScreen = null;
              clearTimeout(timer);
              resolve(performance.now() - t0);
            }
          };
          nodeWs.send(JSON.stringify({ t: 'input', pane: 'w1:p1', data: ch }));
        }),
    };
    await warmUp([tui]);
    for (const ch of 'warm') await pageSide.type(ch);
    await clearLine(tui);
    const echo = { page: [], attach: [], node: [] };
    for (let i = 0; i < keys; i++) {
      const ch = LETTERS[i % LETTERS.length];
      const order = i % 2 === 0 ? ['page', 'attach', 'node'] : ['node', 'attach', 'page'];
      for (const side of order) {
        echo[side].push(side === 'page' ? await pageSide.type(ch) : side === 'node' ? await nodeSide.type(ch) : await typeAndTime(tui, ch));
        await keyGap();
      }
      if (i % 12 === 11) await clearLine(tui);
    }
    nodeWs.close();
    agent.close();

    // 3b. The page's predicted echo (`corral web --predict always`, src/web/page/echo-overlay.ts):
    // keys typed into the page's terminal (xterm.js's own input path) in another shell, each
    // timed to the moment its character is in the DOM — drawn by the prediction, or by the echo
    // when the prediction did not show (the first key of an epoch).
    await page.locator('.pane-view button.back').click();
    await page.locator('#fleet [data-pane="w4:p1"] button.open').click();
    await page.waitForFunction(() => (window.corral.pane?.written ?? 0) > 0);
    const typeOnPage = (ch) =>
      page.evaluate(
        (ch) =>
          new Promise((resolve, reject) => {
            const view = window.corral.pane;
            const layer = document.querySelector('.pane-view .echo-overlay');
            const rows = document.querySelector('.pane-view .xterm-rows');
            const before = (rows.textContent.match(new RegExp(ch, 'g')) ?? []).length;
            const timer = setTimeout(() => reject(new Error('no echo on the page')), 5000);
            const t0 = performance.now();
            const seen = () => {
              if ([...layer.children].some((c) => c.textContent === ch)) return 'predicted';
              return (rows.textContent.match(new RegExp(ch, 'g')) ?? []).length > before ? 'echo' : null;
            };
            const observer = new MutationObserver(() => {
              const how = seen();
              if (!how) return;
              observer.disconnect();
              clearTimeout(timer);
              resolve({ ms: performance.now() - t0, how });
            });
            observer.observe(layer, { childList: true });
            observer.observe(rows, { childList: true, subtree: true, characterData: true });
            // xterm.js's input path: onData, as a key typed into it.
            view.term.input(ch, true);
            const how = seen();
            if (how) {
              observer.disconnect();
              clearTimeout(timer);
              resolve({ ms: performance.now() - t0, how });
            }
          }),
        ch,
      );
    for (const ch of 'warm') await typeOnPage(ch);
    const predicted = [];
    let drawnBy = { predicted: 0, echo: 0 };
    for (let i = 0; i < keys; i++) {
      const { ms, how } = await typeOnPage(LETTERS[i % LETTERS.length]);
      predicted.push(ms);
      drawnBy[how]++;
      await keyGap();
    }

    // 4. The server while one page floods a shell pane with 1,000 key messages a second (2 s):
    // surface.status round trips on the socket, against the same calls with no flood, same run.
    const statusTimes = async (more) => {
      const times = [];
      while (more(times.length)) {
        const t0 = performance.now();
        await events.call('surface.status', { target: 'w1:p1' });
        times.push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, 5));
      }
      return times;
    };
    const quietStatus = await statusTimes((n) => n < 150);
    let flooding = true;
    const flood = page
      .evaluate(
        ({ pane }) =>
          new Promise((done) => {
            const ws = new WebSocket(`ws://${location.host}/ws`);
            let sent = 0;
            ws.onopen = () => {
              const timer = setInterval(() => {
                for (let i = 0; i < 10; i++) ws.send(JSON.stringify({ t: 'input', pane, data: 'a' }));
                sent += 10;
                if (sent >= 2000) {
                  clearInterval(timer);
                  ws.close();
                  done(sent);
                }
              }, 10);
            };
            ws.onclose = () => done(sent);
          }),
        { pane: 'w3:p1' },
      )
      .finally(() => (flooding = false));
    const floodStatus = await statusTimes(() => flooding);
    const floodSent = await flood;
    events.close();

    const ratio = median(echo.page) / median(echo.attach);
    process.stderr.write(
      `  first paint p50 ${round(median(firstPaint))} ms p95 ${round(percentile(firstPaint, 95))} ms; state → page p50 ${round(median(change))} p95 ${round(percentile(change, 95))} ms (event → page p50 ${round(median(webShare))} p95 ${round(percentile(webShare, 95))} ms, of which event → page's socket p50 ${round(median(wire))} p95 ${round(percentile(wire, 95))} ms); ` +
        `echo page p50 ${round(median(echo.page))} p95 ${round(percentile(echo.page, 95))} ms vs attach p50 ${round(median(echo.attach))} p95 ${round(percentile(echo.attach, 95))} ms; ` +
        `the same through corral web from a Node client p50 ${round(median(echo.node))} p95 ${round(percentile(echo.node, 95))} ms; ` +
        `predicted on the page p50 ${round(median(predicted))} p95 ${round(percentile(predicted, 95))} ms (${drawnBy.predicted} predicted, ${drawnBy.echo} by the echo)\n`,
    );
    return [
      { name: `web: first paint of the fleet, ${PANES} panes, loopback`, value: round(median(firstPaint), 1), p95: round(percentile(firstPaint, 95), 1), unit: 'ms', target: '≤ 300 ms', pass: percentile(firstPaint, 95) <= 300 },
      { name: 'web: agent state change (screen) → page', value: round(median(change), 1), p95: round(percentile(change, 95), 1), unit: 'ms', target: 'p95 ≤ 100 ms', pass: percentile(change, 95) <= 100 },
      { name: 'web: …of which event → page (the web view’s share)', value: round(median(webShare), 1), p95: round(percentile(webShare, 95), 1), unit: 'ms' },
      {
        name: 'web: echo typed on the page (p50)',
        value: round(median(echo.page), 2),
        p95: round(percentile(echo.page, 95), 2),
        unit: 'ms',
        baseline: 'corral attach',
        baselineValue: round(median(echo.attach), 2),
        ratio: round(ratio),
        target: '≤ 2×',
        pass: ratio <= 2,
      },
      {
        name: `web: surface.status while a page sends 1,000 key messages a second (${floodSent} sent, ${floodStatus.length} calls)`,
        value: round(median(floodStatus), 2),
        p95: round(percentile(floodStatus, 95), 2),
        unit: 'ms',
        baseline: 'no flood p50 / p95',
        baselineValue: `${round(median(quietStatus), 2)} / ${round(percentile(quietStatus, 95), 2)}`,
        target: 'p95 < 10 ms',
        pass: percentile(floodStatus, 95) < 10,
      },
      {
        name: `web: echo typed on the page with --predict always, key → drawn (${drawnBy.predicted} of ${keys} keys drawn by the prediction)`,
        value: round(median(predicted), 2),
        p95: round(percentile(predicted, 95), 2),
        unit: 'ms',
        baseline: 'corral attach',
        baselineValue: round(median(echo.attach), 2),
        ratio: round(median(predicted) / median(echo.attach)),
        target: '≤ 2×',
        pass: median(predicted) / median(echo.attach) <= 2,
      },
      { name: 'web: …the same key from a Node WebSocket client (no browser)', value: round(median(echo.node), 2), p95: round(percentile(echo.node, 95), 2), unit: 'ms', baseline: 'corral attach', baselineValue: round(median(echo.attach), 2), ratio: round(median(echo.node) / median(echo.attach)) },
    ];
  } finally {
    await browser?.close();
    web?.child.kill('SIGTERM');
    await tui.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await run({ quick: process.argv.includes('--quick') });
  console.log(JSON.stringify(rows, null, 2));
}
