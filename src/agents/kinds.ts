/**
 * The agent kinds corral recognises (SPEC §2) and what identifies each one's process: the
 * executable `agent start --kind K` types, the basenames its launchers go by, the npm (or
 * PyPI) packages its scripts and native binaries live in, and path fragments of standalone
 * installers. Pure data; process-detect.ts does the matching.
 *
 * Verified on this machine (see test/unit/agent-process.test.ts fixtures): claude 2.1.197,
 * gemini 0.61.0, codex 0.171.0, qwen 0.24.4, pi 0.73.1, kilo 7.7.7. Entries marked `guess`
 * come from the tools' public install docs as remembered, not from a run; fix them here when
 * a real argv says otherwise.
 */

/** Every kind, in SPEC §2 order. */
export const AGENT_KINDS = [
  'pi',
  'claude',
  'codex',
  'gemini',
  'cursor',
  'devin',
  'agy',
  'cline',
  'omp',
  'mastracode',
  'opencode',
  'copilot',
  'kimi',
  'kiro',
  'droid',
  'amp',
  'grok',
  'hermes',
  'kilo',
  'qodercli',
  'qwen',
  'letta',
  'maki',
  'muse',
] as const;
export type AgentKind = (typeof AGENT_KINDS)[number];

/** How one kind's processes can be recognised. */
export interface KindInfo {
  /** What `agent start --kind K` types at the shell. */
  executable: string;
  /** Executable or script basenames (without .js/.cjs/.mjs/.exe) that mean this kind. */
  basenames: readonly string[];
  /** npm/PyPI package names whose files (scripts, native binaries) mean this kind. */
  packages: readonly string[];
  /** Package-name prefixes for per-platform binary packages (`@openai/codex-linux-x64`). */
  packagePrefixes?: readonly string[];
  /** Python modules run with `python -m`. */
  pythonModules?: readonly string[];
  /** Path fragments of standalone installs whose binaries carry no telling basename. */
  pathFragments?: readonly string[];
  /** True when the entry is not verified against a real install. */
  guess?: boolean;
}

/** The alias table. Basenames must not collide across kinds (a test checks). */
export const KIND_INFO: Readonly<Record<AgentKind, KindInfo>> = {
  // pi-coding-agent (badlogic/pi-mono). 0.73 sets process.title = 'pi': its argv becomes
  // ["pi"] while /proc/<pid>/exe stays node (verified), so the basename is what matches.
  pi: { executable: 'pi', basenames: ['pi'], packages: ['@mariozechner/pi-coding-agent'] },
  claude: {
    executable: 'claude',
    basenames: ['claude'],
    // 2.x ships a native binary as bin/claude.exe (verified) plus per-platform packages;
    // 1.x ran `node …/@anthropic-ai/claude-code/cli.js`.
    packages: ['@anthropic-ai/claude-code'],
    packagePrefixes: ['@anthropic-ai/claude-code-'],
    // The native installer keeps versions as ~/.local/share/claude/versions/<semver>.
    pathFragments: ['/.local/share/claude/versions/', '/.claude/local/'],
  },
  codex: {
    executable: 'codex',
    // The npm wrapper bin/codex.js spawns vendor/<triple>/bin/codex (verified); older
    // releases named the binary codex-<triple>.
    basenames: ['codex', 'codex-x86_64-unknown-linux-musl', 'codex-aarch64-unknown-linux-musl'],
    packages: ['@openai/codex'],
    packagePrefixes: ['@openai/codex-'],
  },
  gemini: { executable: 'gemini', basenames: ['gemini'], packages: ['@google/gemini-cli'] },
  cursor: {
    executable: 'cursor-agent',
    basenames: ['cursor-agent'],
    packages: [],
    // The installer's launcher execs versions/<v>/node …/index.js.
    pathFragments: ['/.local/share/cursor-agent/'],
    guess: true,
  },
  devin: { executable: 'devin', basenames: ['devin'], packages: [], guess: true },
  // Google Antigravity's CLI.
  agy: { executable: 'agy', basenames: ['agy', 'antigravity'], packages: [], guess: true },
  cline: { executable: 'cline', basenames: ['cline'], packages: ['cline'], guess: true },
  // oh-my-pi, a pi fork.
  omp: { executable: 'omp', basenames: ['omp'], packages: ['@oh-my-pi/pi-coding-agent'], guess: true },
  mastracode: { executable: 'mastracode', basenames: ['mastracode'], packages: ['mastracode'], guess: true },
  opencode: {
    executable: 'opencode',
    basenames: ['opencode'],
    packages: ['opencode-ai'],
    packagePrefixes: ['opencode-linux-', 'opencode-darwin-', 'opencode-windows-'],
    pathFragments: ['/.opencode/bin/'],
    guess: true,
  },
  copilot: { executable: 'copilot', basenames: ['copilot'], packages: ['@github/copilot'], guess: true },
  kimi: {
    executable: 'kimi',
    basenames: ['kimi', 'kimi-cli'],
    packages: ['kimi-cli'],
    pythonModules: ['kimi_cli'],
    guess: true,
  },
  kiro: { executable: 'kiro-cli', basenames: ['kiro-cli', 'kiro-cli-chat'], packages: [], guess: true },
  droid: { executable: 'droid', basenames: ['droid'], packages: ['droid'], pathFragments: ['/.factory/bin/'], guess: true },
  amp: { executable: 'amp', basenames: ['amp'], packages: ['@sourcegraph/amp'], guess: true },
  grok: { executable: 'grok', basenames: ['grok'], packages: ['@vibe-kit/grok-cli'], guess: true },
  hermes: {
    executable: 'hermes',
    basenames: ['hermes', 'hermes-agent'],
    packages: ['hermes-agent'],
    pythonModules: ['hermes_cli', 'hermes_agent'],
    guess: true,
  },
  // Kilo Code's CLI 7.x installs `kilo` and `kilocode`: a node wrapper (bin/kilo) that runs the
  // native bin/.kilo of the same package as its child (verified on 7.7.7).
  kilo: {
    executable: 'kilo',
    basenames: ['kilo', 'kilocode', '.kilo'],
    packages: ['@kilocode/cli'],
    packagePrefixes: ['@kilocode/cli-'],
  },
  qodercli: { executable: 'qodercli', basenames: ['qodercli'], packages: ['@qoder-ai/qodercli'], guess: true },
  // Qwen Code: `node …/.bin/qwen` (cli-entry.js) relaunches `node --expose-gc …/cli.js`, which
  // relaunches itself once more: three node processes of one package (verified on 0.24.4).
  qwen: { executable: 'qwen', basenames: ['qwen'], packages: ['@qwen-code/qwen-code'] },
  letta: { executable: 'letta', basenames: ['letta'], packages: ['@letta-ai/letta-code'], guess: true },
  maki: { executable: 'maki', basenames: ['maki'], packages: [], guess: true },
  muse: { executable: 'muse', basenames: ['muse'], packages: [], guess: true },
};

/** True when `value` names a kind. */
export function isAgentKind(value: string): value is AgentKind {
  return (AGENT_KINDS as readonly string[]).includes(value);
}

/** The executable `agent start --kind K` runs. */
export function kindExecutable(kind: AgentKind): string {
  return KIND_INFO[kind].executable;
}

/** The executable for a kind name given as plain text (unknown names run as themselves). */
export function canonicalExecutable(kind: string): string {
  return isAgentKind(kind) ? KIND_INFO[kind].executable : kind;
}

const BY_BASENAME = new Map<string, AgentKind>();
const BY_PACKAGE = new Map<string, AgentKind>();
const BY_PYTHON_MODULE = new Map<string, AgentKind>();
for (const kind of AGENT_KINDS) {
  const info = KIND_INFO[kind];
  for (const name of info.basenames) BY_BASENAME.set(name, kind);
  for (const name of info.packages) BY_PACKAGE.set(name, kind);
  for (const name of info.pythonModules ?? []) BY_PYTHON_MODULE.set(name, kind);
}

/** The kind an executable or script basename (extension already stripped) means. */
export function kindByBasename(name: string): AgentKind | undefined {
  return BY_BASENAME.get(name);
}

/** The kind an npm/PyPI package name means, including per-platform binary packages. */
export function kindByPackage(name: string): AgentKind | undefined {
  const exact = BY_PACKAGE.get(name);
  if (exact) return exact;
  for (const kind of AGENT_KINDS) {
    if (KIND_INFO[kind].packagePrefixes?.some((prefix) => name.startsWith(prefix))) return kind;
  }
  return undefined;
}

/** The kind a `python -m` module (or its top-level package) means. */
export function kindByPythonModule(name: string): AgentKind | undefined {
  return BY_PYTHON_MODULE.get(name.split('.')[0] ?? name);
}

/** The kind whose standalone-install path fragment occurs in `path`. */
export function kindByPathFragment(path: string): AgentKind | undefined {
  for (const kind of AGENT_KINDS) {
    if (KIND_INFO[kind].pathFragments?.some((fragment) => path.includes(fragment))) return kind;
  }
  return undefined;
}
