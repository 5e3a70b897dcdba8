/**
 * The web view with real agents (SPEC §16, issue 31): Claude Code and Codex in corral panes,
 * talking to the lab's scripted model, with the scripting gate CLOSED. A person on the page —
 * `corral web` in a terminal outside every pane, a real headless Chromium — opens the agent's
 * pane, types a prompt that makes it ask to run a shell command, sees it blocked at the top of
 * "needs you", taps its rule file's "allow once" button, and the agent runs the command and
 * finishes. Proves the `[answers]` keys of assets/agents/claude.toml and codex.toml live.
 * Run: `npx vitest run -c vitest.agents.config.ts test/agents/web.live.test.ts`.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { TestServer } from '../integration/harness.js';
import { WebProcess, haveChromium, launchBrowser } from '../web/web-harness.js';
import { AGENTS_DIR, agentEnvironment, endCodexDaemonsOf, startFakeModel, type LabAgent } from './lab.js';

/** A tool command inside the project, so no agent first asks about an outside directory. */
const MODEL_ENV = { TOOL_CMD: 'touch marker.txt' };
const KINDS: LabAgent[] = ['claude', 'codex'];
const installed = (kind: LabAgent) => existsSync(join(AGENTS_DIR, 'node_modules', '.bin', kind));

for (const kind of KINDS) {
  describe.skipIf(!haveChromium || !installed(kind))(`${kind} answered from the web page, gate closed`, () => {
    let server: TestServer;
    let model: { port: number; stop: () => void };
    let project: string;
    let web: WebProcess;
    let browser: Browser;
    let page: Page;
    let pane: string;
    const name = `${kind}-web`;
    const json = async (...args: string[]) => {
      const result = await server.cli(args);
      if (result.code !== 0) throw new Error(`corral ${args.join(' ')} → ${result.code}: ${result.stderr}`);
      return JSON.parse(result.stdout);
    };

    beforeAll(async () => {
      // The lab's environment (lab.ts AgentLab) on a server started WITHOUT --scripting.
      server = new TestServer();
      model = await startFakeModel(server.dir, MODEL_ENV);
      project = join(server.dir, 'project');
      mkdirSync(project, { recursive: true });
      const env = agentEnvironment(kind, server.home, project, model.port);
      Object.assign(server.env, env, { PATH: `${join(AGENTS_DIR, 'node_modules', '.bin')}:${process.env.PATH}` });
      await server.start();
      pane = (await json('workspace', 'create', '--cwd', project)).result.root_pane.pane_id;
      const started = await json('agent', 'start', name, '--kind', kind, '--pane', pane, '--timeout', '90000');
      expect(started.result.agent).toMatchObject({ kind, agent_status: 'idle' });
      web = await WebProcess.start(server);
      browser = await launchBrowser();
      page = await (await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true })).newPage();
      await page.goto(web.url);
      await page.waitForSelector(`#fleet [data-pane="${pane}"]`);
    }, 150_000);

    afterAll(async () => {
      await browser?.close();
      await web?.stop();
      await server?.stop();
      model?.stop();
      if (server) endCodexDaemonsOf(server.home);
    });

    it('types a prompt on the page, is blocked at the top of "needs you", and proceeds to done on "allow once"', { timeout: 240_000 }, async () => {
      expect((await json('ps', '--json')).agents[0]).toMatchObject({ tool: kind, pane_id: pane });
      await page.locator(`#fleet [data-pane="${pane}"] button.open`).click();
      await page.waitForFunction(() => ((window as unknown as { corral: { pane: { written: number } | null } }).corral.pane?.written ?? 0) > 0);
      await page.locator('.pane-view .xterm-helper-textarea').focus();
      // Typed as a person types (a key at a time), then Enter once the agent shows the text.
      await page.keyboard.type('RUNTOOL please', { delay: 40 });
      await json('pane', 'wait-output', pane, '--match', 'RUNTOOL please', '--timeout', '20000');
      await page.keyboard.press('Enter');
      const blocked = await json('agent', 'wait', name, '--until', 'blocked', '--timeout', '120000');
      expect(blocked.result.agent.agent_status).toBe('blocked');
      await page.locator('.pane-view button.back').click();
      const card = page.locator(`#needs li:first-child[data-pane="${pane}"][data-need="blocked"]`);
      await card.waitFor({ timeout: 5000 });
      expect(await card.locator('button[data-answer]').evaluateAll((buttons) => buttons.map((b) => b.getAttribute('data-answer')))).toEqual(['allow once', 'deny']);
      await card.locator('button[data-answer="allow once"]').click();
      const done = await json('agent', 'wait', name, '--until', 'done', '--timeout', '120000');
      expect(done.result.agent.agent_status).toBe('done');
      // The command it asked to run did run: the answer was "allow", not a dismissal.
      expect(existsSync(join(project, 'marker.txt'))).toBe(true);
      expect(server.stderr).toMatch(new RegExp(`web client web\\d+ answered "allow once" \\(${kind === 'claude' ? '1' : 'y'}\\) to ${kind} in ${pane}`));
      // The page shows it done and unseen, not blocked.
      await page.waitForSelector(`#needs [data-pane="${pane}"][data-need="done"]`, { timeout: 5000 });
    });
  });
}
