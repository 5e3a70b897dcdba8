/**
 * `corral completion` (SPEC §17) through the built CLI: the scripts, what a TAB gets with no
 * server and from a real one (its panes, pane and agent names), that completing changes
 * nothing on the server, and each script run by its real shell — bash always; zsh and fish
 * where they are installed.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, TestServer } from './harness.js';

const AGENT = join(ROOT, 'test', 'fixtures', 'programs', 'answeragent.mjs');

/** Whether `shell` is installed here. */
function has(shell: string): boolean {
  return spawnSync(shell, ['-c', 'exit 0']).status === 0;
}

/**
 * Runs `script` in `shell` with `corral` on PATH (the scripts call it by name), in `server`'s
 * environment; returns stdout, and fails the test on a non-zero exit or anything on stderr.
 */
function inShell(server: TestServer, shell: 'bash' | 'zsh' | 'fish', script: string): string {
  const bin = join(server.dir, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'corral'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`, { mode: 0o755 });
  const args = shell === 'bash' ? ['--norc', '--noprofile', '-c', script] : shell === 'zsh' ? ['-f', '-c', script] : ['--no-config', '-c', script];
  const result = spawnSync(shell, args, { env: { ...server.env, PATH: `${bin}:${server.env.PATH}` }, encoding: 'utf8', timeout: 20_000 });
  expect(result.stderr, script).toBe('');
  expect(result.status, script).toBe(0);
  return result.stdout;
}

/**
 * bash's view of a TAB at the end of `line`, as readline hands it to the function: the words
 * cut at COMP_WORDBREAKS (`w1:p` is three words), and the last piece as $2.
 */
function bashTab(line: string): string {
  return [
    'source <(corral completion bash)',
    `COMP_LINE=${JSON.stringify(line)}; COMP_POINT=\${#COMP_LINE}`,
    // bash's own cut: at blanks, and around : and = (what it does with the default COMP_WORDBREAKS).
    `read -ra COMP_WORDS <<< "$(sed -e 's/\\([:=]\\)/ \\1 /g' <<< "$COMP_LINE")"`,
    // After a word break the piece being completed is empty; after a blank too.
    `case "$COMP_LINE" in *' '|*:|*=) COMP_WORDS+=(""); esac`,
    'COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))',
    'cur="${COMP_WORDS[COMP_CWORD]}"; [[ "$cur" == [:=] ]] && cur=""',
    '_corral_completions corral "$cur" "${COMP_WORDS[COMP_CWORD-1]}"',
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join('\n');
}

function lines(text: string): string[] {
  return text.split('\n').filter((line) => line !== '');
}

describe('corral completion with no server', () => {
  const sandbox = new TestServer();
  afterAll(async () => {
    await sandbox.stop();
  });

  it('prints the script of the shell named, else of $SHELL, else bash', async () => {
    expect((await sandbox.cli(['completion', 'zsh'])).stdout.startsWith('#compdef corral\n')).toBe(true);
    expect((await sandbox.cli(['completion'], { env: { SHELL: '/usr/bin/fish' } })).stdout).toContain('complete -c corral -f');
    const bash = await sandbox.cli(['completion'], { env: { SHELL: '/bin/sh' } });
    expect(bash.code).toBe(0);
    expect(bash.stdout).toContain('complete -o bashdefault -o default -F _corral_completions corral');
    expect(execFileSync('bash', ['-n'], { input: bash.stdout, encoding: 'utf8' })).toBe('');
    expect((await sandbox.cli(['completion', 'tcsh'])).code).toBe(2);
  });

  it('completes verbs and flags, exits 0 at once and prints nothing on stderr', async () => {
    const started = performance.now();
    const verbs = await sandbox.cli(['completion', 'bash', '--complete', '--', 'corral', 'pa']);
    expect(verbs).toMatchObject({ code: 0, stderr: '' });
    expect(lines(verbs.stdout)).toEqual(expect.arrayContaining(['pane', 'ps']));
    const flags = await sandbox.cli(['completion', 'bash', '--complete', '--', 'corral', 'agent', 'prompt', '--']);
    expect(flags).toMatchObject({ code: 0, stderr: '' });
    expect(lines(flags.stdout)).toEqual(expect.arrayContaining(['--wait', '--until', '--timeout']));
    // Where a name goes and no server runs: nothing, so the shell offers file names.
    const names = await sandbox.cli(['completion', 'bash', '--complete', '--', 'corral', 'read', '']);
    expect(names).toEqual({ code: 0, stdout: '', stderr: '' });
    // Three CLI starts; a wait for a missing server would show as seconds.
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('a socket that never answers holds a TAB for LOOKUP.timeoutMs, not longer', async () => {
    const run = join(sandbox.dir, 'stuck');
    mkdirSync(run, { mode: 0o700 });
    const socketPath = join(run, 'stuck.sock');
    const { createServer } = await import('node:net');
    const stuck = createServer((socket) => socket.resume());
    await new Promise<void>((r) => stuck.listen(socketPath, r));
    try {
      const started = performance.now();
      const result = await sandbox.cli(['completion', 'bash', '--complete', '--', 'corral', '--socket', socketPath, 'read', ''], { timeoutMs: 10_000 });
      expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
      // One CLI start and the 300 ms; the unit test holds the bound itself to the millisecond.
      expect(performance.now() - started).toBeLessThan(5_000);
    } finally {
      await new Promise((r) => stuck.close(r));
    }
  });

  it('bash: the sourced script completes `corral pa` to pane', () => {
    expect(lines(inShell(sandbox, 'bash', bashTab('corral pa')))).toEqual(['pane']);
    expect(lines(inShell(sandbox, 'bash', bashTab('corral pane read --sou')))).toEqual(['--source']);
  });
});

describe('corral completion with a running server', () => {
  let server: TestServer;
  let agentPane: string;
  let namedPane: string;
  beforeAll(async () => {
    server = await new TestServer({ scripting: true }).start();
    agentPane = (await server.json(['workspace', 'create', '--cwd', server.home, '--no-focus'])).result.root_pane.pane_id;
    namedPane = (await server.json(['pane', 'split', agentPane, '--direction', 'right', '--no-focus'])).result.pane.pane_id;
    await server.json(['pane', 'rename', namedPane, 'builder']);
    await server.json(['agent', 'start', 'writer', '--kind', 'generic', '--pane', agentPane, '--', 'node', AGENT]);
  });
  afterAll(async () => {
    await server.stop();
  });

  const complete = async (shell: string, ...words: string[]) => {
    const result = await server.cli(['completion', shell, '--complete', '--', 'corral', ...words]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return lines(result.stdout);
  };

  it('offers the live pane ids, pane names and agent names where each is taken', async () => {
    expect(await complete('bash', 'read', '')).toEqual(expect.arrayContaining([agentPane, namedPane, 'builder', 'writer']));
    const panes = await complete('bash', 'pane', 'read', '');
    expect(panes).toEqual(expect.arrayContaining([agentPane, namedPane]));
    expect(panes).not.toContain('writer');
    expect(await complete('bash', 'agent', 'prompt', '')).toEqual(expect.arrayContaining(['writer', agentPane]));
    expect(await complete('bash', 'agent', 'prompt', '')).not.toContain(namedPane);
    expect(await complete('bash', 'workspace', 'get', '')).toEqual(['w1']);
    expect(await complete('zsh', 'agent', 'read', 'wr')).toContain(`writer:answeragent agent in ${agentPane}`);
  });

  it('completing a verb runs none of it', async () => {
    const before = (await server.json(['pane', 'list'])).result.panes;
    await complete('bash', 'send', namedPane, 'echo completion-ran-me', '--submit', '');
    await complete('bash', 'pane', 'close', namedPane, '');
    await complete('bash', 'agent', 'prompt', 'writer', 'hello', '--wait', '');
    expect((await server.json(['pane', 'list'])).result.panes).toEqual(before);
    expect((await server.cli(['pane', 'read', namedPane])).stdout).not.toContain('completion-ran-me');
    expect((await server.json(['agent', 'get', 'writer'])).result.agent.agent_status).toBe('idle');
  });

  it('bash: a pane id is completed across the colon bash cuts it at', () => {
    // `corral pane read w1:p` → bash replaces only the piece after the colon.
    expect(lines(inShell(server, 'bash', bashTab(`corral pane read ${agentPane.slice(0, -1)}`))).sort()).toEqual(
      [agentPane, namedPane].map((id) => id.split(':')[1]).sort(),
    );
    expect(lines(inShell(server, 'bash', bashTab('corral agent read wr')))).toEqual(['writer']);
  });

  it.skipIf(!has('fish'))('fish: complete -C offers verbs and live names', () => {
    const script = (line: string) => `corral completion fish | source; complete -C ${JSON.stringify(line)}`;
    expect(lines(inShell(server, 'fish', script('corral pa'))).map((l) => l.split('\t')[0])).toContain('pane');
    expect(lines(inShell(server, 'fish', script('corral pane read w1:'))).map((l) => l.split('\t')[0])).toEqual(expect.arrayContaining([agentPane, namedPane]));
  });

  it.skipIf(!has('zsh'))('zsh: the completion function hands _describe the verbs and live names', () => {
    // zsh's completion system needs a terminal; its two entry points are stood in for here.
    const script = (words: string[]) =>
      [
        'compdef() { :; }',
        '_describe() { print -rl -- "${(@P)2}"; }',
        '_default() { print -r -- FILES; }',
        'source <(corral completion zsh)',
        `words=(${words.map((w) => `'${w}'`).join(' ')}); CURRENT=${words.length}`,
        '_corral_completions',
      ].join('\n');
    expect(lines(inShell(server, 'zsh', script(['corral', 'pa'])))).toContain('pane:Panes: split, move, list, get, read, run, send-text, send-keys, wait-output, … (JSON output)');
    expect(lines(inShell(server, 'zsh', script(['corral', 'pane', 'read', ''])))).toEqual(expect.arrayContaining([`${agentPane.replace(':', '\\:')}:writer`]));
    expect(lines(inShell(server, 'zsh', script(['corral', 'up', ''])))).toEqual(['FILES']);
  });
});
