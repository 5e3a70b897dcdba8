import { describe, expect, it } from 'vitest';
import { AGENT_KINDS, isAgentKind } from '../../src/agents/kinds.js';
import { kindByPackage, kindExecutable, kindProcess } from '../../src/agents/kind-facts.js';
import { detectKind, packageOfPath, programName, splitShellScript } from '../../src/agents/process-detect.js';

const AGENTS = '/work/main/.cache/agents/node_modules';

/**
 * Real foreground-group facts, recorded from bash in a pty (tpgid from /proc/<bash>/stat,
 * argv from /proc/<pid>/cmdline, exe from /proc/<pid>/exe) with the live tests' environment (test/agents/lab.ts).
 */
const REAL = {
  claude: {
    leader: { argv: ['claude'], exe: `${AGENTS}/@anthropic-ai/claude-code/bin/claude.exe` },
  },
  gemini: {
    leader: { argv: ['node', `${AGENTS}/.bin/gemini`], exe: '/usr/bin/node' },
    // Relaunched with more heap, same process group, child of the leader.
    child: { argv: ['/usr/bin/node', '--max-old-space-size=12052', `${AGENTS}/.bin/gemini`], exe: '/usr/bin/node' },
  },
  codex: {
    leader: { argv: ['node', `${AGENTS}/.bin/codex`], exe: '/usr/bin/node' },
    // Node 20 has no process.execve, so bin/codex.js spawns the native binary as a child.
    child: {
      argv: [`${AGENTS}/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex`],
      exe: `${AGENTS}/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex`,
    },
  },
  // Three node processes of one package: the .bin/qwen entry relaunches cli.js with
  // --expose-gc, which relaunches itself once more (qwen 0.24.4).
  qwen: {
    leader: { argv: ['node', `${AGENTS}/.bin/qwen`], exe: '/usr/bin/node' },
    child: { argv: ['/usr/bin/node', '--expose-gc', `${AGENTS}/@qwen-code/qwen-code/cli.js`], exe: '/usr/bin/node' },
  },
  // pi 0.73.1 sets process.title = 'pi': /proc/<pid>/cmdline is just "pi", comm "pi".
  pi: { leader: { argv: ['pi'], exe: '/usr/bin/node' } },
  // Kilo 7.7.7: a node wrapper leads, the native bin/.kilo of the same package is its child.
  kilo: {
    leader: { argv: ['node', `${AGENTS}/.bin/kilo`], exe: '/usr/bin/node' },
    child: { argv: [`${AGENTS}/@kilocode/cli/bin/.kilo`], exe: `${AGENTS}/@kilocode/cli/bin/.kilo` },
  },
  // opencode-ai 1.18.33 from npm: no wrapper. Its postinstall copies the platform package's
  // native binary to opencode-ai/bin/opencode.exe (.bin/opencode links there): one process,
  // argv ["opencode"], comm "opencode".
  opencode: { leader: { argv: ['opencode'], exe: `${AGENTS}/opencode-ai/bin/opencode.exe` } },
} as const;

/** The realpaths of the .bin links above, as the installed tree has them. */
const REALPATHS: Record<string, string> = {
  [`${AGENTS}/.bin/gemini`]: `${AGENTS}/@google/gemini-cli/bundle/gemini.js`,
  [`${AGENTS}/.bin/codex`]: `${AGENTS}/@openai/codex/bin/codex.js`,
  [`${AGENTS}/.bin/claude`]: `${AGENTS}/@anthropic-ai/claude-code/bin/claude.exe`,
  [`${AGENTS}/.bin/qwen`]: `${AGENTS}/@qwen-code/qwen-code/cli-entry.js`,
  [`${AGENTS}/.bin/kilo`]: `${AGENTS}/@kilocode/cli/bin/kilo`,
  '/home/u/.local/bin/claude': '/home/u/.local/share/claude/versions/2.1.197',
  '/usr/local/bin/cc-wrapper': '/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js',
};
const realpath = (file: string): string | null => REALPATHS[file] ?? null;

describe('kinds', () => {
  it('has the 24 kinds of SPEC §2 with an executable each', () => {
    expect(AGENT_KINDS).toHaveLength(24);
    for (const kind of AGENT_KINDS) expect(kindExecutable(kind)).toMatch(/^[a-z][a-z-]*$/);
    expect(kindExecutable('cursor')).toBe('cursor-agent');
    expect(kindExecutable('kiro')).toBe('kiro-cli');
    expect(kindExecutable('kilo')).toBe('kilo');
    expect(isAgentKind('claude')).toBe(true);
    expect(isAgentKind('vim')).toBe(false);
  });

  it('never gives one basename or package to two kinds', () => {
    const seen = new Map<string, string>();
    for (const kind of AGENT_KINDS) {
      for (const name of [...kindProcess(kind)!.basenames, ...kindProcess(kind)!.packages.map((p) => `pkg:${p}`)]) {
        expect(seen.get(name), `${name} in ${kind} and ${seen.get(name)}`).toBeUndefined();
        seen.set(name, kind);
      }
    }
  });

  it('maps per-platform binary packages to their kind', () => {
    expect(kindByPackage('@openai/codex-linux-x64')).toBe('codex');
    expect(kindByPackage('@anthropic-ai/claude-code-linux-x64-musl')).toBe('claude');
    expect(kindByPackage('opencode-linux-arm64')).toBe('opencode');
    expect(kindByPackage('left-pad')).toBeUndefined();
  });
});

describe('detectKind on the real agents', () => {
  it('claude: native binary, argv ["claude"]', () => {
    expect(detectKind(REAL.claude.leader.argv, { exe: REAL.claude.leader.exe })?.kind).toBe('claude');
    // Started under another name (an alias, a renamed link): the exe still says claude.
    expect(detectKind(['cc'], { exe: REAL.claude.leader.exe })).toEqual({
      kind: 'claude',
      how: 'exe in package @anthropic-ai/claude-code',
    });
  });

  it('gemini: the node leader and its relaunched child', () => {
    expect(detectKind(REAL.gemini.leader.argv, { exe: REAL.gemini.leader.exe, realpath })).toEqual({
      kind: 'gemini',
      how: 'node script gemini',
    });
    expect(detectKind(REAL.gemini.child.argv, { exe: REAL.gemini.child.exe })?.kind).toBe('gemini');
  });

  it('codex: the node wrapper and the native child', () => {
    expect(detectKind(REAL.codex.leader.argv, { exe: REAL.codex.leader.exe })?.kind).toBe('codex');
    expect(detectKind(REAL.codex.child.argv, { exe: REAL.codex.child.exe })).toEqual({
      kind: 'codex',
      how: 'argv0 in package @openai/codex-linux-x64',
    });
  });

  it('qwen: the .bin entry and both relaunched node processes', () => {
    expect(detectKind(REAL.qwen.leader.argv, { exe: REAL.qwen.leader.exe, realpath })).toEqual({
      kind: 'qwen',
      how: 'node script qwen',
    });
    expect(detectKind(REAL.qwen.child.argv, { exe: REAL.qwen.child.exe })).toEqual({
      kind: 'qwen',
      how: 'node script in package @qwen-code/qwen-code',
    });
  });

  it('pi: renamed to "pi", running on node', () => {
    expect(detectKind(REAL.pi.leader.argv, { exe: REAL.pi.leader.exe })).toEqual({ kind: 'pi', how: 'argv0 pi' });
  });

  it('kilo: the node wrapper and its native .kilo child', () => {
    expect(detectKind(REAL.kilo.leader.argv, { exe: REAL.kilo.leader.exe, realpath })?.kind).toBe('kilo');
    expect(detectKind(REAL.kilo.child.argv, { exe: REAL.kilo.child.exe })).toEqual({
      kind: 'kilo',
      how: 'argv0 in package @kilocode/cli',
    });
    // The native binary copied out of its package still says what it is.
    expect(detectKind(['/opt/kilo/.kilo'])?.kind).toBe('kilo');
  });

  it('opencode: the native binary npm installs as opencode-ai/bin/opencode.exe', () => {
    expect(detectKind(REAL.opencode.leader.argv, { exe: REAL.opencode.leader.exe })?.kind).toBe('opencode');
    // Started under another name, the exe still says what it is; so does the platform package's own copy.
    expect(detectKind(['oc'], { exe: REAL.opencode.leader.exe })).toEqual({ kind: 'opencode', how: 'exe in package opencode-ai' });
    expect(detectKind([`${AGENTS}/opencode-linux-x64/bin/opencode`])?.kind).toBe('opencode');
    expect(detectKind(['oc'], { exe: `${AGENTS}/opencode-linux-x64-baseline/bin/opencode` })?.kind).toBe('opencode');
    // The install script's copy.
    expect(detectKind(['/home/u/.opencode/bin/opencode'])?.kind).toBe('opencode');
  });

  it('a capture driver\'s launch line: a bash -c script running the agent as a child', () => {
    const argv = ['bash', '-c', `source /tmp/agentrun.x/agent-env.sh; ${AGENTS}/.bin/gemini; echo AGENT EXITED rc=$?; sleep 3600`];
    expect(detectKind(argv, { realpath })).toMatchObject({ kind: 'gemini', via: 'shell' });
  });
});

describe('detectKind argv shapes', () => {
  const cases: Array<[string, string[], string | null, { exe?: string }?]> = [
    ['bare name', ['codex'], 'codex'],
    ['absolute path', ['/usr/local/bin/gemini', '--yolo'], 'gemini'],
    ['login-shell style dash', ['-claude'], 'claude'],
    ['node with flags before the script', ['node', '--max-old-space-size=8192', '--no-warnings', '/x/node_modules/@anthropic-ai/claude-code/cli.js'], 'claude'],
    ['node with a separate-value option', ['node', '--require', '/x/preload.js', '/x/node_modules/@qwen-code/qwen-code/cli.js'], 'qwen'],
    ['node -r preload', ['node', '-r', 'ts-node/register', '/opt/node_modules/@google/gemini-cli/dist/index.js'], 'gemini'],
    ['nodejs binary name', ['nodejs', '/usr/lib/node_modules/@openai/codex/bin/codex.js'], 'codex'],
    ['node -e inline code', ['node', '-e', 'require("/x/node_modules/@openai/codex/bin/codex.js")'], null],
    ['node running an unrelated script', ['node', '/srv/app/server.js'], null],
    ['bun script', ['bun', '/home/u/.bun/install/global/node_modules/opencode-ai/bin/opencode'], 'opencode'],
    ['bun run script', ['bun', 'run', '--smol', '/x/node_modules/@sourcegraph/amp/dist/main.js'], 'amp'],
    ['deno run with permissions', ['deno', 'run', '-A', '--config', 'deno.json', '/x/node_modules/@letta-ai/letta-code/letta.js'], 'letta'],
    ['python script path', ['/usr/bin/python3', '/home/u/.local/bin/kimi'], 'kimi'],
    ['python3.12 -m module', ['python3.12', '-u', '-m', 'kimi_cli', '--yolo'], 'kimi'],
    ['python site-packages', ['python3', '/venv/lib/python3.12/site-packages/hermes_cli/main.py'], 'hermes'],
    ['sh -c exec', ['sh', '-c', 'exec claude --resume abc'], 'claude'],
    ['bash -lc with env assignment', ['bash', '-lc', 'FOO=1 BAR="a b" codex exec "fix it"'], 'codex'],
    ['bash -c with && chain', ['/bin/bash', '-c', 'cd /repo && gemini -p "hi; there"'], 'gemini'],
    ['sh -c with nothing known', ['sh', '-c', 'make -j8 && ./run-tests'], null],
    ['env with assignments', ['env', 'ANTHROPIC_BASE_URL=http://127.0.0.1:1', 'NODE_OPTIONS=--max-old-space-size=4096', 'claude'], 'claude'],
    ['env -u and -S', ['/usr/bin/env', '-u', 'DEBUG', '-S', 'node --no-warnings /x/node_modules/@github/copilot/index.js'], 'copilot'],
    ['env then node', ['env', 'node', '/x/node_modules/@google/gemini-cli/bundle/gemini.js'], 'gemini'],
    ['npx package', ['npx', '-y', '@openai/codex@0.171.0'], 'codex'],
    ['npx -p package bin', ['npx', '-p', '@qwen-code/qwen-code', 'qwen'], 'qwen'],
    ['npx --package=', ['npx', '--package=@google/gemini-cli', 'gemini'], 'gemini'],
    ['bunx', ['bunx', 'opencode-ai@latest'], 'opencode'],
    ['pnpm dlx', ['pnpm', 'dlx', '@anthropic-ai/claude-code'], 'claude'],
    ['npm exec', ['npm', 'exec', '--', '@sourcegraph/amp'], 'amp'],
    ['uvx', ['uvx', 'kimi-cli'], 'kimi'],
    ['uv run', ['uv', 'run', '--with', 'rich', 'kimi'], 'kimi'],
    ['nohup and nice', ['nohup', 'nice', '-n', '10', 'droid'], 'droid'],
    ['timeout duration', ['timeout', '30m', 'cursor-agent', '-p', 'x'], 'cursor'],
    ['cursor standalone install', ['/home/u/.local/share/cursor-agent/versions/2025.09.12/node', '--use-system-ca', '/home/u/.local/share/cursor-agent/versions/2025.09.12/index.js'], 'cursor'],
    ['native codex of an older release', ['/x/node_modules/@openai/codex/bin/codex-x86_64-unknown-linux-musl'], 'codex'],
    ['claude native installer version file', ['/home/u/.local/share/claude/versions/2.1.197'], 'claude'],
    ['kiro', ['kiro-cli', 'chat'], 'kiro'],
    ['kilo', ['kilocode'], 'kilo'],
    ['qodercli', ['qodercli'], 'qodercli'],
    ['vim is not an agent', ['vim', 'claude.md'], null],
    ['the word codex as an argument', ['less', 'codex.log'], null],
    ['nested node_modules: the innermost package wins', ['node', '/x/node_modules/@openai/codex/node_modules/some-dep/cli.js'], null],
    ['empty argv', [], null],
  ];
  it.each(cases)('%s', (_name, argv, kind, opts) => {
    expect(detectKind(argv, opts)?.kind ?? null).toBe(kind);
  });

  it('follows symlinks through the resolver: a script and a native binary', () => {
    expect(detectKind(['node', '/usr/local/bin/cc-wrapper'], { realpath })).toMatchObject({
      kind: 'claude',
      how: 'node script realpath in package @anthropic-ai/claude-code',
    });
    expect(detectKind(['/some/renamed/bin'], { exe: '/home/u/.local/share/claude/versions/2.1.197' })?.kind).toBe('claude');
  });

  it('marks launchers: runners and shell scripts run the agent as a child', () => {
    expect(detectKind(['npx', 'opencode-ai'])?.via).toBe('runner');
    expect(detectKind(['sh', '-c', 'claude; echo done'])?.via).toBe('shell');
    expect(detectKind(['claude'])?.via).toBeUndefined();
  });

  it('does not use the process exe for words inside a shell script', () => {
    expect(detectKind(['sh', '-c', 'make'], { exe: '/x/node_modules/@openai/codex/bin/codex' })).toBeNull();
  });
});

describe('helpers', () => {
  it('programName names an unknown program by its script or binary', () => {
    expect(programName(['node', '--no-warnings', '/opt/x/newagent.mjs', '--flag'])).toBe('newagent');
    expect(programName(['/usr/local/bin/Some Agent', 'x'])).toBe('some-agent');
    expect(programName(['FOO=1', 'python3', '-u', '/srv/bot.py'])).toBe('bot');
    expect(programName(['./123'])).toBeNull();
    expect(programName([])).toBeNull();
  });

  it('packageOfPath takes the innermost package', () => {
    expect(packageOfPath('/a/node_modules/@openai/codex-linux-x64/vendor/x/bin/codex')).toBe('@openai/codex-linux-x64');
    expect(packageOfPath('/a/node_modules/x/node_modules/y/cli.js')).toBe('y');
    expect(packageOfPath('/usr/bin/node')).toBeUndefined();
  });

  it('splitShellScript handles quotes, escapes, separators and comments', () => {
    expect(splitShellScript(`a 'b c' "d \\"e\\"" f\\ g; h && i | j # k`)).toEqual([['a', 'b c', 'd "e"', 'f g'], ['h'], ['i'], ['j']]);
    expect(splitShellScript('')).toEqual([]);
  });
});
