/**
 * Which of the running server's names a word on the command line takes, for shell completion
 * (SPEC §17): `corral read <TAB>` a selector, `corral pane read <TAB>` a pane id, `corral agent
 * prompt <TAB>` an agent, `corral worktree merge <TAB>` a worktree, `--machine <TAB>` a machine.
 * Verbs, flags and choices are yargs' business; this table only says where names go.
 */

/** The kinds of names the server can list. */
export type NameKind = 'target' | 'pane' | 'agent' | 'workspace' | 'tab' | 'worktree' | 'machine';

/**
 * The names each verb's positionals take, in order, by the verb's words (`pane swap [pane]
 * [other]`: two panes). A verb not listed, or a positional past its list, takes none.
 */
export const POSITIONAL_NAMES: Readonly<Record<string, readonly NameKind[]>> = {
  // Conductor verbs: a selector (pane id, agent or pane name, …).
  read: ['target'],
  search: ['target'],
  send: ['target'],
  key: ['target'],
  focus: ['target'],
  status: ['target'],
  'workspace get': ['workspace'],
  'workspace focus': ['workspace'],
  'workspace rename': ['workspace'],
  'workspace close': ['workspace'],
  'tab get': ['tab'],
  'tab focus': ['tab'],
  'tab rename': ['tab'],
  'tab close': ['tab'],
  // herdr's pane verbs take a pane id (no names).
  'pane split': ['pane'],
  'pane move': ['pane'],
  'pane get': ['pane'],
  'pane focus': ['pane'],
  'pane rename': ['pane'],
  'pane close': ['pane'],
  'pane zoom': ['pane'],
  'pane resize': ['pane'],
  'pane swap': ['pane', 'pane'],
  'pane read': ['pane'],
  'pane run': ['pane'],
  'pane send-text': ['pane'],
  'pane send-keys': ['pane'],
  'pane wait-output': ['pane'],
  'agent get': ['agent'],
  'agent rename': ['agent'],
  'agent prompt': ['agent'],
  'agent wait': ['agent'],
  'agent read': ['agent'],
  'agent send-keys': ['agent'],
  'agent focus': ['agent'],
  'agent explain': ['agent'],
  'agent diff': ['agent'],
  'agent merge': ['agent'],
  'agent release': ['agent'],
  'worktree diff': ['worktree'],
  'worktree merge': ['worktree'],
  'worktree discard': ['worktree'],
  'machine remove': ['machine'],
  'machine enable': ['machine'],
  'machine disable': ['machine'],
  'machine test': ['machine'],
  'machine install': ['machine'],
};

/** The names a flag's value takes; `verbs` where the flag means that only under those verbs. */
export const FLAG_NAMES: Readonly<Record<string, { kind: NameKind; verbs?: readonly string[] }>> = {
  machine: { kind: 'machine' },
  pane: { kind: 'pane' },
  workspace: { kind: 'workspace' },
  tab: { kind: 'tab' },
  surface: { kind: 'target' },
  // `wait --match SELECTOR`; `pane wait-output --match` is text.
  match: { kind: 'target', verbs: ['wait'] },
};

/** What the word being completed is. */
export type Slot =
  /** A flag's value (`--source <TAB>`): `flag` is its name, `kind` what names it takes, if any. */
  | { type: 'value'; flag: string; kind: NameKind | null; prefix: string }
  /** A positional (or a verb): `kind` is what names it takes, if any. */
  | { type: 'positional'; kind: NameKind | null }
  /** A flag being typed (`--so<TAB>`). */
  | { type: 'flag' };

/**
 * The slot of the last of `words` (the command line up to the cursor, program first), given
 * `positionals`, the words yargs parsed as positionals (argv._, program first), and `values`,
 * the flags' values yargs parsed (argv).
 */
export function slotOf(words: readonly string[], positionals: readonly string[], values: Readonly<Record<string, unknown>>): Slot {
  const current = words.at(-1) ?? '';
  const previous = words.length > 1 ? words.at(-2)! : '';
  const verbs = positionals.slice(1);
  const inline = /^--([A-Za-z][\w-]*)=/.exec(current);
  if (inline) return { type: 'value', flag: inline[1]!, kind: flagKind(inline[1]!, verbs), prefix: inline[0] };
  if (current.startsWith('-')) return { type: 'flag' };
  const flag = /^--?([A-Za-z][\w-]*)$/.exec(previous)?.[1];
  if (flag !== undefined && tookValue(values[flag], current)) return { type: 'value', flag, kind: flagKind(flag, verbs), prefix: '' };
  // A positional: yargs' positionals end with it; the verb's words come first.
  const before = verbs.slice(0, -1);
  const verb = longestVerb(before);
  const kinds = verb === null ? [] : POSITIONAL_NAMES[verb.join(' ')]!;
  return { type: 'positional', kind: verb === null ? null : (kinds[before.length - verb.length] ?? null) };
}

/** yargs gave the flag `value`: the word being completed (the last of an array flag's). */
function tookValue(value: unknown, current: string): boolean {
  return value === current || (Array.isArray(value) && value.at(-1) === current);
}

function flagKind(flag: string, verbs: readonly string[]): NameKind | null {
  const entry = FLAG_NAMES[flag];
  if (!entry) return null;
  if (entry.verbs && !entry.verbs.some((verb) => startsWith(verbs, verb.split(' ')))) return null;
  return entry.kind;
}

/** The longest verb of POSITIONAL_NAMES that `words` start with, as words. */
function longestVerb(words: readonly string[]): string[] | null {
  let best: string[] | null = null;
  for (const verb of Object.keys(POSITIONAL_NAMES)) {
    const parts = verb.split(' ');
    if (startsWith(words, parts) && (best === null || parts.length > best.length)) best = parts;
  }
  return best;
}

function startsWith(words: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= words.length && prefix.every((word, i) => words[i] === word);
}
