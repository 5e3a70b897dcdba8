/**
 * The session saver (src/persist/session-saver.ts) saves a pane's lines an interval after
 * its output and looks at the state once more after that, then does nothing while the
 * panes print nothing: no pass reads /proc or rebuilds the state on an idle server.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionSaver } from '../../src/persist/session-saver.js';
import { scrollbackFile, sessionFiles } from '../../src/persist/state-files.js';
import { unitCore } from './support/unit-core.js';

const EVERY = 100;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

function setUp() {
  const { core, clock, children } = unitCore();
  const dir = mkdtempSync(join(tmpdir(), 'corral-saver-idle-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  cleanups.push(() => core.shutdown());
  core.createWorkspace({ cwd: '/srv' });
  const files = sessionFiles(dir, 'default');
  const saver = new SessionSaver({ core, files, session: 'default', scrollbackLines: 100, log: () => {}, timing: { scrollbackEveryMs: EVERY, structureDelayMs: 10 } });
  cleanups.push(() => saver.dispose());
  // Each pass reads every pane's cwd for the state it compares.
  const cwdReads = vi.spyOn(core, 'paneCwd');
  const print = (text: string) => {
    children[0]!.output(text);
    // The core's surface_changed coalescing runs on its (fake) clock.
    clock.advance(1000);
  };
  return { core, files, cwdReads, print };
}

describe('session saver on an idle server', () => {
  it('saves after output, looks at the state once more, then does nothing while nothing is printed', async () => {
    const { core, files, cwdReads, print } = setUp();
    const surfaceId = [...core.model.panes.values()][0]!.surfaceId;
    await sleep(50); // the structure save of the new pane
    cwdReads.mockClear();
    print('hello\r\n$ ');
    await until('the scrollback saved', () => existsSync(scrollbackFile(files, surfaceId)));
    // The pass that saved, and one more for the state: then quiet.
    await sleep(EVERY * 4);
    expect(cwdReads).toHaveBeenCalledTimes(2);
    cwdReads.mockClear();
    await sleep(EVERY * 10);
    expect(cwdReads).not.toHaveBeenCalled();

    // New output: a pass again within an interval or so.
    print('again\r\n$ ');
    await until('a pass after the new output', () => cwdReads.mock.calls.length > 0, EVERY * 20);
  });
});
