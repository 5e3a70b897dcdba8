/**
 * The agent screen-rule files (`assets/agents/<kind>.toml`, SPEC §4 "Screen"): their types
 * and a strict, pure parser. Rules are data so that an agent's UI update is a one-line
 * change with a fixture, herdr-style; a typo in a rule file must fail loudly with the file,
 * line and key rather than silently never match. Schema: docs/agent-rules.md.
 */
import { parse, TomlError } from 'smol-toml';
import { isTable, scanDefinitions, tomlSyntaxIssue, type TomlTable } from '../config/toml-locate.js';
import { describe, plainTable, type Fail } from './rule-table.js';
import { parseAnswerScreen, parseAnswerSession, type ScreenAnswerSpec, type SessionAnswerSpec } from './answer-spec.js';
import { parseUsage, type UsageSpec } from './usage-spec.js';

/** What a screen rule can conclude; `done` and the rest are the state machine's business. */
export type ScreenStatus = 'working' | 'blocked' | 'idle' | 'unknown';

/** Where a rule looks. `bottom` counts from the last non-blank screen line. */
export type RuleRegion =
  | { kind: 'bottom'; lines: number }
  | { kind: 'screen' }
  | { kind: 'title' }
  | { kind: 'progress' };

/**
 * For blocked rules: what becomes the agent's `message` — the matched line, the whole
 * region, or the block around the match (from below the frame top or rule line above it
 * to the end of the region), which is the dialog itself without the transcript above.
 */
export type MessageSource = 'line' | 'region' | 'block';

/** One compiled rule; `test` runs against a single line (or the title / progress string). */
export interface Rule {
  id: string;
  state: ScreenStatus;
  priority: number;
  region: RuleRegion;
  /** The region as written in the file (`bottom:15`), for explain output. */
  regionText: string;
  /** `contains "…"` or `regex /…/i`, for explain output. */
  pattern: string;
  message: MessageSource | null;
  /**
   * An idle screen that shows the turn was cut short (Esc): the agent is idle but finished
   * nothing, so it is not `done` and gets no `completion_seq`.
   */
  interrupted: boolean;
  /** The rule file as shown in messages, and the 1-based line of its `[[rule]]` header. */
  file: string;
  line: number;
  test: (text: string) => boolean;
}

/** All screen rules of one agent kind, sorted by priority (highest first, then file order). */
export interface AgentRules {
  kind: string;
  file: string;
  /** How long an idle screen must hold after working before the state machine believes it. */
  idleConfirmMs: number;
  /** The agent version the rules were proven against on real captures; null = best effort. */
  verifiedWith: string | null;
  /**
   * For unverified files: what the guesses rest on (docs, a fork's verified rules, shared
   * idioms). Required when `verifiedWith` is null, so no guess passes for a proven rule.
   */
  evidence: string | null;
  /**
   * Kind-independent rules (generic.toml): used for agents corral has no rules for; their
   * verdicts are marked as such in explain, `ps` and fleet rows.
   */
  generic: boolean;
  /** How to resume one of this agent's own sessions (SPEC §13), or null when not known. */
  resume: ResumeSpec | null;
  /**
   * How a transcript read scrolls the agent's own view (`transcript_scroll`): "wheel" (the
   * default) sends SGR mouse-wheel reports; "page-keys" sends PageUp/PageDown, for an agent
   * that takes the mouse but does not scroll its conversation on wheel input (Kilo 7.7.7).
   */
  transcriptScroll: TranscriptScroll;
  /** How this kind's processes are recognised (`[process]`); null for generic.toml. */
  process: KindProcess | null;
  /** Pause between a prompt's text and its Enter (`submit_delay_ms`). */
  submitDelayMs: number;
  /** How the agent's own hook config takes a handler (`[hooks]`); null when corral installs none. */
  hooks: HookFormat | null;
  /**
   * The keys that answer its permission prompts (`[answers]`: label → key names, in file
   * order), for the web view's buttons (SPEC §16); empty when the file declares none.
   */
  answers: readonly AgentAnswer[];
  /** How to read its answers from its own session record (`[answer_session]`); null when not known. */
  answerSession: SessionAnswerSpec | null;
  /** How its screen sets an answer apart from its UI (`[answer_screen]`); null: generic chrome only. */
  answerScreen: ScreenAnswerSpec | null;
  /** Where its own record keeps its token counts (`[usage]`, SPEC §18); null when not known. */
  usage: UsageSpec | null;
  /** The keys that interrupt its turn (`[keys] interrupt`, key names as `send-keys` takes them); empty when not declared. */
  interruptKeys: readonly string[];
  rules: readonly Rule[];
}

/** One answer to a blocked agent's prompt: a label (`allow once`) and the named keys it presses. */
export interface AgentAnswer {
  label: string;
  keys: readonly string[];
}

/**
 * What identifies one kind's process (`[process]`, matched by src/agents/process-detect.ts):
 * the executable `agent start --kind K` types, the basenames its launchers go by, the npm
 * (or PyPI) packages its scripts and native binaries live in, and path fragments of
 * standalone installers.
 */
export interface KindProcess {
  /** What `agent start --kind K` types at the shell. */
  executable: string;
  /** Executable or script basenames (without .js/.cjs/.mjs/.exe) that mean this kind. */
  basenames: readonly string[];
  /** npm/PyPI package names whose files (scripts, native binaries) mean this kind. */
  packages: readonly string[];
  /** Package-name prefixes for per-platform binary packages (`@openai/codex-linux-x64`). */
  packagePrefixes: readonly string[];
  /** Python modules run with `python -m`. */
  pythonModules: readonly string[];
  /** Path fragments of standalone installs whose binaries carry no telling basename. */
  pathFragments: readonly string[];
  /** True when the entry is not verified against a real install. */
  guess: boolean;
}

export const HOOK_TIMEOUT_UNITS = ['s', 'ms'] as const;
export type HookTimeoutUnit = (typeof HOOK_TIMEOUT_UNITS)[number];

/** The agent-specific part of a hook handler corral writes into the agent's own config. */
export interface HookFormat {
  /** How long the agent lets `corral hook` run. */
  timeoutMs: number;
  /** The unit the agent reads `timeout` in. */
  timeoutUnit: HookTimeoutUnit;
}

export const TRANSCRIPT_SCROLLS = ['wheel', 'page-keys'] as const;
export type TranscriptScroll = (typeof TRANSCRIPT_SCROLLS)[number];

/** The agent's own session id and the argv that resumes it, as data (`[resume]`). */
export interface ResumeSpec {
  /** Arguments that resume session `{id}`, e.g. ["--resume", "{id}"]. */
  args: readonly string[];
  /** Where the session id comes from (hook payload field, session file path), for people. */
  idFrom: string;
  /** The agent version this was checked on in the lab; null when not checked. */
  verifiedWith: string | null;
  /**
   * Options of the agent's command line that take a value, so the value is not taken for a
   * prompt (`value_options`): `--model` one value, `--debug?` an optional one (taken unless
   * the next word is an option), `--add-dir...` every word up to the next option.
   */
  valueOptions: ReadonlyMap<string, OptionArity>;
  /** Options dropped from a resumed argv, with their values: they pick or start another session, or re-send a prompt (`drop_options`). */
  dropOptions: ReadonlySet<string>;
  /** Positional words are kept (Kilo's is a project directory); by default they are a prompt and dropped (`keep_positionals`). */
  keepPositionals: boolean;
  /** Where the agent's session files give its id without hooks, tried in order (`session_files`; src/agents/session-files.ts). */
  sessionFiles: readonly SessionFileSpec[];
}

/** One place an agent keeps its sessions (`[[resume.session_files]]`-style inline tables). */
export interface SessionFileSpec {
  /** Path template: `~`, `$NAME`, `${NAME:-default}`, `*` (one component), `{pid}`, `{id}`. */
  path: string;
  /** JSON key of the id in the file's first record; null when the name holds `{id}`. */
  idKey: string | null;
  /** "content", "none", or a file name in a parent directory that holds the cwd. */
  cwdIn: string;
  /**
   * A log the agent appends to, read line by line from its end (`line`): a regex with named
   * groups `id` and `time` (ISO), and `cwd` when the line names the directory (OpenCode keeps
   * its sessions in SQLite; only its log names a new session's id with its directory).
   */
  line?: RegExp;
}

/** How many words after an option are its value. */
export type OptionArity = 'one' | 'optional' | 'many';

/** One problem in a rule file, with a complete `file:line: …` message. */
export interface RuleFileIssue {
  message: string;
  line: number | null;
  key: string | null;
}

/** A rule file that failed to parse or validate; `message` lists every issue, one per line. */
export class RuleFileError extends Error {
  readonly file: string;
  readonly issues: readonly RuleFileIssue[];
  constructor(file: string, issues: readonly RuleFileIssue[]) {
    super(issues.map((i) => i.message).join('\n'));
    this.name = 'RuleFileError';
    this.file = file;
    this.issues = issues;
  }
  /** The line of the first issue (null if unknown). */
  get line(): number | null {
    return this.issues[0]?.line ?? null;
  }
  /** The key of the first issue (null if none). */
  get key(): string | null {
    return this.issues[0]?.key ?? null;
  }
}

export const RULE_DEFAULTS = {
  /**
   * Agents redraw their footer between streamed chunks and tool calls; half a second of a
   * steady idle screen rides over those gaps without making "done" feel late.
   */
  idleConfirmMs: 500,
  /** A blocked message is shown in a sidebar and sent in events: a few lines, not a screen. */
  maxMessageChars: 500,
  /** A minute is far longer than any UI redraw gap; more is surely a typo (seconds vs ms). */
  maxIdleConfirmMs: 60_000,
  /** Most agents only need the prompt's text to have been read before its Enter arrives. */
  submitDelayMs: 200,
  /** A prompt waiting longer than this for its Enter would look hung; more is surely a typo. */
  maxSubmitDelayMs: 10_000,
  /** A hook that may block the agent for over a minute is surely a typo. */
  maxHookTimeoutMs: 60_000,
} as const;

const STATES: readonly ScreenStatus[] = ['working', 'blocked', 'idle', 'unknown'];
const TOP_KEYS = ['kind', 'idle_confirm_ms', 'verified_with', 'evidence', 'generic', 'resume', 'transcript_scroll', 'process', 'submit_delay_ms', 'hooks', 'answers', 'answer_session', 'answer_screen', 'usage', 'keys', 'rule'] as const;
const PROCESS_KEYS = ['executable', 'basenames', 'packages', 'package_prefixes', 'python_modules', 'path_fragments', 'guess'] as const;
const HOOKS_KEYS = ['timeout_ms', 'timeout_unit'] as const;
const RESUME_KEYS = ['args', 'id_from', 'verified_with', 'value_options', 'drop_options', 'keep_positionals', 'session_files'] as const;
const SESSION_FILE_KEYS = ['path', 'id_key', 'cwd_in', 'line'] as const;
/** `--name`, `-n`, with `?` (optional value) or `...` (many) in value_options. */
const OPTION_SPEC_RE = /^(--?[A-Za-z0-9][A-Za-z0-9_-]*)(\?|\.\.\.)?$/;
const RULE_KEYS = ['id', 'state', 'priority', 'region', 'contains', 'regex', 'ignore_case', 'message', 'interrupted'] as const;
/** Rule ids appear in explain output and tests; a closed alphabet keeps them greppable. */
const RULE_ID_RE = /^[a-z0-9][a-z0-9-]{0,63}$/;
/** Kinds become file names and CLI words (SPEC §2 lists them all lower-case). */
const KIND_RE = /^[a-z][a-z0-9_-]{0,31}$/;
const BOTTOM_RE = /^bottom:([1-9][0-9]{0,3})$/;

type Table = TomlTable;

/** Parses `bottom:N`, `screen`, `title` or `progress`; null when invalid. */
export function parseRegion(text: string): RuleRegion | null {
  if (text === 'screen' || text === 'title' || text === 'progress') return { kind: text };
  const m = BOTTOM_RE.exec(text);
  return m ? { kind: 'bottom', lines: Number(m[1]) } : null;
}

/** Where keys are defined (1-based lines): top-level keys, and each `[[rule]]` header with its keys. */
interface KeyLines {
  top: Map<string, number>;
  /** Keys of plain tables (`[process]`), as `table.key`. */
  nested: Map<string, number>;
  blocks: { header: number; keys: Map<string, number> }[];
}

function locateKeyLines(text: string): KeyLines {
  const lines = text.split(/\r?\n/);
  const found: KeyLines = { top: new Map(), nested: new Map(), blocks: [] };
  for (const def of scanDefinitions(text)) {
    const [head, key] = def.path;
    if (def.path.length === 1 && head === 'rule' && lines[def.line - 1].trimStart().startsWith('[[')) {
      found.blocks.push({ header: def.line, keys: new Map() });
    } else if (head === 'rule' && key !== undefined && found.blocks.length > 0) {
      const keys = found.blocks[found.blocks.length - 1].keys;
      if (!keys.has(key)) keys.set(key, def.line);
    } else if (def.path.length === 1 && !found.top.has(head)) {
      found.top.set(head, def.line);
    } else if (def.path.length === 2 && head !== 'rule' && !found.nested.has(def.path.join('.'))) {
      found.nested.set(def.path.join('.'), def.line);
    }
  }
  return found;
}

/**
 * Parses and validates one rule file; `file` is used only in messages (and, when it ends in
 * `.toml`, must be named after the kind). Pure: throws RuleFileError listing every problem.
 */
export function parseRules(text: string, file: string): AgentRules {
  let raw: Table;
  try {
    raw = parse(text) as Table;
  } catch (err) {
    if (!(err instanceof TomlError)) throw err;
    const { message, line, key } = tomlSyntaxIssue(err, text, file);
    throw new RuleFileError(file, [{ message, line, key }]);
  }

  const issues: RuleFileIssue[] = [];
  const { top: topLines, nested: nestedLines, blocks } = locateKeyLines(text);
  const fail = (line: number | null, key: string | null, what: string): void => {
    issues.push({ message: `${file}${line === null ? '' : `:${line}`}: ${what}`, line, key });
  };

  for (const key of Object.keys(raw)) {
    if (!(TOP_KEYS as readonly string[]).includes(key)) fail(topLines.get(key) ?? null, key, `unknown key "${key}"`);
  }

  const kind = raw.kind;
  if (typeof kind !== 'string' || !KIND_RE.test(kind)) {
    fail(topLines.get('kind') ?? null, 'kind', kind === undefined ? 'missing key "kind"' : `key "kind" must be a lower-case agent kind, got ${describe(kind)}`);
  } else {
    const base = file.replace(/\\/g, '/').split('/').pop() ?? '';
    if (base.endsWith('.toml') && base !== `${kind}.toml`) fail(topLines.get('kind') ?? null, 'kind', `kind "${kind}" does not match the file name "${base}"`);
  }

  let idleConfirmMs: number = RULE_DEFAULTS.idleConfirmMs;
  if (raw.idle_confirm_ms !== undefined) {
    const v = raw.idle_confirm_ms;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > RULE_DEFAULTS.maxIdleConfirmMs) {
      fail(topLines.get('idle_confirm_ms') ?? null, 'idle_confirm_ms', `key "idle_confirm_ms" must be an integer from 0 to ${RULE_DEFAULTS.maxIdleConfirmMs}, got ${describe(v)}`);
    } else idleConfirmMs = v;
  }

  let verifiedWith: string | null = null;
  if (raw.verified_with !== undefined) {
    if (typeof raw.verified_with !== 'string' || raw.verified_with === '') fail(topLines.get('verified_with') ?? null, 'verified_with', `key "verified_with" must be a non-empty string, got ${describe(raw.verified_with)}`);
    else verifiedWith = raw.verified_with;
  }

  let evidence: string | null = null;
  if (raw.evidence !== undefined) {
    if (typeof raw.evidence !== 'string' || raw.evidence.trim() === '') fail(topLines.get('evidence') ?? null, 'evidence', `key "evidence" must be a non-empty string, got ${describe(raw.evidence)}`);
    else evidence = raw.evidence;
  }
  const generic = raw.generic === true;
  if (raw.generic !== undefined && typeof raw.generic !== 'boolean') fail(topLines.get('generic') ?? null, 'generic', `key "generic" must be true or false, got ${describe(raw.generic)}`);
  const resume = parseResume(raw.resume, topLines.get('resume') ?? null, fail);
  let transcriptScroll: TranscriptScroll = 'wheel';
  if (raw.transcript_scroll !== undefined) {
    if (!(TRANSCRIPT_SCROLLS as readonly unknown[]).includes(raw.transcript_scroll)) {
      fail(topLines.get('transcript_scroll') ?? null, 'transcript_scroll', `key "transcript_scroll" must be one of ${TRANSCRIPT_SCROLLS.map((m) => `"${m}"`).join(', ')}, got ${describe(raw.transcript_scroll)}`);
    } else transcriptScroll = raw.transcript_scroll as TranscriptScroll;
  }

  const tableLine = (table: string) => (key: string): number | null => nestedLines.get(`${table}.${key}`) ?? topLines.get(table) ?? null;
  const processInfo = parseProcess(raw.process, tableLine('process'), fail);
  const hooks = parseHooks(raw.hooks, tableLine('hooks'), fail);
  const answers = parseAnswers(raw.answers, tableLine('answers'), fail);
  const answerSession = parseAnswerSession(raw.answer_session, tableLine('answer_session'), fail);
  const answerScreen = parseAnswerScreen(raw.answer_screen, tableLine('answer_screen'), fail);
  const usage = parseUsage(raw.usage, tableLine('usage'), fail);
  if (usage !== null && usage.sqlite === null && answerSession === null) {
    fail(topLines.get('usage') ?? null, 'usage', '[usage] without sqlite reads the session record: it needs [answer_session]');
  }
  const interruptKeys = parseKeys(raw.keys, tableLine('keys'), fail);
  // The record is found through the files `[resume] session_files` locate by the session id.
  // The record is found through the files `[resume] session_files` locate by the session id
  // (an invalid [resume] is reported on its own).
  const resumeReported = raw.resume !== undefined && resume === null;
  if (raw.answer_session !== undefined && !resumeReported && (resume?.sessionFiles.length ?? 0) === 0) {
    fail(topLines.get('answer_session') ?? null, 'answer_session', '[answer_session] needs [resume] session_files: they locate the session record by its id');
  }
  let submitDelayMs: number = RULE_DEFAULTS.submitDelayMs;
  if (raw.submit_delay_ms !== undefined) {
    const v = raw.submit_delay_ms;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > RULE_DEFAULTS.maxSubmitDelayMs) {
      fail(topLines.get('submit_delay_ms') ?? null, 'submit_delay_ms', `key "submit_delay_ms" must be an integer from 0 to ${RULE_DEFAULTS.maxSubmitDelayMs}, got ${describe(v)}`);
    } else submitDelayMs = v;
  }

  const rules: Rule[] = [];
  const rawRules = raw.rule;
  if (rawRules === undefined) {
    fail(null, 'rule', 'no [[rule]] entries');
  } else if (!Array.isArray(rawRules)) {
    fail(topLines.get('rule') ?? null, 'rule', 'key "rule" must be an array of tables ([[rule]])');
  } else {
    const seen = new Map<string, number>();
    rawRules.forEach((entry: unknown, index) => {
      const block = blocks[index];
      const header = block?.header ?? topLines.get('rule') ?? null;
      const lineOf = (key: string): number | null => block?.keys.get(key) ?? header;
      if (!isTable(entry)) {
        fail(header, 'rule', `[[rule]] #${index + 1} must be a table`);
        return;
      }
      const id = typeof entry.id === 'string' ? entry.id : null;
      const label = id === null ? `[[rule]] #${index + 1}` : `[[rule]] "${id}"`;
      const bad = (key: string, what: string): void => fail(lineOf(key), key, `${what} in ${label}`);
      const before = issues.length;

      for (const key of Object.keys(entry)) {
        if (!(RULE_KEYS as readonly string[]).includes(key)) bad(key, `unknown key "${key}"`);
      }
      if (id === null || !RULE_ID_RE.test(id)) {
        bad('id', entry.id === undefined ? 'missing key "id"' : `key "id" must match ${RULE_ID_RE.source}, got ${describe(entry.id)}`);
      } else if (seen.has(id)) {
        bad('id', `duplicate rule id "${id}" (first defined on line ${seen.get(id)})`);
      } else seen.set(id, lineOf('id') ?? 0);

      const state = entry.state;
      if (typeof state !== 'string' || !(STATES as readonly string[]).includes(state)) {
        bad('state', state === undefined ? 'missing key "state"' : `key "state" must be one of ${STATES.join(' | ')}, got ${describe(state)}`);
      }
      const priority = entry.priority;
      if (typeof priority !== 'number' || !Number.isInteger(priority)) {
        bad('priority', priority === undefined ? 'missing key "priority"' : `key "priority" must be an integer, got ${describe(priority)}`);
      }
      const regionText = entry.region;
      const region = typeof regionText === 'string' ? parseRegion(regionText) : null;
      if (region === null) {
        bad('region', regionText === undefined ? 'missing key "region"' : `bad region ${describe(regionText)}: use bottom:N (1-9999), screen, title or progress`);
      }
      const ignoreCase = entry.ignore_case ?? false;
      if (typeof ignoreCase !== 'boolean') bad('ignore_case', `key "ignore_case" must be true or false, got ${describe(ignoreCase)}`);

      let test: ((s: string) => boolean) | null = null;
      let pattern = '';
      const hasContains = entry.contains !== undefined;
      const hasRegex = entry.regex !== undefined;
      if (hasContains && hasRegex) {
        bad('regex', 'both "contains" and "regex" set (use exactly one)');
      } else if (!hasContains && !hasRegex) {
        bad('contains', 'missing key "contains" or "regex"');
      } else if (hasContains) {
        const needle = entry.contains;
        if (typeof needle !== 'string' || needle === '') bad('contains', `key "contains" must be a non-empty string, got ${describe(needle)}`);
        else {
          pattern = `contains ${JSON.stringify(needle)}${ignoreCase === true ? ' (ignore case)' : ''}`;
          if (ignoreCase === true) {
            const lower = needle.toLowerCase();
            test = (s) => s.toLowerCase().includes(lower);
          } else test = (s) => s.includes(needle);
        }
      } else {
        const source = entry.regex;
        if (typeof source !== 'string' || source === '') bad('regex', `key "regex" must be a non-empty string, got ${describe(source)}`);
        else {
          try {
            // Compiled once here: evaluation runs on every settled screen change of every agent.
            const re = new RegExp(source, ignoreCase === true ? 'iu' : 'u');
            pattern = `regex /${source}/${ignoreCase === true ? 'i' : ''}`;
            test = (s) => re.test(s);
          } catch (err) {
            bad('regex', `invalid regex ${JSON.stringify(source)}: ${(err as Error).message}`);
          }
        }
      }

      const message = entry.message;
      if (message !== undefined) {
        if (message !== 'line' && message !== 'region' && message !== 'block') {
          bad('message', `key "message" must be "line", "region" or "block", got ${describe(message)}`);
        }
        else if (state !== 'blocked') bad('message', 'key "message" is only meaningful for state = "blocked"');
      }

      const interrupted = entry.interrupted ?? false;
      if (typeof interrupted !== 'boolean') bad('interrupted', `key "interrupted" must be true or false, got ${describe(interrupted)}`);
      else if (interrupted && state !== 'idle') bad('interrupted', 'key "interrupted" is only meaningful for state = "idle"');

      if (issues.length > before || test === null || region === null) return;
      rules.push({
        id: id as string,
        state: state as ScreenStatus,
        priority: priority as number,
        region,
        regionText: regionText as string,
        pattern,
        message: (message as MessageSource | undefined) ?? null,
        interrupted: interrupted === true,
        file,
        line: header ?? 0,
        test,
      });
    });
  }

  if (issues.length > 0) {
    issues.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity));
    throw new RuleFileError(file, issues);
  }
  // Stable sort: equal priorities keep file order, so the file reads top-down as a tie-break.
  rules.sort((a, b) => b.priority - a.priority);
  return { kind: kind as string, file, idleConfirmMs, verifiedWith, evidence, generic, resume, transcriptScroll, process: processInfo, submitDelayMs, hooks, answers, answerSession, answerScreen, usage, interruptKeys, rules };
}

/** The `[process]` table: `executable` and `basenames` required, the other lists optional. */
function parseProcess(raw: unknown, lineOf: (key: string) => number | null, fail: Fail): KindProcess | null {
  const opened = plainTable(raw, 'process', PROCESS_KEYS, lineOf, fail);
  if (!opened) return null;
  const { table: value } = opened;
  let ok = opened.ok;
  const bad = (key: string, what: string): void => {
    ok = false;
    fail(lineOf(key), `process.${key}`, `${what} in [process]`);
  };
  const names = (key: string, required: boolean): string[] => {
    const v = value[key];
    if (v === undefined) {
      if (required) bad(key, `missing key "${key}"`);
      return [];
    }
    if (!Array.isArray(v) || (required && v.length === 0) || !v.every((s) => typeof s === 'string' && s !== '')) {
      bad(key, `key "${key}" must be ${required ? 'a non-empty' : 'an'} array of non-empty strings, got ${describe(v)}`);
      return [];
    }
    return v as string[];
  };
  const executable = value.executable;
  if (typeof executable !== 'string' || !/^[A-Za-z0-9._-]+$/.test(executable)) {
    bad('executable', executable === undefined ? 'missing key "executable"' : `key "executable" must be a command name (letters, digits, . _ -), got ${describe(executable)}`);
  }
  const guess = value.guess ?? false;
  if (typeof guess !== 'boolean') bad('guess', `key "guess" must be true or false, got ${describe(guess)}`);
  const info: KindProcess = {
    executable: executable as string,
    basenames: names('basenames', true),
    packages: names('packages', false),
    packagePrefixes: names('package_prefixes', false),
    pythonModules: names('python_modules', false),
    pathFragments: names('path_fragments', false),
    guess: guess === true,
  };
  return ok ? info : null;
}

/** The `[hooks]` table: the handler timeout corral writes, and the unit the agent reads it in. */
function parseHooks(raw: unknown, lineOf: (key: string) => number | null, fail: Fail): HookFormat | null {
  const opened = plainTable(raw, 'hooks', HOOKS_KEYS, lineOf, fail);
  if (!opened) return null;
  const { table: value } = opened;
  let ok = opened.ok;
  const timeoutMs = value.timeout_ms;
  const unit = value.timeout_unit;
  if (typeof timeoutMs !== 'number' || !Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > RULE_DEFAULTS.maxHookTimeoutMs) {
    ok = false;
    fail(lineOf('timeout_ms'), 'hooks.timeout_ms', `${timeoutMs === undefined ? 'missing key "timeout_ms"' : `key "timeout_ms" must be an integer from 1 to ${RULE_DEFAULTS.maxHookTimeoutMs}, got ${describe(timeoutMs)}`} in [hooks]`);
  }
  if (!(HOOK_TIMEOUT_UNITS as readonly unknown[]).includes(unit)) {
    ok = false;
    fail(lineOf('timeout_unit'), 'hooks.timeout_unit', `key "timeout_unit" must be ${HOOK_TIMEOUT_UNITS.map((u) => `"${u}"`).join(' or ')}, got ${describe(unit)} in [hooks]`);
  } else if (unit === 's' && typeof timeoutMs === 'number' && timeoutMs % 1000 !== 0) {
    ok = false;
    fail(lineOf('timeout_ms'), 'hooks.timeout_ms', 'key "timeout_ms" must be whole seconds when timeout_unit = "s" in [hooks]');
  }
  return ok ? { timeoutMs: timeoutMs as number, timeoutUnit: unit as HookTimeoutUnit } : null;
}

/** An answer's label is a button's text: short, printable, no surrounding space. */
const ANSWER_LABEL_RE = /^[A-Za-z0-9][A-Za-z0-9 ,'()-]{0,39}$/;
/** A key name as `send-keys` takes it (src/terminal/keys.ts checks it when pressed). */
const ANSWER_KEY_RE = /^[A-Za-z0-9+]{1,16}$|^[!-~]$/;
/** Answers are pressed as a person would press them: a few keys, never a typed text. */
const MAX_ANSWER_KEYS = 4;

/** The `[keys]` table: `interrupt = ["esc"]`, the keys that cut a turn short (a budget presses them). */
function parseKeys(raw: unknown, lineOf: (key: string) => number | null, fail: Fail): string[] {
  const opened = plainTable(raw, 'keys', ['interrupt'], lineOf, fail);
  if (!opened) return [];
  const keys = opened.table.interrupt;
  if (keys === undefined) return [];
  if (!Array.isArray(keys) || keys.length === 0 || keys.length > MAX_ANSWER_KEYS || !keys.every((k) => typeof k === 'string' && ANSWER_KEY_RE.test(k))) {
    fail(lineOf('interrupt'), 'keys.interrupt', `key "interrupt" must be a list of 1–${MAX_ANSWER_KEYS} key names (as \`send-keys\` takes them), got ${describe(keys)} in [keys]`);
    return [];
  }
  return keys as string[];
}

/** The `[answers]` table: `"allow once" = ["1"]`, one entry per button, in file order. */
function parseAnswers(raw: unknown, lineOf: (key: string) => number | null, fail: Fail): AgentAnswer[] {
  if (raw === undefined) return [];
  if (!isTable(raw)) {
    fail(lineOf(''), 'answers', 'key "answers" must be a table ([answers])');
    return [];
  }
  const answers: AgentAnswer[] = [];
  for (const [label, keys] of Object.entries(raw)) {
    if (!ANSWER_LABEL_RE.test(label)) {
      fail(lineOf(label), `answers.${label}`, `answer label ${JSON.stringify(label)} must be 1–40 letters, digits, spaces or ,'()- in [answers]`);
      continue;
    }
    if (!Array.isArray(keys) || keys.length === 0 || keys.length > MAX_ANSWER_KEYS || !keys.every((k) => typeof k === 'string' && ANSWER_KEY_RE.test(k))) {
      fail(lineOf(label), `answers.${label}`, `answer "${label}" must be a list of 1–${MAX_ANSWER_KEYS} key names (as \`send-keys\` takes them), got ${describe(keys)} in [answers]`);
      continue;
    }
    answers.push({ label, keys: keys as string[] });
  }
  return answers;
}

/** The `[resume]` table: `args` with exactly one `{id}`, `id_from`, optional `verified_with`. */
function parseResume(value: unknown, line: number | null, fail: (line: number | null, key: string | null, what: string) => void): ResumeSpec | null {
  if (value === undefined) return null;
  if (!isTable(value)) {
    fail(line, 'resume', 'key "resume" must be a table ([resume])');
    return null;
  }
  let ok = true;
  const bad = (key: string, what: string): void => {
    ok = false;
    fail(line, key, `${what} in [resume]`);
  };
  for (const key of Object.keys(value)) if (!(RESUME_KEYS as readonly string[]).includes(key)) bad(key, `unknown key "${key}"`);
  const args = value.args;
  if (!Array.isArray(args) || args.length === 0 || !args.every((a) => typeof a === 'string' && a !== '')) bad('args', 'key "args" must be a non-empty array of strings');
  else if (args.filter((a) => (a as string).includes('{id}')).length !== 1) bad('args', 'key "args" must hold "{id}" exactly once');
  if (typeof value.id_from !== 'string' || value.id_from === '') bad('id_from', 'key "id_from" must be a non-empty string');
  if (value.verified_with !== undefined && (typeof value.verified_with !== 'string' || value.verified_with === '')) bad('verified_with', 'key "verified_with" must be a non-empty string');
  const options = (key: 'value_options' | 'drop_options', suffixes: boolean): Array<[string, OptionArity]> => {
    const list = value[key];
    if (list === undefined) return [];
    const what = suffixes ? 'option names like "--model", "-d?" or "--add-dir..."' : 'option names like "--resume" or "-c"';
    if (!Array.isArray(list)) {
      bad(key, `key "${key}" must be an array of ${what}`);
      return [];
    }
    const parsed: Array<[string, OptionArity]> = [];
    for (const entry of list) {
      const m = typeof entry === 'string' ? OPTION_SPEC_RE.exec(entry) : null;
      if (!m || (!suffixes && m[2] !== undefined)) bad(key, `key "${key}" must hold ${what}, got ${describe(entry)}`);
      else parsed.push([m[1]!, m[2] === '?' ? 'optional' : m[2] === '...' ? 'many' : 'one']);
    }
    return parsed;
  };
  const valueOptions = new Map(options('value_options', true));
  const dropOptions = new Set(options('drop_options', false).map(([name]) => name));
  if (value.keep_positionals !== undefined && typeof value.keep_positionals !== 'boolean') bad('keep_positionals', 'key "keep_positionals" must be true or false');
  const sessionFiles = parseSessionFiles(value.session_files, bad);
  if (!ok) return null;
  return {
    sessionFiles,
    args: args as string[],
    idFrom: value.id_from as string,
    verifiedWith: (value.verified_with as string | undefined) ?? null,
    valueOptions,
    dropOptions,
    keepPositionals: value.keep_positionals === true,
  };
}

/** `session_files`: an array of `{ path, id_key?, cwd_in?, line? }`; the id comes from `{id}`, `id_key`, both, or a log `line`. */
function parseSessionFiles(value: unknown, bad: (key: string, what: string) => void): SessionFileSpec[] {
  if (value === undefined) return [];
  const shape = 'key "session_files" must be an array of { path, id_key, cwd_in } tables';
  if (!Array.isArray(value)) {
    bad('session_files', shape);
    return [];
  }
  const specs: SessionFileSpec[] = [];
  for (const entry of value) {
    if (!isTable(entry) || Object.keys(entry).some((k) => !(SESSION_FILE_KEYS as readonly string[]).includes(k))) {
      bad('session_files', shape);
      continue;
    }
    const { path, id_key: idKey, cwd_in: cwdIn = 'content', line } = entry;
    if (typeof path !== 'string' || !path.startsWith('/') && !path.startsWith('~') && !path.startsWith('$')) bad('session_files', `a session_files path must be absolute (or start with ~ or $), got ${describe(path)}`);
    else if (line !== undefined) {
      const re = logLineRegex(line, path);
      if (typeof re === 'string') bad('session_files', re);
      else if (idKey !== undefined || entry.cwd_in !== undefined) bad('session_files', `a session_files line takes its id and cwd from the line, not id_key or cwd_in: ${path}`);
      else specs.push({ path, idKey: null, cwdIn: 'none', line: re });
    }
    else if (idKey !== undefined && typeof idKey !== 'string') bad('session_files', `session_files id_key must be a string, got ${describe(idKey)}`);
    else if (idKey === undefined && !path.includes('{id}')) bad('session_files', `a session_files path without {id} needs id_key: ${path}`);
    else if (path.includes('{pid}') && idKey === undefined) bad('session_files', `a session_files path with {pid} needs id_key: ${path}`);
    else if (typeof cwdIn !== 'string' || cwdIn === '' || cwdIn.includes('/')) bad('session_files', `session_files cwd_in must be "content", "none" or a file name, got ${describe(cwdIn)}`);
    else specs.push({ path, idKey: (idKey as string | undefined) ?? null, cwdIn });
  }
  return specs;
}

/** A session_files `line` as a regex, or what is wrong with it. */
function logLineRegex(line: unknown, path: string): RegExp | string {
  if (typeof line !== 'string') return `session_files line must be a regex string, got ${describe(line)}`;
  if (/\{id\}|\{pid\}/.test(path)) return `a session_files path with a line names one log, not {id} or {pid}: ${path}`;
  let re: RegExp;
  try {
    re = new RegExp(line);
  } catch (error) {
    return `session_files line is not a valid regex: ${(error as Error).message}`;
  }
  // Without its time a line cannot tell the agent's new session from an older one in the log.
  if (!/\(\?<id>/.test(line) || !/\(\?<time>/.test(line)) return `a session_files line needs the named groups (?<id>…) and (?<time>…): ${line}`;
  return re;
}

/** The argv that resumes session `id` of an agent whose rules carry `[resume]`. */
export function resumeArgs(spec: ResumeSpec, id: string): string[] {
  return spec.args.map((arg) => arg.replace('{id}', id));
}
