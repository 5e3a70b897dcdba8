/**
 * `corral completion` (SPEC §17) in-process: which words take which of the server's names,
 * what yargs' completion offers through completeWords, that the names come from read-only
 * calls over a real socket, and that a silent server costs a TAB no more than LOOKUP.timeoutMs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { METHOD_TABLE } from '../../src/contract/methods.js';
import { buildCli } from '../../src/cli/main.js';
import { completeWords } from '../../src/cli/commands/completion.js';
import { completionScript, shellFromEnv } from '../../src/cli/completion-scripts.js';
import { POSITIONAL_NAMES, slotOf, type NameKind } from '../../src/cli/completion-slots.js';
import { LOOKUP, liveNames } from '../../src/cli/live-names.js';

const savedShell = process.env.SHELL;
afterEach(() => {
  // completeWords names the asking shell in $SHELL for yargs.
  if (savedShell === undefined) delete process.env.SHELL;
  else process.env.SHELL = savedShell;
});

const dir = mkdtempSync(path.join(tmpdir(), 'corral-completion-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const noServer = ['--socket', path.join(dir, 'none.sock')];

/** The completion of `line` (the last word is the one being completed), with no server. */
function complete(line: string[], shell: 'bash' | 'zsh' | 'fish' = 'bash'): Promise<string[]> {
  return completeWords(buildCli, shell, ['corral', ...noServer, ...line]);
}

describe('slotOf: where the server\u2019s names go', () => {
  const slot = (words: string[], positionals: string[], values: Record<string, unknown> = {}) => slotOf(['corral', ...words], ['corral', ...positionals], values);

  it('a verb\u2019s positionals, by the verb\u2019s words', () => {
    expect(slot(['read', ''], ['read', ''])).toEqual({ type: 'positional', kind: 'target' });
    expect(slot(['pane', 'read', 'w'], ['pane', 'read', 'w'])).toEqual({ type: 'positional', kind: 'pane' });
    expect(slot(['pane', 'swap', 'w1:p1', ''], ['pane', 'swap', 'w1:p1', ''])).toEqual({ type: 'positional', kind: 'pane' });
    expect(slot(['agent', 'prompt', ''], ['agent', 'prompt', ''])).toEqual({ type: 'positional', kind: 'agent' });
    expect(slot(['worktree', 'merge', ''], ['worktree', 'merge', ''])).toEqual({ type: 'positional', kind: 'worktree' });
    expect(slot(['machine', 'remove', ''], ['machine', 'remove', ''])).toEqual({ type: 'positional', kind: 'machine' });
    // The prompt's text, a verb, an unlisted verb: no names.
    expect(slot(['agent', 'prompt', 'coder', ''], ['agent', 'prompt', 'coder', ''])).toEqual({ type: 'positional', kind: null });
    expect(slot(['pa'], ['pa'])).toEqual({ type: 'positional', kind: null });
    expect(slot(['up', ''], ['up', ''])).toEqual({ type: 'positional', kind: null });
  });

  it('a flag\u2019s value, whether it follows the flag or is joined to it with =', () => {
    expect(slot(['--machine', ''], [], { machine: '' })).toEqual({ type: 'value', flag: 'machine', kind: 'machine', prefix: '' });
    expect(slot(['agent', 'start', '--pane', 'w'], ['agent', 'start'], { pane: 'w' })).toEqual({ type: 'value', flag: 'pane', kind: 'pane', prefix: '' });
    expect(slot(['ls', '--workspace=w'], ['ls'], { workspace: 'w' })).toEqual({ type: 'value', flag: 'workspace', kind: 'workspace', prefix: '--workspace=' });
    expect(slot(['watch', '--surface', 'a', '--surface', ''], ['watch'], { surface: ['a', ''] })).toMatchObject({ type: 'value', kind: 'target' });
    expect(slot(['pane', 'read', '--source', ''], ['pane', 'read'], { source: '' })).toEqual({ type: 'value', flag: 'source', kind: null, prefix: '' });
  });

  it('--match is a selector under `wait` only (pane wait-output matches text)', () => {
    expect(slot(['wait', '--match', ''], ['wait'], { match: '' })).toMatchObject({ type: 'value', kind: 'target' });
    expect(slot(['pane', 'wait-output', 'w1:p1', '--match', ''], ['pane', 'wait-output', 'w1:p1'], { match: '' })).toMatchObject({ type: 'value', kind: null });
  });

  it('a word after a boolean flag is a positional; a word starting with - is a flag', () => {
    expect(slot(['send', '--submit', ''], ['send', ''], { submit: true })).toEqual({ type: 'positional', kind: 'target' });
    expect(slot(['read', '--li'], ['read'], {})).toEqual({ type: 'flag' });
  });
});

describe('completeWords: yargs\u2019 verbs, flags and choices', () => {
  it('offers the verbs, never yargs\u2019 `$0`', async () => {
    const verbs = await complete(['pa']);
    expect(verbs).toContain('pane');
    expect(verbs).toContain('completion');
    expect(verbs.some((v) => v.startsWith('$0'))).toBe(false);
  });

  it('walks into sub-verbs and offers their flags once a - is typed', async () => {
    expect(await complete(['pane', ''])).toEqual(expect.arrayContaining(['split', 'read', 'wait-output']));
    const flags = await complete(['pane', 'read', '-']);
    expect(flags).toEqual(expect.arrayContaining(['--source', '--lines', '--current']));
    // Without a -, no flags: with no server the shell falls back to file names.
    expect(await complete(['pane', 'read', ''])).toEqual([]);
  });

  it('offers a flag\u2019s choices and a positional\u2019s, and nothing for a free value', async () => {
    expect(await complete(['pane', 'read', '--source', ''])).toEqual(['visible', 'recent', 'recent-unwrapped', 'detection']);
    expect(await complete(['completion', ''])).toEqual(['bash', 'zsh', 'fish']);
    expect(await complete(['pane', 'split', '--cwd', ''])).toEqual([]);
  });

  it('answers in the asking shell\u2019s shape: zsh and fish with descriptions', async () => {
    expect((await complete(['pa'], 'zsh')).find((v) => v.startsWith('pane:'))).toMatch(/^pane:Panes: /);
    expect((await complete(['pa'], 'fish')).find((v) => v.startsWith('pane\t'))).toMatch(/^pane\tPanes: /);
  });

  it('every verb the names table lists is a verb of the CLI', async () => {
    for (const verb of Object.keys(POSITIONAL_NAMES)) {
      const words = verb.split(' ');
      const offered = await complete([...words.slice(0, -1), '']);
      expect(offered, verb).toContain(words.at(-1));
    }
  });
});

describe('completion scripts', () => {
  it('each calls `corral completion SHELL --complete` for its own shell', () => {
    for (const shell of ['bash', 'zsh', 'fish'] as const) {
      const script = completionScript(shell);
      expect(script).toContain(`corral completion ${shell} --complete --`);
      // The template's escapes are undone: the shell sees ${…}, not \${…}.
      expect(script).not.toMatch(/\\\$\{|\\`/);
    }
    expect(completionScript('bash')).toContain('complete -o bashdefault -o default -F _corral_completions corral');
    expect(completionScript('zsh').startsWith('#compdef corral\n')).toBe(true);
    expect(completionScript('fish')).toContain("complete -c corral -f -a '(__corral_completions)'");
  });

  it('the shell comes from $SHELL, else bash', () => {
    expect(shellFromEnv({ SHELL: '/usr/bin/zsh' })).toBe('zsh');
    expect(shellFromEnv({ SHELL: '/usr/local/bin/fish' })).toBe('fish');
    expect(shellFromEnv({ SHELL: '/bin/dash' })).toBe('bash');
    expect(shellFromEnv({})).toBe('bash');
  });
});

describe('live names over a real socket', () => {
  const PANE = { pane_id: 'w1:p1', name: 'builder', cmd: '/bin/bash', agent: { name: 'coder', kind: 'claude', pane_id: 'w1:p1' } };
  const RESULTS: Record<string, unknown> = {
    'pane.list': { panes: [PANE, { pane_id: 'w1:p2', name: null, cmd: 'vim', agent: undefined }] },
    'agent.list': { agents: [{ name: 'coder', kind: 'claude', pane_id: 'w1:p1' }] },
    'workspace.list': { workspaces: [{ workspace_id: 'w1', label: 'api' }] },
    'tab.list': { tabs: [{ tab_id: 'w1:t1', label: '1' }] },
    'worktree.list': { worktrees: [{ name: 'fix-login', branch: 'corral/fix-login' }] },
    'machine.list': { machines: [{ name: 'build', target: 'me@build' }], file: '', problem: null },
  };
  let server: Server;
  let silent: Server;
  const called: string[] = [];
  const socketPath = path.join(dir, 'fake.sock');
  const silentPath = path.join(dir, 'silent.sock');

  beforeAll(async () => {
    server = createServer((socket) => {
      let buffered = '';
      socket.on('data', (chunk) => {
        buffered += chunk.toString();
        for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
          const request = JSON.parse(buffered.slice(0, nl));
          buffered = buffered.slice(nl + 1);
          called.push(request.method);
          socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: request.id, result: RESULTS[request.method] })}\n`);
        }
      });
    });
    // Reads and never answers: a stuck server (reading, so it sees the client hang up).
    silent = createServer((socket) => socket.resume());
    await Promise.all([
      new Promise<void>((r) => server.listen(socketPath, r)),
      new Promise<void>((r) => silent.listen(silentPath, r)),
    ]);
  });
  afterAll(async () => {
    await Promise.all([new Promise((r) => server.close(r)), new Promise((r) => silent.close(r))]);
  });

  it('each kind lists what the verbs take, by read-only calls alone', async () => {
    const values = async (kind: NameKind) => (await liveNames(kind, { socketPath })).map((n) => n.value);
    expect(await values('target')).toEqual(['w1:p1', 'builder', 'coder', 'w1:p2']);
    expect(await values('pane')).toEqual(['w1:p1', 'w1:p2']);
    expect(await values('agent')).toEqual(['coder', 'w1:p1']);
    expect(await values('workspace')).toEqual(['w1']);
    expect(await values('tab')).toEqual(['w1:t1']);
    expect(await values('worktree')).toEqual(['fix-login']);
    expect(await values('machine')).toEqual(['build']);
    expect(called.length).toBeGreaterThanOrEqual(7);
    for (const method of called) expect(METHOD_TABLE[method as keyof typeof METHOD_TABLE]?.gated, method).toBe('read');
  });

  it('a server that never answers costs LOOKUP.timeoutMs, and gives no names', async () => {
    const started = performance.now();
    expect(await liveNames('pane', { socketPath: silentPath })).toEqual([]);
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(LOOKUP.timeoutMs - 20);
    expect(took).toBeLessThan(LOOKUP.timeoutMs + 700);
  });

  it('no server, or a socket directory others can use, gives no names and throws nothing', async () => {
    expect(await liveNames('target', { socketPath: path.join(dir, 'none.sock') })).toEqual([]);
    expect(await liveNames('target', { socketPath: '/tmp/corral-no-such-dir/x.sock' })).toEqual([]);
  });

  it('completeWords puts them where a name goes, in each shell\u2019s shape', async () => {
    const at = (shell: 'bash' | 'zsh' | 'fish', line: string[]) => completeWords(buildCli, shell, ['corral', '--socket', socketPath, ...line]);
    expect(await at('bash', ['read', ''])).toEqual(['w1:p1', 'builder', 'coder', 'w1:p2']);
    expect(await at('bash', ['pane', 'read', ''])).toEqual(['w1:p1', 'w1:p2']);
    expect(await at('bash', ['--machine', ''])).toEqual(['build']);
    expect(await at('bash', ['ls', '--workspace=w'])).toEqual(['--workspace=w1']);
    // zsh: a colon in the name is escaped, the description follows the first bare colon.
    expect(await at('zsh', ['pane', 'read', ''])).toEqual(['w1\\:p1:builder', 'w1\\:p2:vim']);
    expect(await at('fish', ['agent', 'prompt', ''])).toEqual(['coder\tclaude agent in w1:p1', 'w1:p1\tcoder (claude)']);
  });
});
