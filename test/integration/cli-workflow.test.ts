/**
 * The source document's script and the herdr-style verbs, run through the real CLI against a
 * real server with real shells.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { TestServer } from './harness.js';

describe('herdr-style workflow (scripting on)', () => {
  let server: TestServer;
  let project: string;
  beforeAll(async () => {
    server = await new TestServer({ scripting: true }).start();
    project = join(server.home, 'project');
    mkdirSync(project);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('runs the source document script: create, split, run, wait-output', async () => {
    const created = await server.json(['workspace', 'create', '--cwd', project, '--label', 'api', '--no-focus']);
    const paneId = created.result.root_pane.pane_id;
    expect(paneId).toMatch(/^w\d+:p1$/);
    expect(created.result.workspace.label).toBe('api');
    expect(created.result.tab.tab_id).toMatch(/^w\d+:t1$/);

    const split = await server.json(['pane', 'split', paneId, '--direction', 'right', '--no-focus']);
    const other = split.result.pane.pane_id;
    expect(other).not.toBe(paneId);

    const run = await server.cli(['pane', 'run', other, 'echo tests passed']);
    expect(run.code).toBe(0);
    const waited = await server.cli(['pane', 'wait-output', other, '--regex', 'passed|failed', '--timeout', '120000']);
    expect(waited.code).toBe(0);
    const result = JSON.parse(waited.stdout).result;
    expect(result.pane_id).toBe(other);
    // The command line itself echoes "echo tests passed"; either that or the output line matched.
    expect(result.matched_line).toMatch(/tests passed/);

    // The pane really ran the command in the requested directory, with corral's environment.
    await server.cli(['pane', 'run', other, 'echo "cwd=$PWD id=$CORRAL_PANE_ID"']);
    const env = await server.cli(['pane', 'wait-output', other, '--match', `cwd=${project} id=${other}`, '--timeout', '10000']);
    expect(env.code, (await server.cli(['pane', 'read', other])).stdout).toBe(0);
  });

  it('pane read prints the text and honours --source and --lines', async () => {
    const created = await server.json(['workspace', 'create', '--cwd', server.home]);
    const pane = created.result.root_pane.pane_id;
    await server.cli(['pane', 'run', pane, 'for i in $(seq 1 300); do echo line$i; done; echo END-MARK']);
    await server.cli(['pane', 'wait-output', pane, '--regex', '^END-MARK$', '--timeout', '10000']);
    const recent = await server.cli(['pane', 'read', pane, '--lines', '5']);
    expect(recent.code).toBe(0);
    expect(recent.stdout).not.toContain('{"result"');
    expect(recent.stdout).toContain('END-MARK');
    expect(recent.stdout).not.toContain('line250');
    const longer = await server.cli(['pane', 'read', pane, '--source', 'recent', '--lines', '200']);
    expect(longer.stdout).toContain('line150');
    const visible = await server.cli(['pane', 'read', pane, '--source', 'visible']);
    expect(visible.stdout).toContain('line300');
    expect(visible.stdout).not.toContain('line1\n');
  });

  it('lists, gets, renames, focuses, zooms and closes', async () => {
    const created = await server.json(['workspace', 'create', '--cwd', server.home, '--label', 'ops']);
    const ws = created.result.workspace.workspace_id;
    const root = created.result.root_pane.pane_id;
    const tab = await server.json(['tab', 'create', '--workspace', ws, '--label', 'logs']);
    expect(tab.result.tab.workspace_id).toBe(ws);
    const tabs = await server.json(['tab', 'list', '--workspace', ws]);
    expect(tabs.result.tabs.map((t: any) => t.label)).toEqual(['1', 'logs']);

    const renamed = await server.json(['pane', 'rename', root, 'builder']);
    expect(renamed.result.pane.name).toBe('builder');
    const byName = await server.json(['pane', 'get', 'builder']);
    expect(byName.result.pane.pane_id).toBe(root);

    const focused = await server.json(['pane', 'focus', root]);
    expect(focused.result.pane.focused).toBe(true);
    const list = await server.json(['pane', 'list', '--workspace', ws]);
    expect(list.result.panes.filter((p: any) => p.focused)).toHaveLength(1);

    const split = await server.json(['pane', 'split', root, '--direction', 'down']);
    const zoomed = await server.json(['pane', 'zoom', split.result.pane.pane_id]);
    expect(zoomed.result.pane.zoomed).toBe(true);
    const rootAfterZoom = await server.json(['pane', 'get', root]);
    // Zoom gives the pane the whole area; the root keeps its own size.
    expect(zoomed.result.pane.rows).toBeGreaterThan(rootAfterZoom.result.pane.rows);

    const closed = await server.json(['pane', 'close', split.result.pane.pane_id]);
    expect(closed.result.closed).toBe(true);
    const gone = await server.cli(['pane', 'get', split.result.pane.pane_id]);
    expect(gone.code).toBe(3);

    const wsClosed = await server.json(['workspace', 'close', ws]);
    expect(wsClosed.result.closed).toBe(true);
    const wsGone = await server.cli(['workspace', 'get', ws]);
    expect(wsGone.code).toBe(3);
    expect(JSON.parse(wsGone.stderr).error.code).toBe('workspace_not_found');
  });

  it('moves a pane across workspaces and keeps the old id as an alias', async () => {
    const a = await server.json(['workspace', 'create', '--cwd', server.home]);
    const b = await server.json(['workspace', 'create', '--cwd', server.home]);
    const split = await server.json(['pane', 'split', a.result.root_pane.pane_id, '--direction', 'right']);
    const oldId = split.result.pane.pane_id;
    const moved = await server.json(['pane', 'move', oldId, '--workspace', b.result.workspace.workspace_id]);
    const mr = moved.result.move_result;
    expect(mr.changed).toBe(true);
    expect(mr.previous_pane_id).toBe(oldId);
    expect(mr.pane.workspace_id).toBe(b.result.workspace.workspace_id);
    expect(mr.pane.pane_id).not.toBe(oldId);
    expect(mr.pane.surface_id).toBe(split.result.pane.surface_id);
    const viaAlias = await server.json(['pane', 'get', oldId]);
    expect(viaAlias.result.pane.pane_id).toBe(mr.pane.pane_id);
    // The process inside still carries its old CORRAL_PANE_ID, and --current still resolves.
    await server.cli(['pane', 'run', mr.pane.pane_id, 'corral pane current > /dev/null && echo CURRENT-OK-$CORRAL_PANE_ID']);
    const ok = await server.cli(['pane', 'wait-output', mr.pane.pane_id, '--regex', `^CURRENT-OK-${oldId}$`, '--timeout', '15000']);
    expect(ok.code).toBe(0);
  });

  it('runs the corral launcher inside a pane against the same server', async () => {
    const created = await server.json(['workspace', 'create', '--cwd', server.home]);
    const pane = created.result.root_pane.pane_id;
    await server.cli(['pane', 'run', pane, 'corral pane split --current --direction down --no-focus | grep -c pane_id && echo SPLIT-DONE']);
    const done = await server.cli(['pane', 'wait-output', pane, '--regex', '^SPLIT-DONE$', '--timeout', '15000']);
    expect(done.code).toBe(0);
    const panes = await server.json(['pane', 'list', '--workspace', created.result.workspace.workspace_id]);
    expect(panes.result.panes).toHaveLength(2);
  });

  it('wait-output times out with exit 4 and a timeout error', async () => {
    const created = await server.json(['workspace', 'create', '--cwd', server.home]);
    const result = await server.cli(['pane', 'wait-output', created.result.root_pane.pane_id, '--match', 'never-printed-xyz', '--timeout', '300']);
    expect(result.code).toBe(4);
    expect(JSON.parse(result.stderr).error.code).toBe('timeout');
  });

  it('exits 3 for unknown and ambiguous targets, 2 for usage errors', async () => {
    const unknown = await server.cli(['pane', 'get', 'w99:p99']);
    expect(unknown.code).toBe(3);
    expect(JSON.parse(unknown.stderr).error.code).toMatch(/not_found/);
    const created = await server.json(['workspace', 'create', '--cwd', server.home]);
    await server.json(['pane', 'rename', created.result.root_pane.pane_id, 'twin']);
    const second = await server.json(['workspace', 'create', '--cwd', server.home]);
    await server.json(['pane', 'rename', second.result.root_pane.pane_id, 'twin']);
    const ambiguous = await server.cli(['status', 'twin']);
    expect(ambiguous.code).toBe(3);
    expect(JSON.parse(ambiguous.stderr).error.code).toBe('target_ambiguous');
    const usage = await server.cli(['pane', 'split', '--direction', 'sideways', 'w1:p1']);
    expect(usage.code).toBe(2);
    const noVerb = await server.cli(['frobnicate']);
    expect(noVerb.code).toBe(2);
  });
});

describe('scripting gate closed', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await new TestServer().start();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('refuses pane run with scripting_disabled and says how to open the gate', async () => {
    const created = await server.json(['workspace', 'create', '--cwd', server.home]);
    const pane = created.result.root_pane.pane_id;
    const run = await server.cli(['pane', 'run', pane, 'echo hi']);
    expect(run.code).toBe(1);
    const error = JSON.parse(run.stderr).error;
    expect(error.code).toBe('scripting_disabled');
    expect(error.message).toMatch(/--scripting/);
    expect(error.message).toMatch(/ai_unrestricted/);
    for (const args of [
      ['pane', 'send-keys', pane, 'enter'],
      ['send', pane, 'echo hi', '--submit'],
      ['key', pane, 'enter'],
    ]) {
      const refused = await server.cli(args);
      expect(refused.code, args.join(' ')).toBe(1);
      expect(JSON.parse(refused.stderr).error.code).toBe('scripting_disabled');
    }
    // Typing without submitting is allowed, and reads are always allowed.
    const typed = await server.cli(['send', pane, 'echo typed-only']);
    expect(typed.code).toBe(0);
    const read = await server.cli(['read', pane, '--raw']);
    expect(read.code).toBe(0);
  });

  it('opens with ai_unrestricted in config', async () => {
    const open = await new TestServer({ config: 'ai_unrestricted = true\n' }).start();
    try {
      const created = await open.json(['workspace', 'create', '--cwd', open.home]);
      const run = await open.cli(['pane', 'run', created.result.root_pane.pane_id, 'echo gate-open']);
      expect(run.code).toBe(0);
    } finally {
      await open.stop();
    }
  });
});
