/**
 * `[notify] command` on a headless server (SPEC §12): with no TUI attached no pane is in
 * view, so a stand-in Claude finishing a turn runs the command once with the event as JSON
 * on stdin — the phone-relay case — and a permission prompt once more.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Socket } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { TestServer, connectUnix } from './harness.js';

const FAKE_DIR = resolve(import.meta.dirname, '../../bench/fixtures/fake-claude');

describe('[notify] command on a headless server', () => {
  const logDir = mkdtempSync(join(tmpdir(), 'corral-notify-cmd-'));
  const log = join(logDir, 'events.jsonl');
  let server: TestServer;
  let agent: Socket;
  const lines = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) : []);

  beforeAll(async () => {
    server = new TestServer({ scripting: true, config: `[notify]\non = ["done", "blocked"]\ncommand = "cat >> '${log}'"\n` });
    server.env.PATH = `${FAKE_DIR}:${server.env.PATH}`;
    await server.start();
    const pane = (await server.json(['workspace', 'create', '--cwd', server.home])).result.root_pane.pane_id;
    const control = join(server.dir, 'claude.ctl');
    await server.json(['agent', 'start', 'relay', '--kind', 'claude', '--pane', pane, '--timeout', '25000', '--', '--control', control, '--spinner-ms', '0', '--work-ms', '600000']);
    agent = await connectUnix(control);
  });
  afterAll(async () => {
    agent?.destroy();
    await server?.stop();
    rmSync(logDir, { recursive: true, force: true });
  });

  it('runs the command once per notification with the event as JSON', async () => {
    agent.write('working\n');
    await server.json(['agent', 'wait', 'relay', '--until', 'working', '--timeout', '10000']);
    agent.write('idle\n');
    await server.json(['agent', 'wait', 'relay', '--until', 'done', '--timeout', '10000']);
    for (let i = 0; i < 100 && lines().length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    const [event] = lines().map((l) => JSON.parse(l));
    expect(event).toMatchObject({ type: 'notification', agent_status: 'done', previous_status: 'working', name: 'relay', tool: 'claude', pane_id: 'w1:p1' });
    expect(event.body).toBe('relay (claude) in w1:p1 is done');

    // A permission prompt: the second line.
    agent.write('blocked\n');
    for (let i = 0; i < 100 && lines().length < 2; i++) await new Promise((r) => setTimeout(r, 50));
    expect(lines().map((l) => JSON.parse(l).agent_status)).toEqual(['done', 'blocked']);
  });
});
