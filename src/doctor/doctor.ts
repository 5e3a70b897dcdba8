/**
 * `corral doctor` (SPEC §17): checks what corral needs on this machine and says, for each thing
 * missing, what stops working and how to get it. Exit 0 only when every check passes.
 *
 * Runs without a server and changes nothing: it creates no socket directory and writes no
 * config. The native parts (node-pty, re2, corral's own addon) are loaded in a child process
 * (native-probe.ts): a broken binary can crash the process that loads it, and the CLI itself
 * must never load them (scripts/build.mjs keeps it lean).
 */
import { execFile } from 'node:child_process';
import { existsSync, lstatSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../config/load-config.js';
import { readMachines, machinesPath } from '../machines/machine-config.js';
import { isCheckout, packageRoot } from '../package-root.js';
import { displayPath, resolveConfigPath, resolveSocketPath } from '../paths.js';
import { assertPrivateDir } from '../socket-dir.js';
import { atLeast, MIN_NODE, VERSION } from '../version.js';
import { probeNative, type NativeProbe } from './native-probe.js';

const run = promisify(execFile);

/** The git that finds a merge conflict without touching the main checkout (docs/worktrees.md). */
const GIT_MERGE_TREE: readonly [number, number] = [2, 38];

export interface DoctorCheck {
  /** What was checked, one word or two: `node`, `node-pty`, `git`, … */
  name: string;
  ok: boolean;
  /** What was found (a version, a path), or what is wrong. */
  detail: string;
  /** When not ok: what stops working, and how to get it. */
  fix?: string;
}

export interface DoctorReport {
  ok: boolean;
  version: string;
  /** Where this corral runs from, and whether that is a checkout or an installed package. */
  root: string;
  installed: boolean;
  checks: DoctorCheck[];
}

export interface DoctorOptions {
  env?: NodeJS.ProcessEnv;
  /** `--socket`/`--session`, as every verb takes them. */
  socket?: string;
  session?: string;
}

/** How to rebuild one native package (`corral` for corral's own addon), in a checkout or an installed package. */
function rebuildHint(installed: boolean, pkg: 'corral' | 'node-pty' | 're2' | 'better-sqlite3'): string {
  if (!installed) return pkg === 'corral' ? 'run `npm run build` in the checkout' : `run \`npm rebuild ${pkg}\` in the checkout`;
  return `rebuild it: \`npm rebuild -g --allow-scripts=${pkg} ${pkg}\` (needs python3, make and a C++ compiler: \`apt-get install python3 make g++\`, or Xcode's command line tools)`;
}

function checkNode(): DoctorCheck {
  const version = process.versions.node;
  return atLeast(version, MIN_NODE)
    ? { name: 'node', ok: true, detail: `${version} (needs ${MIN_NODE.join('.')} or newer)` }
    : { name: 'node', ok: false, detail: `${version} is too old`, fix: `corral needs Node.js ${MIN_NODE.join('.')} or newer: install it from nodejs.org or your system's packages` };
}

/** Each native part: what it is called, what a working one does, and what is lost without it. */
const NATIVE_PARTS: readonly { part: keyof NativeProbe; name: string; works: string; cost: string; pkg: 'corral' | 'node-pty' | 're2' | 'better-sqlite3' }[] = [
  { part: 'pty', name: 'node-pty', pkg: 'node-pty', works: 'loads, and runs a program in a pseudo-terminal', cost: 'panes need it: without it the server cannot start a shell' },
  { part: 're2', name: 're2', pkg: 're2', works: 'loads', cost: 'every regex over pane text needs it (wait --pattern, agent rules)' },
  { part: 'sqlite', name: 'sqlite', pkg: 'better-sqlite3', works: 'better-sqlite3 loads', cost: 'what OpenCode and Kilo spend is read from their SQLite stores with it (agent usage, budgets)' },
  {
    part: 'addon',
    name: 'addon',
    pkg: 'corral',
    works: "corral's own addon (peer credentials, line modes) loads",
    cost: "without it corral cannot tell a person's terminal from a program: attached clients (the TUI too) are view-only while the scripting gate is closed, agents' hooks are refused (docs/security.md), and typed text is not framed by line mode",
  },
];

function nativeChecks(probe: NativeProbe, installed: boolean): DoctorCheck[] {
  return NATIVE_PARTS.map(({ part, name, works, cost, pkg }) =>
    probe[part].ok ? { name, ok: true, detail: works } : { name, ok: false, detail: probe[part].error, fix: `${cost}; ${rebuildHint(installed, pkg)}` },
  );
}

/** `git --version` → `2.39.5`, or null when git is not on PATH. */
async function toolVersion(command: string, args: string[], pattern: RegExp, env: NodeJS.ProcessEnv): Promise<string | null> {
  try {
    const { stdout, stderr } = await run(command, args, { env, timeout: 5_000 });
    return pattern.exec(`${stdout}${stderr}`)?.[1] ?? '?';
  } catch (error) {
    const { code, stderr } = error as NodeJS.ErrnoException & { stderr?: string };
    if (code === 'ENOENT') return null;
    // ssh -V exits 0 on OpenSSH; some builds exit 255 with the version on stderr.
    return pattern.exec(String(stderr ?? ''))?.[1] ?? '?';
  }
}

async function checkGit(env: NodeJS.ProcessEnv): Promise<DoctorCheck> {
  const version = await toolVersion('git', ['--version'], /git version (\S+)/, env);
  if (version === null) {
    return { name: 'git', ok: false, detail: 'not found on PATH', fix: 'worktrees (agent start --worktree) and checkpoints need git: install it (`apt-get install git`, `brew install git`)' };
  }
  const note = atLeast(version, GIT_MERGE_TREE) ? '' : `; before ${GIT_MERGE_TREE.join('.')}, \`worktree merge\` finds a conflict by trying the merge`;
  return { name: 'git', ok: true, detail: `${version}${note}` };
}

async function checkSsh(env: NodeJS.ProcessEnv): Promise<DoctorCheck> {
  const version = await toolVersion('ssh', ['-V'], /(OpenSSH[^\s,]*)/, env);
  return version === null
    ? { name: 'ssh', ok: false, detail: 'not found on PATH', fix: "machines (corral machine add) run over OpenSSH's client: install it (`apt-get install openssh-client`)" }
    : { name: 'ssh', ok: true, detail: version };
}

function checkSocketDir(opts: DoctorOptions, env: NodeJS.ProcessEnv): DoctorCheck {
  let dir: string;
  try {
    dir = path.dirname(resolveSocketPath({ socket: opts.socket, session: opts.session }, env));
  } catch (error) {
    return { name: 'socket dir', ok: false, detail: (error as Error).message, fix: 'give a valid --session or --socket' };
  }
  try {
    assertPrivateDir(dir);
  } catch (error) {
    return { name: 'socket dir', ok: false, detail: (error as Error).message };
  }
  if (existsSync(dir)) return { name: 'socket dir', ok: true, detail: `${dir} (private)` };
  // Missing: the server creates it 0700 at its first start, if it can.
  let parent = path.dirname(dir);
  while (!existsSync(parent) && path.dirname(parent) !== parent) parent = path.dirname(parent);
  const stats = lstatSync(parent);
  if (!stats.isDirectory()) return { name: 'socket dir', ok: false, detail: `${parent} is not a directory`, fix: 'set XDG_RUNTIME_DIR or pass --socket' };
  return { name: 'socket dir', ok: true, detail: `${dir} (created, owner-only, when a server starts)` };
}

function checkConfig(env: NodeJS.ProcessEnv): DoctorCheck[] {
  const configFile = resolveConfigPath(env);
  const home = env.HOME;
  const { error } = loadConfig(configFile, env);
  const checks: DoctorCheck[] = [
    error
      ? { name: 'config', ok: false, detail: error.message, fix: `corral starts with the defaults until ${displayPath(configFile, home)} is fixed (docs/config.md)` }
      : { name: 'config', ok: true, detail: existsSync(configFile) ? displayPath(configFile, home) : `${displayPath(configFile, home)} (none: the defaults)` },
  ];
  const machinesFile = machinesPath(env);
  try {
    const machines = readMachines(machinesFile);
    if (machines.length > 0) checks.push({ name: 'machines', ok: true, detail: `${displayPath(machinesFile, home)}: ${machines.length} saved` });
  } catch (error) {
    checks.push({ name: 'machines', ok: false, detail: (error as Error).message, fix: `fix or remove ${displayPath(machinesFile, home)} (docs/machines.md)` });
  }
  return checks;
}

function checkWebBundle(root: string, installed: boolean): DoctorCheck {
  const page = path.join(root, 'dist', 'web', 'app.js');
  return existsSync(page)
    ? { name: 'web page', ok: true, detail: 'dist/web/app.js' }
    : { name: 'web page', ok: false, detail: `${page} is missing`, fix: installed ? 'reinstall corral: the package ships it' : 'run `npm run build`' };
}

/** Runs every check; never throws. */
export async function runDoctor(opts: DoctorOptions = {}): Promise<DoctorReport> {
  const env = opts.env ?? process.env;
  const root = packageRoot();
  const installed = !isCheckout(root);
  const [probe, git, ssh] = await Promise.all([probeNative(root), checkGit(env), checkSsh(env)]);
  const checks = [
    checkNode(),
    ...nativeChecks(probe, installed),
    git,
    ssh,
    checkSocketDir(opts, env),
    ...checkConfig(env),
    checkWebBundle(root, installed),
  ];
  return { ok: checks.every((check) => check.ok), version: VERSION, root, installed, checks };
}

/** The report for people: one line a check, what to do under each failed one. */
export function formatDoctorReport(report: DoctorReport): string {
  const width = Math.max(...report.checks.map((check) => check.name.length));
  const lines = [`corral ${report.version} (${report.installed ? 'installed' : 'checkout'} at ${report.root})`];
  for (const check of report.checks) {
    lines.push(`${check.ok ? 'ok  ' : 'FAIL'}  ${check.name.padEnd(width)}  ${check.detail}`);
    if (!check.ok && check.fix) lines.push(`      ${' '.repeat(width)}  → ${check.fix}`);
  }
  const failed = report.checks.filter((check) => !check.ok).length;
  lines.push(failed === 0 ? 'All is well.' : `${failed} problem${failed === 1 ? '' : 's'} found.`);
  return `${lines.join('\n')}\n`;
}
