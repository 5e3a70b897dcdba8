/**
 * `corral up` and `corral flow run` (SPEC §10) through the real CLI against a real server:
 * panes, layouts, commands, dry runs, ready barriers, captures, cycles, timeouts, the gate.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, TestServer } from './harness.js';

const EXAMPLE = join(ROOT, 'assets/examples/workspace.toml');

describe('up and flow run (scripting on)', () => {
  let server: TestServer;
  let dir: string;
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const workspaces = async () => (await server.json(['workspace', 'list'])).result.workspaces as any[];
  const panesOf = async (ws: string) => (await server.json(['pane', 'list', '--workspace', ws])).result.panes as any[];

  beforeAll(async () => {
    server = await new TestServer({ scripting: true }).start();
    dir = join(server.home, 'flows');
    mkdirSync(join(dir, 'sub'), { recursive: true });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('up creates the example workspace: named panes running their commands, env set', async () => {
    const up = await server.cli(['up', EXAMPLE, '--json']);
    expect(up.code, up.stderr).toBe(0);
    const { workspace, panes } = JSON.parse(up.stdout).result;
    expect(workspace.label).toBe('dev');
    expect(panes.map((p: any) => p.name)).toEqual(['main', 'status', 'logs']);
    expect(panes[0].focused).toBe(true);
    expect(panes[0].cwd).toBe(ROOT);
    const waited = await server.cli(['pane', 'wait-output', 'status', '--regex', `^workspace ready in ${ROOT}$`, '--timeout', '10000']);
    expect(waited.code, waited.stderr).toBe(0);
    expect((await server.cli(['pane', 'wait-output', 'logs', '--regex', '^log level is debug$', '--timeout', '10000'])).code).toBe(0);
    expect((await server.cli(['pane', 'wait-output', 'main', '--regex', 'package\\.json', '--timeout', '10000'])).code).toBe(0);
    // main_vertical: the first pane takes the left half, the others share the right.
    const geometry = (await panesOf(workspace.workspace_id)).map((p) => [p.cols, p.rows]);
    expect(geometry[0]![0]).toBe(geometry[1]![0]);
    expect(geometry[0]![1]).toBeGreaterThan(geometry[1]![1] * 1.8);
    expect(geometry[1]).toEqual(geometry[2]);
  });

  it('layout even_h gives equal widths; even_v equal heights; the human summary lists the panes', async () => {
    const h = file('even-h.toml', 'name = "wide"\nlayout = "even_h"\n' + '[[panes]]\ncommand = "echo x"\n'.repeat(4));
    const made = await server.cli(['up', h]);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toMatch(/^workspace w\d+ "wide": 4 panes\n/);
    const ws = (await workspaces()).find((w) => w.label === 'wide').workspace_id;
    const panes = await panesOf(ws);
    const widths = panes.map((p) => p.cols);
    expect(Math.max(...widths) - Math.min(...widths)).toBeLessThanOrEqual(1);
    expect(new Set(panes.map((p) => p.rows)).size).toBe(1);

    const v = file('even-v.toml', 'name = "tall"\nlayout = "even_v"\n' + '[[panes]]\n'.repeat(3));
    const tall = JSON.parse((await server.cli(['up', v, '--json'])).stdout).result;
    const heights = (await panesOf(tall.workspace.workspace_id)).map((p) => p.rows);
    expect(Math.max(...heights) - Math.min(...heights)).toBeLessThanOrEqual(1);
  });

  it('--dry-run prints the plan and creates nothing (no server needed)', async () => {
    const before = (await workspaces()).length;
    const dry = await server.cli(['up', EXAMPLE, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('layout main_vertical, 3 panes');
    const json = JSON.parse((await server.cli(['up', EXAMPLE, '--dry-run', '--json'])).stdout);
    expect(json.result.dry_run).toBe(true);
    expect(json.result.plan.panes).toHaveLength(3);
    expect((await workspaces()).length).toBe(before);
    const noServer = await server.cli(['up', EXAMPLE, '--dry-run', '--socket', join(dir, 'none.sock')]);
    expect(noServer.code).toBe(0);
  });

  it('a bad up file is exit 1 with file:line:key, before anything is created', async () => {
    const before = (await workspaces()).length;
    const bad = file('bad.toml', '[[panes]]\ncommand = "ls"\n\n[[panes]]\ncomand = "ls"\n');
    const result = await server.cli(['up', bad]);
    expect(result.code).toBe(1);
    const error = JSON.parse(result.stderr).error;
    expect(error.code).toBe('invalid_params');
    expect(error.message).toBe(`${bad}:5: unknown key "comand" in [[panes]] #2 (did you mean "command"?)`);
    expect((await workspaces()).length).toBe(before);
    expect((await server.cli(['up', join(dir, 'missing.toml')])).code).toBe(1);
    expect((await server.cli(['up'])).code).toBe(2);
  });

  it('a flow: a pattern barrier, a capture, and the captured text sent to another pane', async () => {
    const flow = file(
      'pipe.toml',
      [
        'name = "pipe"',
        'layout = "even_h"',
        '[defaults]',
        'timeout_secs = 20',
        '[[step]]',
        'id = "producer"',
        // The sleep keeps the shell from printing its prompt after the result line.
        'pane = { name = "producer", cwd = "sub", command = "echo RESULT=$((6*7)); sleep 60" }',
        'ready = { pattern = "^RESULT=\\\\d+$" }',
        'capture = { var = "answer", lines = 1 }',
        '[[step]]',
        'id = "consumer"',
        'pane = { name = "consumer" }',
        '[[step]]',
        'id = "deliver"',
        'needs = ["producer", "consumer"]',
        'send = { target = "consumer", text = "echo got ${answer} here", submit = true }',
        'ready = { pattern = "^got RESULT=42 here$" }',
      ].join('\n'),
    );
    const run = await server.cli(['flow', 'run', flow, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.flow).toBe('pipe');
    expect(report.status).toBe('ready');
    expect(report.steps.map((s: any) => [s.id, s.status, s.error])).toEqual([
      ['producer', 'ready', null],
      ['consumer', 'ready', null],
      ['deliver', 'ready', null],
    ]);
    const consumer = report.steps[1].pane_id;
    expect(report.steps[2].pane_id).toBe(consumer);
    const read = await server.cli(['pane', 'read', consumer, '--lines', '10']);
    expect(read.stdout).toMatch(/^got RESULT=42 here$/m);
    // One workspace named after the flow, laid out even_h, panes in the sub directory where asked.
    const ws = (await workspaces()).find((w) => w.label === 'pipe');
    const panes = await panesOf(ws.workspace_id);
    expect(panes.map((p) => p.name)).toEqual(['producer', 'consumer']);
    expect(panes[0].cols).toBe(panes[1].cols);
    expect(panes[0].cwd).toBe(join(dir, 'sub'));
    // Progress went to stderr as plain lines (not a terminal).
    expect(run.stderr).toContain('flow pipe: step deliver ready');
  });

  it('a cycle is refused before any pane exists (exit 1, the cycle named)', async () => {
    const before = (await workspaces()).length;
    const flow = file('cycle.toml', '[[step]]\nid = "a"\nneeds = ["b"]\npane = {}\n\n[[step]]\nid = "b"\nneeds = ["a"]\npane = {}\n');
    const result = await server.cli(['flow', 'run', flow]);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr).error.message).toBe(`${flow}:3: steps form a cycle: "a" → "b" → "a" (each needs the next)`);
    expect((await workspaces()).length).toBe(before);
  });

  it('a ready timeout fails the flow with exit 4; dependants are skipped', async () => {
    const flow = file(
      'slow.toml',
      '[[step]]\nid = "wait"\npane = { command = "echo nothing to see" }\nready = { pattern = "NEVER-PRINTED", timeout_secs = 1 }\n[[step]]\nid = "next"\nneeds = ["wait"]\npane = {}\n',
    );
    const result = await server.cli(['flow', 'run', flow, '--json']);
    expect(result.code).toBe(4);
    const report = JSON.parse(result.stdout);
    expect(report.status).toBe('failed');
    expect(report.steps[0]).toMatchObject({ id: 'wait', status: 'failed', error: { code: 'timeout' } });
    expect(report.steps[0].duration_ms).toBeGreaterThanOrEqual(1000);
    expect(report.steps[1]).toMatchObject({ id: 'next', status: 'skipped', pane_id: null });
    const human = await server.cli(['flow', 'run', flow]);
    expect(human.code).toBe(4);
    expect(human.stdout).toMatch(/^flow "slow": failed\n {2}wait +failed/);
  });

  it('flow run --dry-run prints the steps and starts nothing', async () => {
    const before = (await workspaces()).length;
    const dry = await server.cli(['flow', 'run', join(ROOT, 'assets/examples/review-pipeline.toml'), '--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout).steps.map((s: any) => s.id)).toEqual(['implementer', 'implement', 'reviewer', 'review']);
    expect((await workspaces()).length).toBe(before);
  });
});

describe('up and flow run with the scripting gate closed', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await new TestServer({ scripting: false }).start();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('up still runs commands (not gated), but a flow step that submits is refused', async () => {
    const dir = join(server.home, 'f');
    mkdirSync(dir);
    const upFile = join(dir, 'up.toml');
    writeFileSync(upFile, '[[panes]]\nname = "one"\ncommand = "echo ungated-$((1+1))"\n');
    expect((await server.cli(['up', upFile])).code).toBe(0);
    expect((await server.cli(['pane', 'wait-output', 'one', '--regex', '^ungated-2$', '--timeout', '10000'])).code).toBe(0);

    const flowFile = join(dir, 'flow.toml');
    writeFileSync(flowFile, '[[step]]\nid = "p"\npane = { name = "two" }\n[[step]]\nid = "s"\nneeds = ["p"]\nsend = { target = "p", text = "echo hi", submit = true }\n');
    const result = await server.cli(['flow', 'run', flowFile, '--json']);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report.steps[1]).toMatchObject({ id: 's', status: 'failed', error: { code: 'scripting_disabled' } });
  });
});
