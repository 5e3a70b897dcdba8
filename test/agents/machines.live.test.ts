/**
 * A real agent on another machine (SPEC §14): Claude Code from the lab, run by a throwaway
 * user behind a real sshd on 127.0.0.1 (test/integration/ssh-harness.ts), in that user's own
 * corral, talking to the lab's scripted model. This machine's corral reaches it only through
 * its link: the agent shows in the local `ps` and `watch` with its machine, `agent prompt
 * build/reviewer --wait` returns when it is done, and a permission prompt there is
 * `waiting_for_input` here and answered from here (the far side's own gate is open).
 */
import { chownSync, existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestServer, type RawClient } from '../integration/harness.js';
import { sshUnavailable, TestSshd } from '../integration/ssh-harness.js';
import { AGENTS_DIR, agentEnvironment, startFakeModel } from './lab.js';

/** Everything under `dir` is the user's (the lab seeded it as root). */
function chownTree(dir: string, uid: number): void {
  chownSync(dir, uid, uid);
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) chownTree(path, uid);
    else chownSync(path, uid, uid);
  }
}

// Only Claude Code runs here: the test needs it alone installed.
const claudeInstalled = existsSync(join(AGENTS_DIR, 'node_modules', '.bin', 'claude'));

describe.skipIf(sshUnavailable() ?? (claudeInstalled ? null : 'Claude Code is not installed (npm run test:agents installs the lab agents)'))('claude on another machine', () => {
  let sshd: TestSshd;
  let server: TestServer;
  let model: { port: number; stop: () => void };
  let events: RawClient;
  const cli = (...args: string[]) => server.cli(args);
  const json = async (...args: string[]) => {
    const result = await cli(...args);
    if (result.code !== 0) throw new Error(`corral ${args.join(' ')} → ${result.code}: ${result.stderr}`);
    return JSON.parse(result.stdout);
  };

  beforeAll(async () => {
    sshd = await TestSshd.start();
    model = await startFakeModel(sshd.dir, { TOOL_CMD: 'touch marker.txt' });
    const project = join(sshd.home, 'project');
    sshd.exec('mkdir -p ~/project');
    // The agent's own config in the remote user's home, its environment in that user's shell.
    const env = agentEnvironment('claude', sshd.home, project, model.port);
    chownTree(sshd.home, sshd.uid);
    const exports = Object.entries({ ...env, PATH: `${join(AGENTS_DIR, 'node_modules', '.bin')}:$PATH` })
      .map(([key, value]) => `export ${key}="${value}"`)
      .join('\n');
    sshd.exec(`cat >> ~/.bashrc <<'EOF'\n${exports}\nEOF`);
    // That user lets scripts submit to their own panes: prompts come from here.
    sshd.writeRemoteFile('.config/corral/config.toml', 'ai_unrestricted = true\n');
    server = new TestServer();
    (server.env as Record<string, string>).CORRAL_SSH = sshd.sshWords.join(' ');
    await server.start();
    await json('machine', 'add', 'build', sshd.target, '--corral', sshd.remoteCorral);
    for (let i = 0; i < 200; i++) {
      const machine = (await json('machine', 'list', '--json')).machines[0];
      if (machine.state === 'connected') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    events = await server.connect();
    await events.call('events.subscribe', { types: ['agent.status_changed'] });
  }, 120_000);
  afterAll(async () => {
    events?.close();
    await server?.stop();
    model?.stop();
    await sshd?.stop();
  });

  it('starts there from here, and shows in the local ps with its machine', async () => {
    const pane = (await json('--machine', 'build', 'workspace', 'create', '--cwd', join(sshd.home, 'project'))).result.root_pane.pane_id;
    const started = await json('agent', 'start', 'reviewer', '--kind', 'claude', '--pane', `build/${pane}`, '--timeout', '120000');
    expect(started.result.agent).toMatchObject({ kind: 'claude', name: 'reviewer', interactive_ready: true });
    const ps = JSON.parse((await cli('ps', '--json')).stdout);
    expect(ps.agents).toEqual([expect.objectContaining({ machine: 'build', tool: 'claude', name: 'reviewer', pane_id: pane })]);
  }, 180_000);

  it('agent prompt build/reviewer --wait returns when it is done; watch saw it work, with its machine', async () => {
    const prompted = await json('agent', 'prompt', 'build/reviewer', 'Say hello please', '--wait', '--timeout', '120000');
    expect(['done', 'idle']).toContain(prompted.result.agent.agent_status);
    const working = await events.next((m) => m.params?.type === 'agent.status_changed' && m.params.agent_status === 'working', 5000);
    expect(working.params.machine).toBe('build');
    expect((await cli('agent', 'read', 'build/reviewer', '--lines', '40')).stdout).toContain('Final line: Done');
  }, 180_000);

  it('a permission prompt there is waiting_for_input here, and is answered from here', async () => {
    await json('agent', 'prompt', 'build/reviewer', 'Please RUNTOOL now');
    const blocked = await json('agent', 'wait', 'build/reviewer', '--until', 'blocked', '--timeout', '90000');
    expect(blocked.result.agent.agent_status).toBe('blocked');
    const row = JSON.parse((await cli('ps', '--json')).stdout).agents.find((a: any) => a.machine === 'build');
    expect(row).toMatchObject({ state: 'waiting_for_input', name: 'reviewer' });
    await json('agent', 'send-keys', 'build/reviewer', 'enter');
    const done = await json('agent', 'wait', 'build/reviewer', '--until', 'done', '--until', 'idle', '--timeout', '90000');
    expect(['done', 'idle']).toContain(done.result.agent.agent_status);
    expect(sshd.exec('ls ~/project')).toContain('marker.txt');
  }, 180_000);
});
