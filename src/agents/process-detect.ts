/**
 * Process detection (SPEC §4, source 3): which agent kind a pane's foreground process is.
 *
 * `detectKind` is pure: it unwraps an argv (interpreters, `sh -c`, `env`, package runners)
 * and matches what is left against the alias table in kinds.ts. `detectForeground` reads
 * /proc for one pane (through a ProcessTable, the real one unless a test passes its own), and
 * only when called; callers throttle (STYLE: never per frame).
 *
 * Facts this is built on (verified with real programs, fixtures in agent-process.test.ts):
 * - claude 2.1 is a native binary: argv ["claude"], /proc/<pid>/exe …/claude-code/bin/claude.exe.
 * - gemini 0.61 leads the group as ["node", "…/.bin/gemini"] and relaunches itself as a child
 *   ["/usr/bin/node", "--max-old-space-size=N", "…/.bin/gemini"] in the same group.
 * - codex 0.171 leads as ["node", "…/.bin/codex"]; on Node < 22.15 (no process.execve) that
 *   wrapper spawns the native "…/@openai/codex-linux-x64/vendor/<triple>/bin/codex" as a child.
 */
import { foregroundProcess, PROC, sessionProcesses, type ProcessTable } from '../pty/foreground.js';
import type { AgentKind } from './kinds.js';
import { kindByBasename, kindByPackage, kindByPathFragment, kindByPythonModule } from './kind-facts.js';

export interface DetectedKind {
  kind: AgentKind;
  /** The evidence, e.g. `node script → package @google/gemini-cli`, for `agent explain`. */
  how: string;
  /**
   * Found through a launcher that runs the agent as a child — a shell script (`sh -c`, a
   * launcher file) or a package runner (`npx`): the agent may not have started yet, or may
   * have exited while a shell script runs on.
   */
  via?: 'shell' | 'runner';
}

export interface DetectKindOptions {
  /** The process's /proc/<pid>/exe target: names a native binary whatever argv[0] says. */
  exe?: string;
  /** Resolves a script path through symlinks (realpath); null when it cannot. */
  realpath?: (file: string) => string | null;
}

/** Limits that keep detection cheap and bounded on odd input. */
const DETECT_LIMITS = {
  /** `sh -c 'env x=1 sh -c "…"'` nests; real launch lines are 2–3 deep. */
  maxDepth: 6,
  /** Descendants examined below a wrapper leader; an agent sits 1–3 levels down. */
  maxDescendants: 64,
  /** Shell scripts passed to `sh -c` longer than this are not agent launch lines. */
  maxShellScript: 4096,
} as const;

/** Interpreters whose first non-option argument is the program. */
const INTERPRETERS = new Set(['node', 'nodejs', 'bun', 'deno', 'tsx', 'ts-node', 'python', 'python3', 'pypy3', 'uv']);
/** Shells: `sh -c SCRIPT` or `sh SCRIPTFILE`. */
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'fish']);
/** Package runners whose first non-option argument is a package spec or bin name. */
const RUNNERS = new Set(['npx', 'bunx', 'pnpx', 'uvx', 'pipx']);
/** Commands that run their arguments as a command after their own options. */
const PREFIX_COMMANDS = new Set(['exec', 'command', 'nohup', 'time', 'nice', 'setsid', 'stdbuf', 'timeout', 'caffeinate', 'ionice', 'chrt', 'taskset']);

/** Options that take a separate value, per interpreter (the rest are flags or `--opt=value`). */
const VALUE_OPTIONS: Record<string, ReadonlySet<string>> = {
  node: new Set(['-r', '--require', '--import', '--loader', '--experimental-loader', '-C', '--conditions', '--title', '--inspect-port', '--env-file', '--input-type', '--stack-size']),
  bun: new Set(['-r', '--preload', '--cwd', '--config', '-c', '--env-file', '--tsconfig-override']),
  deno: new Set(['--config', '-c', '--import-map', '--lock', '--cert', '--location', '--env-file']),
  python: new Set(['-X', '-W', '-Q']),
  runner: new Set(['-p', '--package', '-c', '--call', '--from', '--with', '--python', '--spec', '--registry', '--cache', '--userconfig']),
  prefix: new Set(['-n', '--adjustment', '-o', '-e', '-i', '-c', '-p', '-s', '-k', '--kill-after', '--signal']),
  env: new Set(['-u', '--unset', '-C', '--chdir', '-S', '--split-string']),
};

/** Script and binary extensions that do not change what a basename means. */
const EXTENSION_RE = /\.(c|m)?js$|\.ts$|\.exe$|\.py$/;
const ENV_ASSIGNMENT_RE = /^[A-Za-z_][A-Za-z0-9_]*=/;

function baseOf(file: string): string {
  const base = file.slice(file.lastIndexOf('/') + 1);
  // Login shells are started as "-bash".
  return base.replace(/^-/, '').replace(EXTENSION_RE, '');
}

/** The interpreter family of a basename: python3.12 → python, nodejs → node. */
function family(base: string): string {
  if (/^python(\d+(\.\d+)*)?$/.test(base) || base === 'pypy3') return 'python';
  if (base === 'nodejs' || base === 'tsx' || base === 'ts-node') return 'node';
  return base;
}

/** The package a path lies in: the segment(s) after the last node_modules/ or site-packages/. */
export function packageOfPath(file: string): string | undefined {
  let start = -1;
  for (const marker of PACKAGE_DIRS) start = Math.max(start, lastSegmentEnd(file, marker));
  if (start < 0) return undefined;
  const parts = file.slice(start).split('/');
  const name = parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1] ?? ''}` : parts[0];
  // node_modules/.bin holds links to packages, not a package.
  return name === undefined || name === '' || name === '.bin' || name.endsWith('/') ? undefined : name;
}

/** Directories whose children are packages. */
const PACKAGE_DIRS = ['node_modules/', 'site-packages/', 'dist-packages/'] as const;

/** Index just past the last `/<marker>` (or a leading `<marker>`) in `file`, else -1. */
function lastSegmentEnd(file: string, marker: string): number {
  const at = file.lastIndexOf(`/${marker}`);
  if (at >= 0) return at + marker.length + 1;
  return file.startsWith(marker) ? marker.length : -1;
}

/** Strips a version from a package spec: `@openai/codex@0.171.0` → `@openai/codex`. */
function packageName(spec: string): string {
  const at = spec.indexOf('@', spec.startsWith('@') ? 1 : 0);
  return at > 0 ? spec.slice(0, at) : spec;
}

/** Matches one path (argv[0], a script, an exe) against basenames, packages and install paths. */
function matchPath(file: string, label: string): DetectedKind | null {
  const pkg = packageOfPath(file);
  const byPackage = pkg === undefined ? undefined : kindByPackage(pkg) ?? kindByPythonModule(pkg);
  if (byPackage) return { kind: byPackage, how: `${label} in package ${pkg}` };
  const byFragment = kindByPathFragment(file);
  if (byFragment) return { kind: byFragment, how: `${label} under an install of ${byFragment}` };
  const byBase = kindByBasename(baseOf(file));
  if (byBase) return { kind: byBase, how: `${label} ${baseOf(file)}` };
  return null;
}

/** Index of the first argument after the options of a command, skipping option values. */
function firstOperand(args: readonly string[], start: number, valueOptions: ReadonlySet<string>): number {
  let i = start;
  while (i < args.length) {
    const arg = args[i];
    if (arg === '--') return i + 1;
    if (!arg.startsWith('-') || arg === '-') return i;
    i += valueOptions.has(arg) ? 2 : 1;
  }
  return i;
}

/**
 * Splits a `sh -c` script into simple commands of words. Handles quotes, backslashes and the
 * separators ; & && || | and newlines; anything fancier (substitutions, redirections into
 * words) only needs to not crash, since the caller just looks for a recognisable command.
 */
export function splitShellScript(script: string): string[][] {
  const commands: string[][] = [];
  let words: string[] = [];
  let word = '';
  let inWord = false;
  const endWord = (): void => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  const endCommand = (): void => {
    endWord();
    if (words.length > 0) commands.push(words);
    words = [];
  };
  for (let i = 0; i < script.length; i++) {
    const c = script[i];
    if (c === "'") {
      const close = script.indexOf("'", i + 1);
      const end = close < 0 ? script.length : close;
      word += script.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === '"') {
      inWord = true;
      for (i++; i < script.length && script[i] !== '"'; i++) {
        if (script[i] === '\\' && i + 1 < script.length && '"\\$`'.includes(script[i + 1])) i++;
        word += script[i];
      }
    } else if (c === '\\' && i + 1 < script.length) {
      word += script[++i];
      inWord = true;
    } else if (c === ';' || c === '&' || c === '|' || c === '\n' || c === '(' || c === ')') {
      endCommand();
    } else if (c === ' ' || c === '\t') {
      endWord();
    } else if (c === '#' && !inWord) {
      const nl = script.indexOf('\n', i);
      i = nl < 0 ? script.length : nl - 1;
    } else {
      word += c;
      inWord = true;
    }
  }
  endCommand();
  return commands;
}

function unwrap(argv: readonly string[], opts: DetectKindOptions, depth: number, chain: string): DetectedKind | null {
  if (argv.length === 0 || depth > DETECT_LIMITS.maxDepth) return null;
  const argv0 = argv[0];
  const base = baseOf(argv0);
  const fam = family(base);
  const note = (label: string): string => (chain === '' ? label : `${chain} → ${label}`);

  if (fam === 'env') {
    let i = 1;
    while (i < argv.length) {
      const arg = argv[i];
      if (arg === '--') {
        i++;
        break;
      }
      if (arg === '-S' || arg === '--split-string') {
        // `env -S "claude --flag"` (shebang lines): the value is itself a command line.
        const inner = splitShellScript(argv[i + 1] ?? '')[0] ?? [];
        return unwrap([...inner, ...argv.slice(i + 2)], opts, depth + 1, note('env -S'));
      }
      if (ENV_ASSIGNMENT_RE.test(arg)) i++;
      else if (arg.startsWith('-')) i += VALUE_OPTIONS.env.has(arg) ? 2 : 1;
      else break;
    }
    return unwrap(argv.slice(i), opts, depth + 1, note('env'));
  }

  if (PREFIX_COMMANDS.has(base)) {
    let i = firstOperand(argv, 1, VALUE_OPTIONS.prefix);
    // `timeout 10m cmd`: the duration is the first operand.
    if (base === 'timeout' && i < argv.length) i++;
    return unwrap(argv.slice(i), opts, depth + 1, note(base));
  }

  if (SHELLS.has(base)) {
    for (let i = 1; i < argv.length; i++) {
      const arg = argv[i];
      if (arg === '--') break;
      if (/^-[a-z]*c[a-z]*$/i.test(arg) && !arg.startsWith('--')) {
        const script = argv[i + 1] ?? '';
        if (script.length > DETECT_LIMITS.maxShellScript) return null;
        for (const words of splitShellScript(script)) {
          const found = unwrapShellWords(words, opts, depth + 1, note(`${base} -c`));
          if (found) return { ...found, via: 'shell' };
        }
        return null;
      }
      if (!arg.startsWith('-') && !arg.startsWith('+')) {
        // `bash /path/to/launcher`: the launcher file itself names the agent, or nothing does.
        return matchScript(arg, opts, note(base), true);
      }
    }
    return null;
  }

  if (RUNNERS.has(base) || ((base === 'pnpm' || base === 'yarn') && argv[1] === 'dlx') || (base === 'npm' && (argv[1] === 'exec' || argv[1] === 'x')) || (base === 'bun' && argv[1] === 'x') || (base === 'pipx' && argv[1] === 'run')) {
    const start = RUNNERS.has(base) ? (base === 'pipx' && argv[1] === 'run' ? 2 : 1) : 2;
    // `npx -p @scope/pkg bin` names the package with -p; look at every operand-ish word.
    for (let i = start; i < argv.length; i++) {
      const arg = argv[i];
      const spec = arg.startsWith('--package=') ? arg.slice('--package='.length) : arg.startsWith('-') ? '' : arg;
      if (spec === '') continue;
      const name = packageName(spec);
      const kind = kindByPackage(name) ?? kindByBasename(baseOf(name));
      if (kind) return { kind, how: note(`${base} ${name}`), via: 'runner' };
    }
    return null;
  }

  if (INTERPRETERS.has(base) || fam === 'python' || fam === 'node') {
    if (base === 'uv') {
      // `uv run [opts] cmd…` / `uv tool run pkg`.
      const sub = argv[1] === 'tool' ? 3 : argv[1] === 'run' ? 2 : -1;
      if (sub < 0) return null;
      const i = firstOperand(argv, sub, VALUE_OPTIONS.runner);
      return unwrap(argv.slice(i), opts, depth + 1, note('uv run'));
    }
    let start = 1;
    if ((base === 'deno' || base === 'bun') && argv[1] === 'run') start = 2;
    const i = firstOperand(argv, start, VALUE_OPTIONS[fam] ?? VALUE_OPTIONS.node);
    // `python -m module`: the module option ends the interpreter's options.
    if (fam === 'python') {
      const m = argv.findIndex((arg, j) => j >= 1 && j < i && (arg === '-m' || (arg.startsWith('-m') && !arg.startsWith('--'))));
      if (m >= 0) {
        const module = argv[m] === '-m' ? argv[m + 1] : argv[m].slice(2);
        const kind = module === undefined ? undefined : kindByPythonModule(module);
        return kind ? { kind, how: note(`${base} -m ${module}`) } : null;
      }
    }
    // `node -e …` runs inline code: there is no script to recognise.
    if (argv.slice(1, i).some((arg) => arg === '-e' || arg === '--eval' || arg === '-p' || arg === '--print' || arg === '-c')) return null;
    const script = argv[i];
    if (script === undefined) return null;
    return matchScript(script, opts, note(`${base} script`), false);
  }

  // A program run directly: its argv[0], else the binary it really is.
  const direct = matchPath(argv0, note('argv0'));
  if (direct) return direct;
  if (opts.exe !== undefined && depth === 0) {
    const byExe = matchPath(opts.exe, note('exe'));
    if (byExe) return byExe;
  }
  if (argv0.includes('/') && opts.realpath) {
    const real = opts.realpath(argv0);
    if (real && real !== argv0) return matchPath(real, note('argv0 realpath'));
  }
  return null;
}

/** A script run by an interpreter or a shell: its own path, else its realpath. */
function matchScript(script: string, opts: DetectKindOptions, label: string, viaShell: boolean): DetectedKind | null {
  const direct = matchPath(script, label);
  const found = direct ?? (() => {
    const real = opts.realpath?.(script);
    return real && real !== script ? matchPath(real, `${label} realpath`) : null;
  })();
  if (!found) return null;
  // A shell running a launcher file usually execs the agent, but may run it as a child.
  return viaShell ? { ...found, via: 'shell' } : found;
}

/** One simple command from a `sh -c` script: drop assignments and `exec`, then unwrap. */
function unwrapShellWords(words: string[], opts: DetectKindOptions, depth: number, chain: string): DetectedKind | null {
  let i = 0;
  while (i < words.length && ENV_ASSIGNMENT_RE.test(words[i])) i++;
  const rest = words.slice(i);
  if (rest.length === 0 || rest[0] === 'source' || rest[0] === '.' || rest[0] === 'cd' || rest[0] === 'export') return null;
  // The words are not a process's argv: never consult this process's exe for them.
  return unwrap(rest, { realpath: opts.realpath }, Math.max(depth, 1), chain);
}

/**
 * The agent kind an argv means, with the evidence; null when nothing matches.
 * Pure: `opts.exe` and `opts.realpath` bring in what only /proc and the file system know.
 */
export function detectKind(argv: readonly string[], opts: DetectKindOptions = {}): DetectedKind | null {
  return unwrap(argv, opts, 0, '');
}

export interface ForegroundAgent {
  kind: AgentKind;
  pid: number;
  argv: string[];
  how: string;
}

function argvOf(pid: number, table: ProcessTable): string[] | null {
  const argv = table.cmdline(pid);
  return argv && argv.length > 0 ? argv : null;
}

/** Classifies one live process by its argv and binary. */
export function classifyProcess(pid: number, argv?: string[], table: ProcessTable = PROC): DetectedKind | null {
  const args = argv ?? argvOf(pid, table);
  if (!args) return null;
  return detectKind(args, { exe: table.exe(pid) ?? undefined, realpath: (file) => table.realpath(pid, file) });
}

/**
 * Members of process group `pgid` below `leader`, breadth first (nearest first), bounded.
 * Uses /proc/<pid>/task/<tid>/children; falls back to one scan of the session.
 */
export function groupDescendants(leader: number, pgid: number, session: number, table: ProcessTable = PROC): number[] {
  const found: number[] = [];
  const queue = [leader];
  while (queue.length > 0 && found.length < DETECT_LIMITS.maxDescendants) {
    const children = table.children(queue.shift()!);
    if (children === null) return scanGroup(leader, pgid, session, table);
    for (const child of children) {
      if (table.stat(child)?.pgrp !== pgid) continue;
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

function scanGroup(leader: number, pgid: number, session: number, table: ProcessTable): number[] {
  const members = sessionProcesses(session, table).filter((p) => p.pgrp === pgid && p.pid !== leader && p.state !== 'Z');
  // Nearest first: children of the leader, then the rest by pid (roughly spawn order).
  members.sort((a, b) => Number(b.ppid === leader) - Number(a.ppid === leader) || a.pid - b.pid);
  return members.slice(0, DETECT_LIMITS.maxDescendants).map((p) => p.pid);
}

/**
 * The agent in the foreground of the pane whose shell is `shellPid`, or null (shell at its
 * prompt, an unrecognised program, the process gone). When the group leader is a wrapper
 * (`sh -c`, `npx`, an unrecognised launcher), its descendants in the same process group
 * are examined; a directly recognised leader wins, so the pid is what owns the terminal.
 */
export function detectForeground(shellPid: number, table: ProcessTable = PROC): ForegroundAgent | null {
  const fg = foregroundProcess(shellPid, table);
  // Mid-exec the leader has only its new short name; its whole command line is there a moment later.
  if (!fg || fg.isShell || fg.execing) return null;
  const leader = classifyProcess(fg.pid, fg.argv, table);
  if (leader && leader.via === undefined) return { kind: leader.kind, pid: fg.pid, argv: fg.argv, how: leader.how };
  const session = table.stat(shellPid)?.session ?? shellPid;
  for (const pid of groupDescendants(fg.pid, fg.pgid, session, table)) {
    const argv = argvOf(pid, table);
    if (!argv) continue;
    const child = classifyProcess(pid, argv, table);
    if (child && child.via === undefined) return { kind: child.kind, pid, argv, how: `${child.how} (child of ${fg.pid})` };
  }
  // A package runner still resolving its package: trust what it was asked to run. A shell
  // script is not trusted: its agent may have exited while the script runs on.
  return leader?.via === 'runner' ? { kind: leader.kind, pid: fg.pid, argv: fg.argv, how: leader.how } : null;
}

/**
 * A short name for an unrecognised program, for an agent recognised by the generic rules:
 * the script an interpreter runs (`node …/newagent.js` → `newagent`), else argv[0]'s basename;
 * lower-case `[a-z0-9_-]`, at most 32 characters. Null when nothing usable is left.
 */
export function programName(argv: readonly string[]): string | null {
  let i = 0;
  while (i < argv.length && ENV_ASSIGNMENT_RE.test(argv[i])) i++;
  if (i >= argv.length) return null;
  let base = baseOf(argv[i]);
  const fam = family(base);
  if (INTERPRETERS.has(base) || fam === 'node' || fam === 'python') {
    const script = argv[firstOperand(argv, i + 1, VALUE_OPTIONS[fam] ?? VALUE_OPTIONS.node)];
    if (script !== undefined) base = baseOf(script);
  }
  const name = base.toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^[^a-z]+/, '').slice(0, 32);
  return name === '' ? null : name;
}
