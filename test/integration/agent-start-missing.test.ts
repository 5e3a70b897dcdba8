/**
 * `agent start` for an agent whose executable is not installed: the shell says so at once,
 * and the start fails with the shell's line instead of waiting out its 30 s timeout.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestServer } from './harness.js';

describe('agent start with the command missing', () => {
  let server: TestServer;
  let pane: string;
  beforeAll(async () => {
    server = await new TestServer({ scripting: true }).start();
    pane = (await server.json(['workspace', 'create', '--cwd', server.home])).result.root_pane.pane_id;
    // The prompt is up (the shell has printed), so the command is typed at a live prompt.
    await server.cli(['pane', 'run', pane, 'echo READY-$((1+1))']);
    await server.cli(['pane', 'wait-output', pane, '--match', 'READY-2', '--timeout', '10000']);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('fails within seconds with the shell\u2019s "command not found" line', async () => {
    // No `kimi` on this machine's PATH (the test environment has no agents installed).
    const started = Date.now();
    const result = await server.cli(['agent', 'start', '--kind', 'kimi', '--pane', pane]);
    const elapsed = Date.now() - started;
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/kimi: command not found/);
    expect(result.stderr).toContain('did not start');
    // The start timeout is 30 s; the shell answers in milliseconds (2 s budget, slack for a loaded machine).
    expect(elapsed).toBeLessThan(4000);
    // The pane is left at its prompt, usable.
    const status = JSON.parse((await server.cli(['status', pane, '--json'])).stdout);
    expect(status.tool).toBeNull();
  });

  it('fails a flow step that starts a missing agent just as fast, with the shell’s line', async () => {
    const flow = join(server.dir, 'missing.toml');
    writeFileSync(flow, '[[step]]\nid = "helper"\npane = { agent = "kimi" }\n[[step]]\nid = "after"\nneeds = ["helper"]\npane = {}\n');
    const started = Date.now();
    const result = await server.cli(['flow', 'run', flow, '--json']);
    const elapsed = Date.now() - started;
    expect(result.code).not.toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.steps[0]).toMatchObject({ id: 'helper', status: 'failed', error: { code: 'agent_not_running' } });
    expect(report.steps[0].error.message).toMatch(/kimi: command not found/);
    expect(report.steps[1]).toMatchObject({ id: 'after', status: 'skipped' });
    expect(elapsed).toBeLessThan(6000);
  });
});
