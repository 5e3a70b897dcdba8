/**
 * Peer text never reaches a human's terminal raw (SPEC §8): a directory name, a command line,
 * a window title and an agent's message carrying ESC/OSC/C1 — an OSC 52 clipboard write, a
 * screen clear, a retitle — are printed by the CLI with their control characters made
 * visible; JSON output keeps them as escaped JSON. All through the real server, with the
 * gate closed: every one of these texts arrives by ungated means.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hookFromPaneScript, TestServer, type RawClient } from './harness.js';

/** Any C0 control but the newline ending a line, DEL or C1: what a terminal would act on. */
const RAW_CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/;
/** An OSC 52 clipboard write of "pwned" followed by a clear screen. */
const HOSTILE = '\x1b]52;c;cHduZWQ=\x07\x1b[2J';
const HOSTILE_SHOWN = '^[]52;c;cHduZWQ=^G^[[2J';
/** Polls for a state no event announces (a foreground process), a bounded number of times. */
const POLL = { everyMs: 50, tries: 200 } as const;

async function until<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < POLL.tries; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, POLL.everyMs));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('peer text shown to humans (gate closed)', () => {
  let server: TestServer;
  let client: RawClient;
  let evilDir: string;
  let agentPane: string;
  let evilPane: string;

  beforeAll(async () => {
    server = await new TestServer().start();
    client = await server.connect();
    evilDir = join(server.home, `d${HOSTILE}`);
    mkdirSync(evilDir);
    // A stand-in claude (detected by its executable name) that sits waiting for input.
    const bin = join(server.home, 'bin');
    mkdirSync(bin);
    // It asks for something, its message carrying the hostile bytes, as its hook would from its pane.
    const hook = hookFromPaneScript('ai.notification', { message: `approve? ${HOSTILE}` });
    writeFileSync(join(bin, 'claude'), `#!/usr/bin/env node\n${hook}\nprocess.stdin.resume();\n`);
    chmodSync(join(bin, 'claude'), 0o755);
    const events = await server.connect();
    await events.call('events.subscribe', { types: ['agent.detected'] });
    // `up` runs commands in the panes it creates without the gate (SPEC §8): printable
    // command text that produces hostile bytes only when it runs.
    const up = await client.call('workspace.up', {
      name: 'peer',
      panes: [
        { cwd: evilDir, name: 'evil', command: `printf '\\033]2;T\\033[2J\\007'; sh -c 'read x' "$(printf '\\033]52;c;cHduZWQ=\\007\\033[2J')"` },
        { cwd: server.home, name: 'agent', command: join(bin, 'claude') },
      ],
    });
    [evilPane, agentPane] = up.panes.map((pane: any) => pane.pane_id);
    await events.next((m) => m.params?.type === 'agent.detected' && m.params.pane_id === agentPane, 15_000);
    events.close();
    await until(async () => ((await client.call('surface.status', { target: agentPane })).message ? true : undefined), "the agent's message");
    await until(async () => {
      const { surfaces } = await client.call('surface.list', {});
      return surfaces.find((s: any) => s.pane_id === evilPane && s.cmd.startsWith('sh -c'));
    }, 'sh to be the foreground job');
  });
  afterAll(async () => {
    client?.close();
    await server?.stop();
  });

  it('corral ls shows a hostile directory name and command line with visible control characters', async () => {
    const ls = await server.cli(['ls']);
    expect(ls.code, ls.stderr).toBe(0);
    expect(ls.stdout).not.toMatch(RAW_CONTROL);
    const row = ls.stdout.split('\n').find((line) => line.includes(evilPane))!;
    expect(row).toContain(`d${HOSTILE_SHOWN}`);
    expect(row).toContain(`sh -c read x ${HOSTILE_SHOWN}`);
  });

  it('corral ls --json keeps the exact text as escaped JSON', async () => {
    const ls = await server.cli(['ls', '--json']);
    expect(ls.stdout).not.toMatch(RAW_CONTROL);
    const row = JSON.parse(ls.stdout).surfaces.find((s: any) => s.pane_id === evilPane);
    expect(row.cwd).toBe(evilDir);
    expect(row.cmd).toContain(HOSTILE);
  });

  it('a window title set through OSC 2 with ESC in it ends at the ESC and carries no control character', async () => {
    const ls = await server.cli(['ls', '--json']);
    expect(ls.stdout).not.toMatch(RAW_CONTROL);
    const row = JSON.parse(ls.stdout).surfaces.find((s: any) => s.pane_id === evilPane);
    // The pane's terminal ends an OSC at ESC and drops controls from titles; ours shows what it kept.
    expect(row.title).toBe('T');
  });

  it('corral status and ps show an agent message with visible control characters', async () => {
    const status = await server.cli(['status', agentPane]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).not.toMatch(RAW_CONTROL);
    expect(status.stdout).toContain(`approve? ${HOSTILE_SHOWN}`);
    const ps = await server.cli(['ps']);
    expect(ps.code).toBe(0);
    expect(ps.stdout).not.toMatch(RAW_CONTROL);
    expect(ps.stdout).toContain(agentPane);
    const json = await server.cli(['status', agentPane, '--json']);
    expect(json.stdout).not.toMatch(RAW_CONTROL);
    expect(JSON.parse(json.stdout).message).toBe(`approve? ${HOSTILE}`);
  });

  it('an error message quoting a pane shows its control characters made visible', async () => {
    // agent start refuses a busy pane, naming what runs there: the hostile command line.
    const started = await server.cli(['agent', 'start', '--pane', evilPane, '--kind', 'claude']);
    expect(started.code).toBe(1);
    expect(started.stderr).not.toMatch(RAW_CONTROL);
    expect(JSON.parse(started.stderr).error.message).toContain(HOSTILE);
  });
});
