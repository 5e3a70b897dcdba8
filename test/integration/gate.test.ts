/**
 * The scripting gate's principle (SPEC §8), tried as an attacker would against the real
 * server and real bash shells: with the gate closed, nothing a caller sends can make a
 * program already running in a pane act on text the caller chose.
 *
 * Every pane's bash appends a line to `prompts-<pane>` each time it draws a prompt
 * (PROMPT_COMMAND), so "bash executed something" is a count that went up; `touch` payloads
 * leave a marker file.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { METHOD_TABLE, METHODS, type MethodName } from '../../src/contract/protocol.js';
import { TestServer, type RawClient } from './harness.js';
import { execFileSync } from 'node:child_process';
import { GIT_TEST_ENV } from '../unit/support/git-repo.js';
import { processesInside } from '../../src/worktree/busy.js';

/** What every pane's bash shows once it is ready for input. */
const PROMPT = 'gate$';

/** A sandboxed server whose panes count their prompts (its own ~/.bashrc runs after the system's). */
function promptCountingServer(scripting: boolean): TestServer {
  const server = new TestServer({ scripting });
  writeFileSync(join(server.home, '.bashrc'), `PS1='${PROMPT} '\nPROMPT_COMMAND='echo . >> "$HOME/prompts-$CORRAL_PANE_ID"'\n`);
  return server;
}

function promptsDrawn(server: TestServer, pane: string): number {
  const file = join(server.home, `prompts-${pane}`);
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0;
}

/** A fresh full-size pane (a new tab in the workspace of `from`) whose bash has drawn its first prompt. */
async function freshPane(client: RawClient, from: string): Promise<string> {
  const { pane } = await client.call('pane.get', { pane_id: from });
  const { root_pane } = await client.call('tab.create', { workspace_id: pane.workspace_id, focus: false });
  await client.call('pane.wait_for_output', { pane_id: root_pane.pane_id, match: { type: 'substring', value: PROMPT }, timeout_ms: 10_000 });
  return root_pane.pane_id;
}

/**
 * Types an inert sentinel and waits until readline shows it after a prompt: everything sent
 * before was read, and anything it made bash run has drawn its prompt (and counted it) — the
 * kernel's own echo while a command runs comes before the next prompt, so it does not count.
 */
async function settle(client: RawClient, pane: string, tag: string): Promise<void> {
  // A leading `n` answers readline's "Display all N possibilities? (y or n)" or quits its
  // --More-- pager, in case a TAB left one open; at a plain prompt it is just typed.
  await client.call('pane.send_text', { pane_id: pane, text: `n${tag}` });
  await client.call('pane.wait_for_output', {
    pane_id: pane,
    source: 'recent-unwrapped',
    // The prompt's word, not the whole prompt: when bash and xterm count a grapheme's width
    // differently (random graphemes), readline's redraw can land columns off and write over the
    // prompt's `$ ` (seen in CI: "gate ; touch …nSETTLED-49"). The kernel's echo while a command
    // runs still comes before the next prompt on its line ("nTAGgate$ nTAG"), or on a line of
    // its own, so it alone does not match.
    match: { type: 'regex', value: `${PROMPT.slice(0, -1)}.*${tag}` },
    timeout_ms: 10_000,
  }).catch(async (error) => {
    const screen = (await client.call('pane.read', { pane_id: pane, source: 'recent-unwrapped' })).read.text;
    throw new Error(`${error.message}; the pane shows:\n${screen}`);
  });
}

function errorCode(response: any): string | null {
  return response.error?.data?.code ?? null;
}

describe('the gate closed (real server, real bash)', () => {
  let server: TestServer;
  let client: RawClient;
  let root: string;
  let marker: string;

  beforeAll(async () => {
    server = await promptCountingServer(false).start();
    client = await server.connect();
    const created = await client.call('workspace.create', { cwd: server.home });
    root = created.root_pane.pane_id;
    await client.call('pane.wait_for_output', { pane_id: root, match: { type: 'substring', value: PROMPT }, timeout_ms: 10_000 });
    marker = join(server.home, 'MARKER');
  });
  afterAll(async () => {
    client?.close();
    await server?.stop();
  });

  it('walks the method table: every submitting method is refused, every read allowed, every inert param checked', async () => {
    const pane = await freshPane(client, root);
    const other = (await client.call('pane.split', { pane_id: pane, focus: false })).pane.pane_id;
    const agentPane = await freshPane(client, root);
    const { workspace_id: ws, tabs } = (await client.call('workspace.get', { workspace_id: (await client.call('pane.get', { pane_id: pane })).pane.workspace_id })).workspace;
    const tab = tabs[0];
    const payload = `touch ${marker}`;
    const spare = async () => (await client.call('workspace.create', { cwd: server.home, focus: false })).workspace;
    // A repository for the worktree methods: each fixture makes its own worktree.
    const repo = join(server.home, 'repo');
    mkdirSync(repo);
    const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { env: { ...process.env, ...GIT_TEST_ENV } });
    git('init', '-q', '-b', 'main');
    git('commit', '-q', '--allow-empty', '-m', 'initial');
    let worktrees = 0;
    const worktree = async (): Promise<string> => {
      const name = `gate-${++worktrees}`;
      await client.call('workspace.create', { cwd: repo, worktree: name, focus: false });
      return name;
    };
    /** A worktree nothing runs in any more (its workspace closed, its shell gone). */
    const idleWorktree = async (): Promise<string> => {
      const name = `gate-${++worktrees}`;
      const made = await client.call('workspace.create', { cwd: repo, worktree: name, focus: false });
      await client.call('workspace.close', { workspace_id: made.workspace.workspace_id });
      await expect.poll(() => processesInside(made.worktree.path).length, { timeout: 10_000 }).toBe(0);
      return name;
    };

    // One valid call per method; the compiler insists every method in the table has one.
    const fixtures: Record<MethodName, () => Promise<Record<string, unknown>>> = {
      'system.ping': async () => ({}),
      'system.identify': async () => ({}),
      'system.capabilities': async () => ({}),
      'system.stats': async () => ({}),
      'fleet.list': async () => ({}),
      'surface.list': async () => ({}),
      'surface.status': async () => ({ target: pane }),
      'surface.read': async () => ({ target: pane }),
      'surface.search': async () => ({ target: pane, pattern: '$' }),
      'surface.send_text': async () => ({ target: pane, text: payload, submit: true }),
      'surface.send_keys': async () => ({ target: pane, keys: ['enter'] }),
      'surface.focus': async () => ({ target: pane }),
      'surface.rename': async () => ({ target: pane, name: 'renamed' }),
      'events.subscribe': async () => ({ types: ['pane.closed'] }),
      'workspace.create': async () => ({ cwd: server.home, label: 'made', focus: false }),
      'workspace.up': async () => ({ name: 'upped', panes: [{ cwd: server.home, name: 'up-one' }] }),
      'workspace.list': async () => ({}),
      'workspace.get': async () => ({ workspace_id: ws }),
      'workspace.focus': async () => ({ workspace_id: ws }),
      'workspace.rename': async () => ({ workspace_id: ws, label: 'main' }),
      'workspace.close': async () => ({ workspace_id: (await spare()).workspace_id }),
      'tab.create': async () => ({ workspace_id: ws, label: 'second', focus: false }),
      'tab.list': async () => ({}),
      'tab.get': async () => ({ tab_id: tab }),
      'tab.focus': async () => ({ tab_id: tab }),
      'tab.rename': async () => ({ tab_id: tab, label: 'first' }),
      'tab.close': async () => ({ tab_id: (await client.call('tab.create', { workspace_id: ws, focus: false })).tab.tab_id }),
      'pane.split': async () => ({ pane_id: root, focus: false }),
      'pane.move': async () => ({ pane_id: (await client.call('pane.split', { pane_id: root, focus: false })).pane.pane_id, new_tab: true }),
      'pane.list': async () => ({}),
      'pane.get': async () => ({ pane_id: pane }),
      'pane.current': async () => ({ pane_id: pane }),
      'pane.focus': async () => ({ pane_id: pane }),
      'pane.rename': async () => ({ pane_id: pane, name: 'named' }),
      'pane.close': async () => ({ pane_id: (await client.call('pane.split', { pane_id: root, focus: false })).pane.pane_id }),
      'pane.zoom': async () => ({ pane_id: pane, zoom: false }),
      'pane.resize': async () => ({ pane_id: pane, direction: 'left', amount: 1 }),
      'pane.swap': async () => ({ pane_id: pane, other_pane_id: other }),
      'pane.read': async () => ({ pane_id: pane }),
      'pane.send_text': async () => ({ pane_id: pane, text: 'typed only' }),
      'pane.send_keys': async () => ({ pane_id: pane, keys: ['enter'] }),
      'pane.run': async () => ({ pane_id: pane, command: payload }),
      'pane.wait_for_output': async () => ({ pane_id: pane, match: { type: 'substring', value: '$' }, timeout_ms: 5000 }),
      'agent.list': async () => ({}),
      'agent.get': async () => ({ target: agentPane }),
      'agent.rename': async () => ({ target: agentPane, name: 'worker' }),
      'agent.release': async () => ({ target: agentPane }),
      'agent.focus': async () => ({ target: agentPane }),
      'agent.explain': async () => ({ target: agentPane }),
      // No such executable: the gate lets it through, the start itself then times out.
      'agent.start': async () => ({ pane_id: other, kind: 'codex', args: ['--help'], timeout_ms: 3001 }),
      'agent.prompt': async () => ({ target: agentPane, text: payload }),
      'agent.usage': async () => ({ target: agentPane }),
      // Setting a budget is not gated (raising or clearing one is: test/integration/budget.test.ts).
      'agent.budget': async () => ({ target: agentPane, tokens: 1000 }),
      'agent.wait': async () => ({ target: agentPane, until: ['idle', 'done', 'blocked', 'unknown', 'working'], timeout_ms: 2000 }),
      'agent.read': async () => ({ target: agentPane }),
      'agent.send_keys': async () => ({ target: agentPane, keys: ['enter'] }),
      // Not an agent: agent_not_found, after the gate.
      'agent.diff': async () => ({ target: agentPane }),
      'agent.merge': async () => ({ target: agentPane }),
      'agent.checkpoints': async () => ({ target: agentPane }),
      'agent.rewind': async () => ({ target: agentPane, to: 1 }),
      'worktree.list': async () => ({}),
      'worktree.diff': async () => ({ name: await worktree() }),
      // From outside every pane (this test): a person's own terminal or script may merge and discard.
      'worktree.merge': async () => ({ name: await worktree() }),
      'worktree.discard': async () => ({ name: await idleWorktree() }),
      'worktree.prune': async () => ({ dry_run: true }),
      'session.save': async () => ({}),
      'session.info': async () => ({}),
      // Last: it stops this server's saving.
      'session.forget': async () => ({}),
      'client.attach': async () => ({ protocol: 1, cols: 80, rows: 24, pid: process.pid, tty: '', cwd: server.home, term: 'xterm-256color', colorterm: '', capabilities: {} }),
      'client.list': async () => ({}),
      'client.detach': async () => ({ all: true }),
      'machine.list': async () => ({}),
      'machine.reload': async () => ({}),
      'machine.read': async () => ({ pane_id: 'build/w1:p1' }),
      'mirror.subscribe': async () => ({}),
      'mirror.viewport': async () => ({ cols: 120, rows: 40 }),
      'pane.input': async () => ({ pane_id: pane, data: 'x' }),
      'web.hello': async () => ({}),
      'web.fleet': async () => ({}),
      'pane.watch': async () => ({ pane_id: pane }),
      // After web.hello on this connection: this test runs with no terminal, so its keys could come from a program.
      'web.input': async () => ({ pane_id: pane, data: 'x' }),
    };
    expect(Object.keys(fixtures).sort()).toEqual([...METHODS].sort());

    const before = promptsDrawn(server, pane);
    const refused: string[] = [];
    for (const method of METHODS) {
      const spec = METHOD_TABLE[method];
      const params = await fixtures[method]();
      // An attach turns its connection over to binary frames: it gets a connection of its own.
      const attaching = method === 'client.attach' ? await server.connect() : null;
      const response = await (attaching ?? client).request(method, params);
      attaching?.close();
      if (method === 'pane.input' || method === 'web.input') {
        // A person's keys through a machine link (SPEC §14): this test is no bridge sshd started.
        expect(errorCode(response), `${method} must be refused`).toBe('scripting_disabled');
        refused.push(method);
      } else if (spec.gated === 'always' || spec.gated === 'when-submitting') {
        expect(errorCode(response), `${method} must be refused`).toBe('scripting_disabled');
        expect(response.error.message).toMatch(/--scripting/);
        refused.push(method);
      } else if (spec.gated === 'read') {
        expect(errorCode(response), method).not.toBe('scripting_disabled');
        // The agent reads need an agent, which a plain bash pane does not have.
        // The agent reads need an agent; machine.read needs a machine (none is saved here).
        if (!method.startsWith('agent.') && method !== 'machine.read') expect(response.error, `${method} is a read: ${JSON.stringify(response.error)}`).toBeUndefined();
      } else {
        // Not gated: allowed (agent.start fails later, for want of an executable — not at the gate).
        expect(errorCode(response), method).not.toBe('scripting_disabled');
        if (!method.startsWith('agent.')) expect(response.error, `${method}: ${JSON.stringify(response.error)}`).toBeUndefined();
      }
      for (const path of 'inert' in spec ? spec.inert : []) {
        if (path.includes('*')) continue; // nested up-file text: covered in the unit tests
        const hostile = { ...(await fixtures[method]()), [path]: 'x\x1b]52;c;cHduZWQ=\x07', submit: false };
        const answer = await client.request(method, hostile);
        expect(errorCode(answer), `${method} ${path} with ESC`).toBe('scripting_disabled');
        expect(answer.error.message).toContain('U+001B (ESC)');
      }
    }
    expect(refused.sort()).toEqual(['agent.prompt', 'agent.rewind', 'agent.send_keys', 'pane.input', 'pane.run', 'pane.send_keys', 'surface.send_keys', 'surface.send_text', 'web.input']);
    await settle(client, pane, 'TABLE-WALKED');
    expect(promptsDrawn(server, pane)).toBe(before);
    expect(existsSync(marker)).toBe(false);
  });

  it('ctrl+O (bash operate-and-get-next) through pane send-text cannot run the typed line', async () => {
    const pane = await freshPane(client, root);
    const sent = await server.cli(['pane', 'send-text', pane, `touch ${marker}\x0f`]);
    expect(sent.code).toBe(1);
    const error = JSON.parse(sent.stderr).error;
    expect(error.code).toBe('scripting_disabled');
    expect(error.message).toContain('U+000F (ctrl+O)');
    for (const control of ['\r', '\n', '\x04', '\x15', '\x1b', '\x7f', '\x9b', '\x0a']) {
      expect(errorCode(await client.request('surface.send_text', { target: pane, text: `touch ${marker}${control}` }))).toBe('scripting_disabled');
    }
    await settle(client, pane, 'CTRL-O-REFUSED');
    expect(promptsDrawn(server, pane)).toBe(1);
    expect(existsSync(marker)).toBe(false);
  });

  it('a split bracketed-paste end marker cannot end a paste early', async () => {
    const pane = await freshPane(client, root);
    const split = `echo a\x1b[20\x1b[201~1~\rtouch ${marker}\r`;
    const response = await client.request('surface.send_text', { target: pane, text: split });
    expect(errorCode(response)).toBe('scripting_disabled');
    await settle(client, pane, 'PASTE-HELD');
    expect(promptsDrawn(server, pane)).toBe(1);
    expect(existsSync(marker)).toBe(false);
  });

  it('ctrl+U inside an agent start argument cannot rewrite the typed line', async () => {
    const pane = await freshPane(client, root);
    const started = await server.cli(['agent', 'start', '--pane', pane, '--kind', 'claude', '--', `--x\x15touch ${marker}`]);
    expect(started.code).toBe(1);
    expect(JSON.parse(started.stderr).error).toMatchObject({ code: 'scripting_disabled' });
    expect(JSON.parse(started.stderr).error.message).toContain('U+0015 (ctrl+U)');
    await settle(client, pane, 'ARGS-REFUSED');
    expect(promptsDrawn(server, pane)).toBe(1);
    expect(existsSync(marker)).toBe(false);
  });

  it('an up file cannot smuggle a submitting prompt past the closed gate, and nothing is created', async () => {
    const before = (await client.call('pane.list', {})).panes.length;
    const response = await client.request('workspace.up', {
      name: 'smuggle',
      panes: [{ cwd: server.home, agent: 'claude', prompt: `hello\r!touch ${marker}\r` }],
    });
    expect(errorCode(response)).toBe('scripting_disabled');
    expect(response.error.message).toContain('panes[0].prompt');
    expect(response.error.message).toContain('U+000D (CR, ctrl+M)');
    expect((await client.call('pane.list', {})).panes.length).toBe(before);
  });

  it('random ungated text never changes what bash executes (property, real pane)', async () => {
    const fragments = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.string({ unit: 'grapheme', maxLength: 4 }),
      fc.string({ unit: 'binary', maxLength: 4 }),
      fc.constantFrom(` ; touch ${marker} ; `, '\t', '\r', '\n', '\x0f', '\x15', '\x04', '\x03', '\x1a', '\x0a', '\x1b', '\x1b[201~', '\x1b[20', '1~', '\x9b201~', '\x7f', '\x85', "'", '"', '\\', '`', '$('),
    );
    const methods = fc.constantFrom('surface.send_text', 'pane.send_text');
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fragments, { minLength: 1, maxLength: 12 }), methods, async (pieces, method) => {
        const text = pieces.join('');
        const pane = await freshPane(client, root);
        try {
          const params = method === 'pane.send_text' ? { pane_id: pane, text } : { target: pane, text };
          const response = await client.request(method, params);
          const hasControl = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/.test(text);
          if (hasControl) expect(errorCode(response)).toBe('scripting_disabled');
          else expect(response.error).toBeUndefined();
          await settle(client, pane, `SETTLED-${run++}`);
          expect(promptsDrawn(server, pane)).toBe(1);
          expect(existsSync(marker)).toBe(false);
        } finally {
          await client.request('pane.close', { pane_id: pane });
        }
      }),
      { numRuns: 60, endOnFailure: true },
    );
  }, 60_000);
});

describe('the same attacks with the gate open (the detectors can fail)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await promptCountingServer(true).start();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('runs what was sent, so the prompt count and the marker see it', async () => {
    const client = await server.connect();
    try {
      const created = await client.call('workspace.create', { cwd: server.home });
      const pane = created.root_pane.pane_id;
      await client.call('pane.wait_for_output', { pane_id: pane, match: { type: 'substring', value: PROMPT }, timeout_ms: 10_000 });
      const marker = join(server.home, 'MARKER');
      await client.call('pane.send_text', { pane_id: pane, text: `touch ${marker}\x0f` });
      await settle(client, pane, 'OPEN-GATE');
      expect(promptsDrawn(server, pane)).toBeGreaterThan(1);
      expect(existsSync(marker)).toBe(true);
    } finally {
      client.close();
    }
  });

  it('agent start passes each argument as one shell-quoted word', async () => {
    // A stand-in `codex` that prints the argv it got; it is never detected, so the start times out.
    const bin = join(server.home, 'bin');
    mkdirSync(bin, { recursive: true });
    // One write for the whole line, so a reader never catches it half printed.
    writeFileSync(join(bin, 'codex'), '#!/bin/sh\nprintf "ARGV:%s\\n" "$(printf "[%s]" "$@")"\n');
    chmodSync(join(bin, 'codex'), 0o755);
    const client = await server.connect();
    try {
      const created = await client.call('workspace.create', { cwd: server.home });
      const pane = created.root_pane.pane_id;
      await client.call('pane.wait_for_output', { pane_id: pane, match: { type: 'substring', value: PROMPT }, timeout_ms: 10_000 });
      await client.call('pane.run', { pane_id: pane, command: `PATH=${bin}:$PATH; echo PATH-SET` });
      await client.call('pane.wait_for_output', { pane_id: pane, match: { type: 'regex', value: '^PATH-SET' }, timeout_ms: 10_000 });
      const args = ["it's", 'two words', '$(touch x)', 'a\\b', '`id`', ';', ''];
      const started = client.request('agent.start', { pane_id: pane, kind: 'codex', args, timeout_ms: 3001 });
      const seen = await client.call('pane.wait_for_output', { pane_id: pane, match: { type: 'regex', value: '^ARGV:' }, timeout_ms: 10_000 });
      expect(seen.matched_line.trimEnd()).toBe(`ARGV:${args.map((a) => `[${a}]`).join('')}`);
      await started;
    } finally {
      client.close();
    }
  });
});
