/**
 * The web view's predicted echo (issue 45, src/web/page/echo-overlay.ts) in a real Chromium:
 * `corral web --predict always`, a pane whose program echoes each key 400 ms late. A typed key
 * is drawn over the terminal at once and goes when its echo draws it; an echo that differs
 * (capitals) replaces the guess with what the pane drew; at a password prompt (no echo) no key
 * is ever drawn; with `--predict never` nothing is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { TestServer } from '../integration/harness.js';
import { WebProcess, haveChromium, launchBrowser } from './web-harness.js';

const SLOW_ECHO = resolve(import.meta.dirname, '../fixtures/programs/slow-echo.mjs');

/** The overlay's cells as text, and the terminal's rows. */
async function look(page: Page): Promise<{ guessed: string; rows: string }> {
  return page.evaluate(() => ({
    guessed: [...document.querySelectorAll('.pane-view .echo-overlay span')].map((s) => s.textContent).join(''),
    rows: document.querySelector('.pane-view .xterm-rows')?.textContent ?? '',
  }));
}

describe.skipIf(!haveChromium)('predicted echo on the web view', () => {
  let server: TestServer;
  let browser: Browser;
  const webs: WebProcess[] = [];

  beforeAll(async () => {
    server = await new TestServer({ scripting: true }).start();
    browser = await launchBrowser();
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    for (const web of webs) await web.stop();
    await server?.stop();
  });

  async function openPane(predict: string, upper: boolean): Promise<{ page: Page; pane: string }> {
    const pane = (await server.json(['workspace', 'create', '--cwd', server.home])).result.root_pane.pane_id;
    await server.json(['pane', 'run', pane, `SLOW_ECHO_MS=400 SLOW_ECHO_UPPER=${upper ? 1 : 0} node ${SLOW_ECHO}`]);
    await server.json(['pane', 'wait-output', pane, '--match', 'say>', '--timeout', '10000']);
    const web = await WebProcess.start(server, ['--predict', predict]);
    webs.push(web);
    const page = await (await browser.newContext()).newPage();
    await page.goto(web.url);
    await page.locator(`#fleet [data-pane="${pane}"] button.open`).click();
    await page.waitForFunction(() => document.querySelector('.pane-view .xterm-rows')?.textContent?.includes('say>'));
    await page.locator('.pane-view .xterm-helper-textarea').focus();
    return { page, pane };
  }

  it('draws a key at once and hands it to the echo; an echo in capitals replaces the guesses; a password is never drawn', async () => {
    const { page, pane } = await openPane('always', false);
    // The first key of an epoch is shown only once an echo has confirmed one (mosh's rule).
    await page.keyboard.type('a');
    await page.waitForFunction(() => document.querySelector('.pane-view .xterm-rows')?.textContent?.includes('say> a'));
    await page.keyboard.type('bc');
    // Drawn before the echo (400 ms away): the guesses are on the page, the terminal has only "a".
    await page.waitForFunction(() => document.querySelectorAll('.pane-view .echo-overlay span').length === 2, undefined, { timeout: 300 });
    expect(await look(page)).toMatchObject({ guessed: 'bc' });
    expect((await look(page)).rows).not.toContain('say> abc');
    // The echo comes: the terminal draws it and the guesses go.
    await page.waitForFunction(() => document.querySelector('.pane-view .xterm-rows')?.textContent?.includes('say> abc'));
    await page.waitForFunction(() => document.querySelectorAll('.pane-view .echo-overlay span').length === 0);

    // A password prompt: nothing typed there is drawn, ever.
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('.pane-view .xterm-rows')?.textContent?.includes('password:'));
    let drawn = 0;
    await page.exposeFunction('noteDrawn', (n: number) => (drawn = Math.max(drawn, n)));
    await page.evaluate(() => {
      const layer = document.querySelector('.pane-view .echo-overlay')!;
      new MutationObserver(() => (window as unknown as { noteDrawn(n: number): void }).noteDrawn(layer.children.length)).observe(layer, { childList: true });
    });
    await page.keyboard.type('hunter2');
    await server.json(['pane', 'wait-output', pane, '--match', 'password:', '--timeout', '5000']);
    await new Promise((r) => setTimeout(r, 1500));
    expect(drawn).toBe(0);
    expect((await look(page)).rows).not.toContain('hunter2');
    await page.context().close();
  });

  it('an echo unlike the guess: the pane shows what it drew, and no guess is left over it', async () => {
    const { page } = await openPane('always', true);
    await page.keyboard.type('x');
    await page.waitForFunction(() => document.querySelector('.pane-view .xterm-rows')?.textContent?.includes('say> X'));
    // The epoch was never confirmed (X is not x): the next keys are not drawn early either.
    await page.keyboard.type('yz');
    await page.waitForFunction(() => document.querySelector('.pane-view .xterm-rows')?.textContent?.includes('say> XYZ'));
    expect((await look(page)).guessed).toBe('');
    await page.context().close();
  });
});
