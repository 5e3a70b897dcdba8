/**
 * Sessions that survive (SPEC §13), end to end: a real `corral server`, real bash panes, the
 * real state directory of the sandbox. The server is stopped (SIGTERM, as `kill-server`
 * does) or killed (-9), a new one starts on the same state, and what a user sees must be
 * the same: ids, names, surface ids, cwds, layout, focus, zoom and the scrollback.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { hookFromPaneScript, TestServer, type RawClient } from './harness.js';

const PROMPT = 'persist$';

/** A sandboxed server whose bash panes show PROMPT (its own ~/.bashrc runs after the system's). */
function sandbox(options?: ConstructorParameters<typeof TestServer>[0]): TestServer {
  const made = new TestServer(options);
  writeFileSync(join(made.home, '.bashrc'), `PS1='${PROMPT} '\n`);
  return made;
}

let server: TestServer | null = null;
const clients: RawClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await server?.stop();
  server = null;
});

async function connect(): Promise<RawClient> {
  const client = await server!.connect();
  clients.push(client);
  return client;
}

async function waitFor(client: RawClient, paneId: string, value: string, source = 'recent'): Promise<void> {
  await client.call('pane.wait_for_output', { pane_id: paneId, source, match: { type: 'substring', value }, timeout_ms: 10_000 });
}

/** What a user compares after a restart: everything `pane list` says but the process facts. */
function structure(panes: any[]): unknown[] {
  return panes.map((p) => ({
    pane_id: p.pane_id,
    surface_id: p.surface_id,
    workspace_id: p.workspace_id,
    tab_id: p.tab_id,
    name: p.name,
    cwd: p.cwd,
    focused: p.focused,
    zoomed: p.zoomed,
  }));
}

/** Each pane's size: the layout's ratios at work (compared with no pane zoomed). */
function sizes(panes: any[]): unknown[] {
  return panes.map((p) => [p.pane_id, p.cols, p.rows]);
}

/** Two workspaces, tabs, uneven splits, names, a `cd`, coloured output, a zoom and a focus. */
async function buildSession(client: RawClient): Promise<{ red: string; deep: string; unzoomed: unknown[] }> {
  const home = server!.home;
  const deep = join(home, 'project', 'src');
  mkdirSync(deep, { recursive: true });
  const w1 = await client.call('workspace.create', { cwd: home, label: 'main' });
  const p1 = w1.root_pane.pane_id;
  await waitFor(client, p1, PROMPT);
  const p2 = (await client.call('pane.split', { pane_id: p1, direction: 'right', ratio: 0.3 })).pane.pane_id;
  await client.call('pane.rename', { pane_id: p2, name: 'builder' });
  const p3 = (await client.call('pane.split', { pane_id: p2, direction: 'down', ratio: 0.7 })).pane.pane_id;
  const t2 = await client.call('tab.create', { workspace_id: 'w1', label: 'logs' });
  await client.call('workspace.create', { cwd: home, label: 'other', focus: false });
  await client.call('pane.close', { pane_id: 'w2:p1' }); // ids above it are never reused
  await client.call('workspace.create', { cwd: home, label: 'third', focus: false });
  const red = `red-${process.pid}`;
  await waitFor(client, p2, PROMPT);
  await client.call('pane.send_text', { pane_id: p2, text: `cd ${deep} && printf '\\033[31m%s\\033[0m\\n' ${red}\r` });
  await waitFor(client, p2, red);
  await waitFor(client, t2.root_pane.pane_id, PROMPT);
  const unzoomed = sizes((await client.call('pane.list', {})).panes);
  await client.call('pane.zoom', { pane_id: p3, zoom: true });
  await client.call('pane.focus', { pane_id: p3 });
  return { red, deep, unzoomed };
}

describe('a saved session comes back after the server stops (SIGTERM, as kill-server)', () => {
  it('restores ids, names, surface ids, cwds, layout, focus, zoom and coloured scrollback', async () => {
    server = await sandbox({ scripting: true }).start();
    let client = await connect();
    const { red, deep, unzoomed } = await buildSession(client);
    // pane.list's cwd is up to 250 ms old (SPEC's /proc cache): until the `cd` shows.
    await expect.poll(async () => (await client.call('pane.list', {})).panes.find((p: any) => p.name === 'builder').cwd).toBe(deep);
    const before = (await client.call('pane.list', {})).panes;
    const workspacesBefore = (await client.call('workspace.list', {})).workspaces.map((w: any) => [w.workspace_id, w.label]);

    await server.halt('SIGTERM');
    expect(existsSync(join(server.stateDir, 'default.json'))).toBe(true);
    await server.start();
    client = await connect();

    const after = (await client.call('pane.list', {})).panes;
    expect(structure(after)).toEqual(structure(before));
    expect(after.filter((p: any) => p.zoomed).map((p: any) => p.pane_id)).toEqual(['w1:p3']);
    expect((await client.call('workspace.list', {})).workspaces.map((w: any) => [w.workspace_id, w.label])).toEqual(workspacesBefore);
    // The builder pane: a fresh shell in the directory it was in, its lines with their colour above the restored line.
    const builder = after.find((p: any) => p.name === 'builder');
    await waitFor(client, builder.pane_id, PROMPT);
    const read = (await client.call('pane.read', { pane_id: builder.pane_id, source: 'recent', lines: 50, format: 'ansi' })).read.text as string;
    expect(read).toMatch(new RegExp(`\\x1b\\[[0-9;]*31m${red}`));
    expect(read.indexOf(red)).toBeLessThan(read.indexOf('── restored '));
    // Counters continue above the saved ids: no id or surface id comes back to a new pane.
    // The ratios came back: unzoomed, every pane has the size it had.
    await client.call('pane.zoom', { pane_id: 'w1:p3', zoom: false });
    expect(sizes((await client.call('pane.list', {})).panes)).toEqual(unzoomed);
    const maxSurface = Math.max(...after.map((p: any) => p.surface_id));
    const made = await client.call('pane.split', { pane_id: builder.pane_id, direction: 'right' });
    expect(made.pane.surface_id).toBeGreaterThan(maxSurface);
    expect(made.pane.pane_id).toBe('w1:p5');
    expect((await client.call('workspace.create', { cwd: server.home })).workspace.workspace_id).toBe('w4');

    const info = await client.call('session.info', {});
    expect(info).toMatchObject({ path: join(server.stateDir, 'default.json'), restored_from: join(server.stateDir, 'default.json'), problems: [] });
  });
});

describe('after kill -9', () => {
  it('the structure comes back as saved within a second of the change', async () => {
    server = await sandbox().start();
    const client = await connect();
    const events = await connect();
    await events.call('events.subscribe', { types: ['session.saved', 'pane.renamed'] });
    const pane = (await client.call('workspace.create', { cwd: server.home })).root_pane.pane_id;
    await waitFor(client, pane, PROMPT);
    const renamedAt = Date.now();
    await client.call('pane.rename', { pane_id: pane, name: 'survivor' });
    // Saves in order until the one holding the new name (earlier ones hold the creation).
    let saved: any;
    do {
      await events.next((m) => m.params?.type === 'session.saved', 5000);
      saved = JSON.parse(readFileSync(join(server.stateDir, 'default.json'), 'utf8'));
    } while (saved.panes[0]?.name !== 'survivor');
    expect(Date.now() - renamedAt).toBeLessThan(1000);

    await server.halt('SIGKILL');
    await server.start();
    const after = await connect();
    const panes = (await after.call('pane.list', {})).panes;
    expect(panes.map((p: any) => [p.pane_id, p.name])).toEqual([[pane, 'survivor']]);
  });
});

describe('a saved session that cannot be restored', () => {
  for (const [what, content, reason] of [
    ['corrupt', '{"version": 1, "workspaces": [', /not JSON/],
    ['from a newer corral', JSON.stringify({ version: 99, workspaces: [] }), /newer corral \(version 99/],
    ['inconsistent', JSON.stringify({ version: 1, counters: { workspaces: 0, surfaces: 0, tabs: {}, panes: {} }, focused_workspace: 'w9', workspaces: [], tabs: [], panes: [] }), /focused_workspace/],
  ] as const) {
    it(`${what}: the server starts empty, moves it aside untouched and says so`, async () => {
      server = sandbox();
      mkdirSync(server.stateDir, { recursive: true, mode: 0o700 });
      writeFileSync(join(server.stateDir, 'default.json'), content, { mode: 0o600 });
      await server.start();
      const client = await connect();
      expect((await client.call('pane.list', {})).panes).toEqual([]);
      const info = await client.call('session.info', {});
      expect(info.problems).toHaveLength(1);
      expect(info.problems[0]).toMatch(reason);
      const aside = readdirSync(server.stateDir).filter((n) => n.startsWith('default.json.corrupt-'));
      expect(aside).toHaveLength(1);
      expect(readFileSync(join(server.stateDir, aside[0]!), 'utf8')).toBe(content);
      expect(info.problems[0]).toContain(aside[0]);
      expect(server.stderr).toContain(aside[0]);
      // The new session is saved anew, next to the one moved aside.
      await client.call('workspace.create', { cwd: server.home });
      expect((await client.call('session.save', {})).path).toBe(join(server.stateDir, 'default.json'));
      expect(readFileSync(join(server.stateDir, aside[0]!), 'utf8')).toBe(content);
    });
  }
});

describe('--fresh and persist = false', () => {
  it('--fresh starts empty and keeps the saved session aside', async () => {
    server = await sandbox().start();
    let client = await connect();
    await client.call('workspace.create', { cwd: server.home, label: 'kept' });
    await server.halt('SIGTERM');
    const saved = readFileSync(join(server.stateDir, 'default.json'), 'utf8');
    await server.start(['--fresh']);
    client = await connect();
    expect((await client.call('pane.list', {})).panes).toEqual([]);
    const aside = readdirSync(server.stateDir).filter((n) => n.startsWith('default.json.before-fresh-'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(server.stateDir, aside[0]!), 'utf8')).toBe(saved);
  });

  it('persist = false neither restores nor saves', async () => {
    server = sandbox({ config: 'persist = false\n' });
    mkdirSync(server.stateDir, { recursive: true, mode: 0o700 });
    const old = JSON.stringify({ version: 1 });
    writeFileSync(join(server.stateDir, 'default.json'), old, { mode: 0o600 });
    await server.start();
    const client = await connect();
    await client.call('workspace.create', { cwd: server.home });
    const response = await client.request('session.save', {});
    expect(response.error.message).toMatch(/persist = false/);
    await server.halt('SIGTERM');
    expect(readdirSync(server.stateDir)).toEqual(['default.json']);
    expect(readFileSync(join(server.stateDir, 'default.json'), 'utf8')).toBe(old);
  });
});

/**
 * Makes `dir` refuse new files, as a read-only disk does, whoever runs the test: root
 * ignores a mode of 0500, but not the immutable attribute. Returns the undo, or null when
 * neither works here.
 */
function makeReadOnly(dir: string): (() => void) | null {
  if (process.getuid?.() !== 0) {
    chmodSync(dir, 0o500);
    return () => chmodSync(dir, 0o700);
  }
  try {
    execFileSync('chattr', ['+i', dir], { stdio: 'ignore' });
    return () => execFileSync('chattr', ['-i', dir], { stdio: 'ignore' });
  } catch {
    return null;
  }
}

describe('forgetting (kill-server --forget)', () => {
  it('corral kill-server keeps the session as a restart point; kill-server --forget deletes it, with or without a server', async () => {
    server = await sandbox().start();
    let client = await connect();
    await client.call('workspace.create', { cwd: server.home, label: 'kept' });
    client.close();
    const runningRows = JSON.parse((await server.cli(['sessions', '--json'])).stdout).sessions;
    expect(runningRows).toMatchObject([{ name: 'default', state: 'running', panes: 1, clients: 0 }]);
    expect(runningRows).toHaveLength(1);
    expect((await server.cli(['kill-server'])).code).toBe(0);
    // No server: `corral sessions` lists the saved session, with its panes, and where it lies.
    const savedRows = JSON.parse((await server.cli(['sessions', '--json'])).stdout).sessions;
    expect(savedRows).toMatchObject([{ name: 'default', state: 'saved', pid: null, socket: null, panes: 1, path: join(server.stateDir, 'default.json') }]);
    expect(Date.parse(savedRows[0].saved_at)).toBeGreaterThan(Date.now() - 60_000);
    expect((await server.cli(['sessions'])).stdout).toMatch(/^default +saved \d{4}-/m);
    await server.start();
    client = await connect();
    expect((await client.call('workspace.list', {})).workspaces.map((w: any) => w.label)).toEqual(['kept']);
    client.close();
    const forgot = await server.cli(['kill-server', '--forget']);
    expect(forgot.code).toBe(0);
    expect(forgot.stdout).toContain('forgotten');
    expect(readdirSync(server.stateDir)).toEqual([]);
    await server.start();
    client = await connect();
    expect((await client.call('pane.list', {})).panes).toEqual([]);
    await client.call('workspace.create', { cwd: server.home });
    await client.call('session.save', {});
    await server.halt('SIGTERM');
    // No server: --forget still deletes the saved session.
    const offline = await server.cli(['kill-server', '--forget']);
    expect(offline.code).toBe(0);
    expect(readdirSync(server.stateDir)).toEqual([]);
  });

  it('session.forget deletes the saved state and scrollback; the stop that follows saves nothing', async () => {
    server = await sandbox().start();
    let client = await connect();
    await client.call('workspace.create', { cwd: server.home });
    expect((await client.call('session.save', {})).bytes).toBeGreaterThan(0);
    expect(readdirSync(server.stateDir).sort()).toEqual(['default.json', 'default.scrollback']);
    expect(await client.call('session.forget', {})).toEqual({ path: join(server.stateDir, 'default.json'), forgotten: true });
    expect(readdirSync(server.stateDir)).toEqual([]);
    await client.call('pane.split', { pane_id: 'w1:p1', direction: 'down' });
    await server.halt('SIGTERM');
    expect(readdirSync(server.stateDir)).toEqual([]);
    await server.start();
    client = await connect();
    expect((await client.call('pane.list', {})).panes).toEqual([]);
  });
});

describe('a state directory that cannot be written', () => {
  it('is reported once and the server keeps running', async (ctx) => {
    server = sandbox({ scripting: true });
    mkdirSync(server.stateDir, { recursive: true, mode: 0o700 });
    const undo = makeReadOnly(server.stateDir);
    if (!undo) ctx.skip();
    try {
      await server.start();
      const client = await connect();
      const pane = (await client.call('workspace.create', { cwd: server.home })).root_pane.pane_id;
      await waitFor(client, pane, PROMPT);
      const response = await client.request('session.save', {});
      expect(response.error.message).toMatch(/could not save the session/);
      await client.call('pane.split', { pane_id: pane, direction: 'down' });
      expect((await client.request('session.save', {})).error).toBeDefined();
      const info = await client.call('session.info', {});
      expect(info.problems.filter((p: string) => /could not save/.test(p))).toHaveLength(1);
      expect(server.stderr.match(/could not save/g)).toHaveLength(1);
      // Still serving, panes alive.
      expect((await client.call('pane.list', {})).panes).toHaveLength(2);
      await client.call('pane.send_text', { pane_id: pane, text: 'echo still-here\r' });
      await waitFor(client, pane, 'still-here');
    } finally {
      undo?.();
    }
  });

  it('a state directory that is a symlink is neither read nor written', async () => {
    server = sandbox();
    const elsewhere = join(server.dir, 'elsewhere');
    mkdirSync(elsewhere, { mode: 0o700 });
    mkdirSync(join(server.dir, 'state'), { mode: 0o700 });
    symlinkSync(elsewhere, server.stateDir);
    await server.start();
    const client = await connect();
    await client.call('workspace.create', { cwd: server.home });
    const info = await client.call('session.info', {});
    expect(info.problems[0]).toMatch(/symbolic link/);
    expect((await client.request('session.save', {})).error.message).toMatch(/symbolic link/);
    expect(readdirSync(elsewhere)).toEqual([]);
  });
});

describe('agents on restore', () => {
  it('an agent whose own session id is known starts again on that session with its flags and name; a kind without resume by id is not restarted', async () => {
    server = sandbox({ scripting: true });
    const bin = join(server.home, 'bin');
    mkdirSync(bin);
    // Stand-ins named like the real CLIs: they print their arguments, report their own session
    // id as the agents' hooks do (from inside their pane) and stay in the foreground.
    const sessions = { claude: 'sess-1234', amp: 'amp-77' };
    for (const [name, session] of Object.entries(sessions)) {
      const hook = hookFromPaneScript('ai.session_start', { kind: name, session_id: session });
      writeFileSync(join(bin, name), `#!/usr/bin/env node\nconsole.log('FAKE-${name.toUpperCase()} ' + JSON.stringify(process.argv.slice(2)));\n${hook}\nsetInterval(() => {}, 1000);\n`, { mode: 0o755 });
    }
    (server.env as Record<string, string>).PATH = `${bin}:${server.env.PATH}`;
    await server.start();
    let client = await connect();
    const claude = (await client.call('workspace.create', { cwd: server.home })).root_pane.pane_id;
    const amp = (await client.call('pane.split', { pane_id: claude, direction: 'right' })).pane.pane_id;
    for (const [pane, command, seen] of [[claude, 'claude --model opus-test', 'FAKE-CLAUDE'], [amp, 'amp --fast', 'FAKE-AMP']]) {
      await waitFor(client, pane!, PROMPT);
      await client.call('pane.run', { pane_id: pane, command });
      await waitFor(client, pane!, seen!);
    }
    for (const pane of [claude, amp]) {
      await expect.poll(async () => (await client.request('agent.get', { target: pane })).result?.agent?.session_id, { timeout: 10_000 }).toBeTruthy();
    }
    await client.call('agent.rename', { target: claude, name: 'reviewer' });
    expect((await client.call('agent.get', { target: 'reviewer' })).agent.session_id).toBe('sess-1234');

    await server.halt('SIGTERM');
    const saved = JSON.parse(readFileSync(join(server.stateDir, 'default.json'), 'utf8'));
    expect(saved.panes.find((p: any) => p.id === claude).agent).toMatchObject({ kind: 'claude', name: 'reviewer', session_id: 'sess-1234' });
    await server.start();
    client = await connect();

    await waitFor(client, claude, 'FAKE-CLAUDE ["--model","opus-test","--resume","sess-1234"]');
    const text = (await client.call('pane.read', { pane_id: claude, source: 'recent-unwrapped', lines: 40 })).read.text;
    expect(text).toContain('resuming claude agent "reviewer", its session sess-1234');
    // Back under its name once corral sees it again.
    await expect.poll(async () => (await client.request('agent.get', { target: 'reviewer' })).result?.agent?.pane_id, { timeout: 20_000 }).toBe(claude);
    await waitFor(client, amp, 'amp agent ran here');
    const ampText = (await client.call('pane.read', { pane_id: amp, source: 'recent-unwrapped', lines: 40 })).read.text;
    expect(ampText).toMatch(/amp agent ran here: .*amp --fast \(not restarted: corral cannot resume amp sessions by id\)/);
    expect(ampText.split('── restored')[1]).not.toContain('FAKE-AMP');
  });
});
