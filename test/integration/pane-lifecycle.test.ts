/**
 * How a pane starts and ends, as a client sees it: `pane.exited` says whether the shell exited
 * or was killed by a signal, and a shell that cannot start refuses the pane up front.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestServer } from './harness.js';

describe('pane.exited', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await new TestServer({ scripting: true }).start();
  });
  afterAll(async () => {
    await server.stop();
  });

  /** Creates a pane, runs `command` in it and returns its `pane.exited` event. */
  async function exitOf(command: string): Promise<any> {
    const watcher = await server.connect();
    await watcher.call('events.subscribe', { types: ['pane.exited'] });
    const actor = await server.connect();
    const pane = (await actor.call('workspace.create', { cwd: server.home })).root_pane.pane_id;
    await actor.call('pane.run', { pane_id: pane, command });
    const event = await watcher.next((m) => m.method === 'events.event' && m.params.pane_id === pane, 15_000);
    watcher.close();
    actor.close();
    return event.params;
  }

  it('names the signal that killed the shell, with no exit code', async () => {
    const event = await exitOf('kill -KILL $$');
    expect(event).toMatchObject({ type: 'pane.exited', exit_code: null, exit_signal: 'SIGKILL' });
  });

  it('gives the exit code of a shell that exited by itself, with no signal', async () => {
    const event = await exitOf('exit 3');
    expect(event).toMatchObject({ type: 'pane.exited', exit_code: 3, exit_signal: null });
  });
});

describe('a shell that cannot start', () => {
  for (const [what, shell] of [
    ['a path that does not exist', '/nonexistent/bin/zsh'],
    ['a name not on PATH', 'corral-no-such-shell'],
    ['a directory', '/tmp'],
  ] as const) {
    it(`fails workspace.create with invalid_params naming it (${what}), and creates nothing`, async () => {
      const server = await new TestServer({ config: `shell = ${JSON.stringify(shell)}\n` }).start();
      try {
        const cli = await server.cli(['workspace', 'create', '--cwd', server.home]);
        expect(cli.code).not.toBe(0);
        const error = JSON.parse(cli.stderr).error;
        expect(error.code).toBe('invalid_params');
        expect(error.message).toContain(JSON.stringify(shell));
        const client = await server.connect();
        const rpc = await client.request('workspace.create', { cwd: server.home });
        expect(rpc.error.data).toMatchObject({ code: 'invalid_params', shell });
        expect((await client.call('workspace.list')).workspaces).toEqual([]);
        expect(server.alive).toBe(true);
        client.close();
      } finally {
        await server.stop();
      }
    });
  }

  it('accepts a shell given by name, found on PATH', async () => {
    const server = await new TestServer({ config: 'shell = "bash"\n' }).start();
    try {
      const created = await server.json(['workspace', 'create', '--cwd', server.home]);
      expect(created.result.root_pane.exited).toBe(false);
    } finally {
      await server.stop();
    }
  });

  it('refuses a real shell whose path has "=" in it (env -i would read it as a variable)', async () => {
    const server = new TestServer();
    const shell = join(server.dir, 'sh=x');
    symlinkSync('/bin/bash', shell);
    writeFileSync(join(server.home, '.config', 'corral', 'config.toml'), `shell = ${JSON.stringify(shell)}\n`);
    await server.start();
    try {
      const cli = await server.cli(['workspace', 'create', '--cwd', server.home]);
      const error = JSON.parse(cli.stderr).error;
      expect(error.code).toBe('invalid_params');
      expect(error.message).toMatch(/has "=" in its path/);
    } finally {
      await server.stop();
    }
  });

  it('refuses a file that is not executable', async () => {
    const server = new TestServer();
    const file = join(server.dir, 'not-a-shell');
    mkdirSync(server.dir, { recursive: true });
    writeFileSync(file, '#!/bin/sh\n', { mode: 0o644 });
    writeFileSync(join(server.home, '.config', 'corral', 'config.toml'), `shell = ${JSON.stringify(file)}\n`);
    await server.start();
    try {
      const cli = await server.cli(['workspace', 'create', '--cwd', server.home]);
      expect(JSON.parse(cli.stderr).error).toMatchObject({ code: 'invalid_params' });
    } finally {
      await server.stop();
    }
  });
});
