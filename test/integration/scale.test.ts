/**
 * 100 panes on one real server (real bash in real ptys, driven over the socket): every pane
 * prints a marker and then enough lines to push the marker out of xterm's window into the
 * pane's compact scrollback store. Every pane must still be readable in full, and search must
 * find each pane's marker — correctness at scale, not timing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawClient, TestServer } from './harness.js';

const PANES = 100;
/** More than xterm's window (200 rows above a 48-row screen), so the marker leaves xterm. */
const LINES = 600;

describe('100 panes', () => {
  let server: TestServer;
  let rpc: RawClient;
  const panes: string[] = [];

  beforeAll(async () => {
    server = await new TestServer({ scripting: true }).start();
    rpc = await RawClient.open(server.socketPath);
    for (let i = 0; i < PANES; i++) {
      const created = await rpc.call('workspace.create', { cwd: server.home, focus: false });
      panes.push(created.root_pane.pane_id);
    }
    // printf assembles the markers, so the echoed command lines never contain them.
    await Promise.all(
      panes.map((pane, i) =>
        rpc.call('pane.run', { pane_id: pane, command: `printf 'mark%s-%s\\n' er p${i}; seq -f 'p${i} row %g' 1 ${LINES}; printf '%s-%s\\n' DONE p${i}` }),
      ),
    );
    for (const [i, pane] of panes.entries()) {
      await rpc.call('pane.wait_for_output', { pane_id: pane, match: { type: 'substring', value: `DONE-p${i}` }, timeout_ms: 60_000 });
    }
  }, 120_000);

  afterAll(async () => {
    rpc?.close();
    await server?.stop();
  });

  it('finds every pane\'s marker with search, though it scrolled out of xterm', async () => {
    for (const [i, pane] of panes.entries()) {
      const found = await rpc.call('surface.search', { target: pane, pattern: `marker-p${i}` });
      expect(found.matches, `pane ${pane}`).toHaveLength(1);
      expect(found.matches[0].text).toBe(`marker-p${i}`);
      // The marker's row is followed by all the rows, so it is far above the screen.
      expect(found.matches[0].line).toBeLessThan(10);
    }
  });

  it('reads every pane in full, oldest rows first', async () => {
    for (const [i, pane] of panes.entries()) {
      const { read } = await rpc.call('pane.read', { pane_id: pane, source: 'recent', lines: 2000 });
      const rows: string[] = read.text.split('\n');
      const marker = rows.indexOf(`marker-p${i}`);
      expect(marker, `pane ${pane}`).toBeGreaterThanOrEqual(0);
      expect(rows.slice(marker + 1, marker + 1 + LINES)).toEqual(Array.from({ length: LINES }, (_, k) => `p${i} row ${k + 1}`));
      expect(rows[marker + 1 + LINES]).toBe(`DONE-p${i}`);
    }
  });

  it('gives back the V8 heap the busy spell grew, once idle, without losing a line', async () => {
    // Creating 100 panes and reading them grows V8's young generation to tens of MB; V8 does
    // not shrink it by itself on an idle server. No event says "trimmed": poll system.stats.
    const slack = (m: { heap_total: number; heap_used: number }) => m.heap_total - m.heap_used;
    const limit = 12 * 1024 * 1024;
    const deadline = Date.now() + 45_000;
    let memory = (await rpc.call('system.stats')).memory;
    while (slack(memory) > limit && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      memory = (await rpc.call('system.stats')).memory;
    }
    expect(slack(memory), `heap reserved ${memory.heap_total} for ${memory.heap_used} in use`).toBeLessThanOrEqual(limit);
    const { read } = await rpc.call('pane.read', { pane_id: panes[7], source: 'recent', lines: 2000 });
    expect(read.text).toContain('marker-p7');
  }, 60_000);

  it('finds a marker through the real CLI too', async () => {
    const result = await server.cli(['search', panes[42]!, 'marker-p42', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('marker-p42');
  });
});
