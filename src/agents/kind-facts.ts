/**
 * Per-kind facts, read from the rule files shipped with corral (assets/agents/<kind>.toml):
 * how each kind's process is recognised (`[process]`, matched by process-detect.ts), the
 * pause before a prompt's Enter (`submit_delay_ms`) and the handler format of its own hook
 * config (`[hooks]`). They are data so that an agent renaming its binary or changing its
 * input handling is a one-line change in its file, like its screen rules.
 *
 * Read from every shipped file — not from the rules in use — so `CORRAL_AGENT_RULES=generic`
 * (screen rules set aside) still types `cursor-agent` and still pauses before Codex's Enter.
 * Process entries verified on this machine (test/unit/agent-process.test.ts fixtures):
 * claude 2.1.197, gemini 0.61.0, codex 0.171.0, qwen 0.24.4, pi 0.73.1, kilo 7.7.7; entries
 * with `guess = true` come from the tools' public install docs as remembered.
 */
import { AGENT_KINDS, isAgentKind, type AgentKind } from './kinds.js';
import { forgottenKinds, loadAllRules } from './rules.js';
import { RULE_DEFAULTS, type HookFormat, type KindProcess } from './rules-schema.js';

interface KindTable {
  process: ReadonlyMap<AgentKind, KindProcess>;
  submitDelayMs: ReadonlyMap<AgentKind, number>;
  hooks: ReadonlyMap<AgentKind, HookFormat>;
  byBasename: ReadonlyMap<string, AgentKind>;
  byPackage: ReadonlyMap<string, AgentKind>;
  byPythonModule: ReadonlyMap<string, AgentKind>;
}

/** Read once, on first use: the shipped files do not change while corral runs. */
let loaded: KindTable | null = null;

/**
 * Builds the table from parsed rule files; throws when a SPEC §2 kind has no `[process]`.
 * Forgotten kinds (`CORRAL_FORGET_KINDS`, src/agents/rules.ts) are left out: their programs are
 * not recognised, `agent start --kind K` refuses them, prompts get the default Enter delay.
 */
export function buildKindTable(
  all: ReadonlyMap<string, { file: string; process: KindProcess | null; submitDelayMs: number; hooks: HookFormat | null }>,
  forgotten: ReadonlySet<string> = new Set(),
): KindTable {
  const process = new Map<AgentKind, KindProcess>();
  const submitDelayMs = new Map<AgentKind, number>();
  const hooks = new Map<AgentKind, HookFormat>();
  const byBasename = new Map<string, AgentKind>();
  const byPackage = new Map<string, AgentKind>();
  const byPythonModule = new Map<string, AgentKind>();
  for (const [kind, rules] of all) {
    if (rules.process && !isAgentKind(kind)) throw new Error(`${rules.file}: [process] is only for the agent kinds of SPEC §2, not "${kind}"`);
  }
  for (const kind of AGENT_KINDS) {
    const rules = all.get(kind);
    if (!rules?.process) throw new Error(`${rules?.file ?? `assets/agents/${kind}.toml`}: the ${kind} agent needs a [process] table`);
    if (forgotten.has(kind)) continue;
    process.set(kind, rules.process);
    submitDelayMs.set(kind, rules.submitDelayMs);
    if (rules.hooks) hooks.set(kind, rules.hooks);
    for (const name of rules.process.basenames) byBasename.set(name, kind);
    for (const name of rules.process.packages) byPackage.set(name, kind);
    for (const name of rules.process.pythonModules) byPythonModule.set(name, kind);
  }
  return { process, submitDelayMs, hooks, byBasename, byPackage, byPythonModule };
}

function table(): KindTable {
  loaded ??= buildKindTable(loadAllRules(), forgottenKinds());
  return loaded;
}

/** How one kind's processes are recognised; undefined for a forgotten kind. */
export function kindProcess(kind: AgentKind): KindProcess | undefined {
  return table().process.get(kind);
}

/** True when corral knows `kind` (a SPEC §2 kind not forgotten with `CORRAL_FORGET_KINDS`). */
export function isKnownKind(kind: string): kind is AgentKind {
  return isAgentKind(kind) && table().process.has(kind);
}

/** The executable `agent start --kind K` runs (K itself when forgotten). */
export function kindExecutable(kind: AgentKind): string {
  return kindProcess(kind)?.executable ?? kind;
}

/** The executable for a kind name given as plain text (unknown and forgotten names run as themselves). */
export function canonicalExecutable(kind: string): string {
  return isAgentKind(kind) ? kindExecutable(kind) : kind;
}

/** The kind an executable or script basename (extension already stripped) means. */
export function kindByBasename(name: string): AgentKind | undefined {
  return table().byBasename.get(name);
}

/** The kind an npm/PyPI package name means, including per-platform binary packages. */
export function kindByPackage(name: string): AgentKind | undefined {
  const { byPackage, process } = table();
  const exact = byPackage.get(name);
  if (exact) return exact;
  for (const kind of AGENT_KINDS) {
    if (process.get(kind)?.packagePrefixes.some((prefix) => name.startsWith(prefix))) return kind;
  }
  return undefined;
}

/** The kind a `python -m` module (or its top-level package) means. */
export function kindByPythonModule(name: string): AgentKind | undefined {
  return table().byPythonModule.get(name.split('.')[0] ?? name);
}

/** The kind whose standalone-install path fragment occurs in `path`. */
export function kindByPathFragment(path: string): AgentKind | undefined {
  const { process } = table();
  for (const kind of AGENT_KINDS) {
    if (process.get(kind)?.pathFragments.some((fragment) => path.includes(fragment))) return kind;
  }
  return undefined;
}

/** Pause between a prompt's text and its Enter for an agent of `kind` (any detected name). */
export function submitDelayMs(kind: string): number {
  return (isAgentKind(kind) ? table().submitDelayMs.get(kind) : undefined) ?? RULE_DEFAULTS.submitDelayMs;
}

/** How `kind`'s own hook config takes corral's handler; null when corral installs no hooks there. */
export function hookFormat(kind: AgentKind): HookFormat | null {
  return table().hooks.get(kind) ?? null;
}
