/**
 * `corral hooks install|uninstall|status claude|codex|gemini|qwen`: corral's entries in each
 * agent's OWN hook config (SPEC §4). All four use the same JSON shape —
 * `{"hooks": {"<Event>": [{"matcher"?, "hooks": [{"type": "command", "command", "timeout"}]}]}}` —
 * in different files:
 *
 * - Claude Code: ~/.claude/settings.json ($CLAUDE_CONFIG_DIR), or ./.claude/settings.json.
 * - Gemini CLI:  ~/.gemini/settings.json, or ./.gemini/settings.json (timeout in ms).
 * - Qwen Code:   $QWEN_HOME/settings.json (~/.qwen), or ./.qwen/settings.json.
 * - Codex:       $CODEX_HOME/hooks.json (~/.codex), or ./.codex/hooks.json; Codex runs a
 *                hook only once trusted, so install also records the trust Codex's own
 *                "Trust all" would ($CODEX_HOME/config.toml `[hooks.state."<file>:<event>:<g>:<h>"]
 *                trusted_hash`), by a minimal textual edit that keeps the user's comments.
 *
 * corral's handlers are recognised by their command (`corral hook <event> --agent <kind>`);
 * install appends one matcher group per event and changes nothing else, uninstall removes
 * exactly those handlers (and a group/event/`hooks` object only when corral's removal
 * emptied it), so a round trip gives back the user's file. The pure edits are exported for
 * tests; the file functions read, edit, validate, then write atomically — or throw
 * HooksConfigError naming the file and write nothing.
 */
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, renameSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { type AiEvent, type HookAgent, NATIVE_EVENTS } from '../../agents/hook-events.js';
import { hookFormat } from '../../agents/kind-facts.js';

/** A config file corral cannot safely edit; nothing was written. */
export class HooksConfigError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`${file}: ${message}; nothing was written`);
    this.name = 'HooksConfigError';
  }
}

/**
 * The `timeout` corral's handler carries, in the unit the agent reads it in (`[hooks]` of
 * assets/agents/<agent>.toml: Gemini reads milliseconds, the others seconds).
 */
function handlerTimeout(agent: HookAgent): number {
  const format = hookFormat(agent);
  if (!format) throw new Error(`assets/agents/${agent}.toml has no [hooks] table`);
  return format.timeoutUnit === 's' ? format.timeoutMs / 1000 : format.timeoutMs;
}

/** The native events corral hooks, per agent, in install order. */
export function nativeEvents(agent: HookAgent): string[] {
  return Object.keys(NATIVE_EVENTS[agent]);
}

/**
 * The command corral installs for one native event. The guard keeps the agent from starting
 * node for every hook outside corral, and from warning when `corral` is not on PATH there
 * (inside a pane corral puts itself first on PATH).
 */
export function hookCommand(agent: HookAgent, nativeEvent: string): string {
  const event: AiEvent = NATIVE_EVENTS[agent][nativeEvent];
  return `[ -z "$CORRAL_PANE_ID" ] || corral hook ${event} --agent ${agent}`;
}

/** True for a command corral installed (any event, any version of the guard). */
export function isCorralCommand(command: unknown, agent?: HookAgent): boolean {
  if (typeof command !== 'string') return false;
  const match = /(?:^|[\s;&|(])corral hook [a-z_-]+ --agent (claude|codex|gemini|qwen)(?:\s|$)/.exec(command);
  return match !== null && (agent === undefined || match[1] === agent);
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The handler object corral writes. */
function corralHandler(agent: HookAgent, nativeEvent: string): Json {
  return { type: 'command', command: hookCommand(agent, nativeEvent), timeout: handlerTimeout(agent) };
}

/** Validates the `hooks` shape corral touches; throws with a path into the document. */
function hooksOf(doc: Json, file: string): Json | undefined {
  if (doc.hooks === undefined) return undefined;
  if (!isObject(doc.hooks)) throw new HooksConfigError(file, '"hooks" is not an object');
  for (const [event, groups] of Object.entries(doc.hooks)) {
    if (!Array.isArray(groups)) continue;
    groups.forEach((group, i) => {
      if (isObject(group) && group.hooks !== undefined && !Array.isArray(group.hooks)) {
        throw new HooksConfigError(file, `"hooks.${event}[${i}].hooks" is not an array`);
      }
    });
  }
  return doc.hooks;
}

/** Where corral's handler for one event sits, if installed. */
export interface HandlerPosition {
  group: number;
  handler: number;
  /** The command is exactly the current one (else an older corral wrote it). */
  current: boolean;
}

/** Positions of corral's handlers for `nativeEvent` in `doc`. */
export function findCorralHandlers(doc: Json, agent: HookAgent, nativeEvent: string, file = 'config'): HandlerPosition[] {
  const groups = hooksOf(doc, file)?.[nativeEvent];
  if (!Array.isArray(groups)) return [];
  const found: HandlerPosition[] = [];
  groups.forEach((group, g) => {
    if (!isObject(group) || !Array.isArray(group.hooks)) return;
    group.hooks.forEach((handler, h) => {
      if (isObject(handler) && isCorralCommand(handler.command, agent)) {
        found.push({ group: g, handler: h, current: handler.command === hookCommand(agent, nativeEvent) && handler.timeout === handlerTimeout(agent) });
      }
    });
  });
  return found;
}

/** Removes corral's handlers from `doc` in place; empty containers corral emptied go too. */
function removeFromDoc(doc: Json, agent: HookAgent, file: string, only?: ReadonlySet<string>): string[] {
  const hooks = hooksOf(doc, file);
  if (!hooks) return [];
  const removed: string[] = [];
  for (const event of Object.keys(hooks)) {
    if (only && !only.has(event)) continue;
    const groups = hooks[event];
    if (!Array.isArray(groups)) continue;
    let touched = false;
    for (let g = groups.length - 1; g >= 0; g--) {
      const group = groups[g];
      if (!isObject(group) || !Array.isArray(group.hooks)) continue;
      const kept = group.hooks.filter((handler) => !(isObject(handler) && isCorralCommand(handler.command, agent)));
      if (kept.length === group.hooks.length) continue;
      touched = true;
      if (kept.length === 0) groups.splice(g, 1);
      else group.hooks = kept;
    }
    if (!touched) continue;
    removed.push(event);
    if (groups.length === 0) delete hooks[event];
  }
  if (removed.length > 0 && Object.keys(hooks).length === 0) delete doc.hooks;
  return removed;
}

export type EventStatus = 'added' | 'present' | 'updated' | 'removed' | 'absent' | 'installed' | 'missing' | 'outdated';

export interface EventReport {
  event: string;
  corral_event: AiEvent;
  status: EventStatus;
  /** Codex only: whether Codex will run the handler without asking. */
  trusted?: boolean;
}

/** Adds corral's handlers to `doc` in place (idempotent); returns what happened per event. */
export function installIntoDoc(doc: Json, agent: HookAgent, file = 'config'): EventReport[] {
  const reports: EventReport[] = [];
  for (const event of nativeEvents(agent)) {
    const found = findCorralHandlers(doc, agent, event, file);
    const corral_event = NATIVE_EVENTS[agent][event];
    if (found.length === 1 && found[0].current) {
      reports.push({ event, corral_event, status: 'present' });
      continue;
    }
    if (found.length > 0) removeFromDoc(doc, agent, file, new Set([event]));
    if (doc.hooks === undefined) doc.hooks = {};
    const hooks = hooksOf(doc, file)!;
    if (hooks[event] === undefined) hooks[event] = [];
    const groups = hooks[event];
    if (!Array.isArray(groups)) throw new HooksConfigError(file, `"hooks.${event}" is not an array`);
    groups.push({ hooks: [corralHandler(agent, event)] });
    reports.push({ event, corral_event, status: found.length > 0 ? 'updated' : 'added' });
  }
  return reports;
}

/** Removes corral's handlers from `doc` in place; returns what happened per event. */
export function uninstallFromDoc(doc: Json, agent: HookAgent, file = 'config'): EventReport[] {
  const removed = new Set(removeFromDoc(doc, agent, file));
  return nativeEvents(agent).map((event) => ({
    event,
    corral_event: NATIVE_EVENTS[agent][event],
    status: removed.has(event) ? 'removed' : 'absent',
  }));
}

/** What is installed in `doc`, per event. */
export function statusOfDoc(doc: Json, agent: HookAgent, file = 'config'): EventReport[] {
  return nativeEvents(agent).map((event) => {
    const found = findCorralHandlers(doc, agent, event, file);
    const status: EventStatus = found.length === 0 ? 'missing' : found.some((f) => f.current) ? 'installed' : 'outdated';
    return { event, corral_event: NATIVE_EVENTS[agent][event], status };
  });
}

// ---------------------------------------------------------------- JSON text in, JSON text out

/** How a JSON file was formatted, so a rewrite looks like the original. */
interface JsonStyle {
  indent: string;
  finalNewline: boolean;
}

/** Parses a JSON config file's text; an empty file is `{}`. */
export function parseJsonConfig(text: string, file: string): { doc: Json; style: JsonStyle } {
  const indentMatch = /^[{[][^\n]*\n([ \t]+)\S/.exec(text);
  const style: JsonStyle = { indent: indentMatch?.[1] ?? '  ', finalNewline: text === '' || text.endsWith('\n') };
  if (text.trim() === '') return { doc: {}, style };
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new HooksConfigError(file, `not valid JSON (${(error as Error).message}); corral edits only plain JSON, fix or move the file`);
  }
  if (!isObject(doc)) throw new HooksConfigError(file, 'the top level is not a JSON object');
  return { doc, style };
}

/** Formats a config document the way the original was formatted. */
export function formatJsonConfig(doc: Json, style: JsonStyle): string {
  return JSON.stringify(doc, null, style.indent) + (style.finalNewline ? '\n' : '');
}

// ---------------------------------------------------------------- Codex hook trust

/** Codex's snake_case label of a hook event (its trust keys and hashes use it). */
export function codexEventLabel(nativeEvent: string): string {
  return nativeEvent.replace(/(?<!^)([A-Z])/g, '_$1').toLowerCase();
}

/** JSON with object keys sorted at every level, compact: what Codex hashes. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The `trusted_hash` Codex 0.171 records for a matcher-less command handler: sha256 of the
 * canonical JSON of `{event_name, hooks: [handler with async=false]}` (verified against the
 * hashes Codex itself wrote for "Trust all and continue").
 */
export function codexTrustHash(nativeEvent: string, command: string, timeoutSec: number): string {
  const identity = {
    event_name: codexEventLabel(nativeEvent),
    hooks: [{ type: 'command', command, timeout: timeoutSec, async: false }],
  };
  return `sha256:${createHash('sha256').update(canonicalJson(identity)).digest('hex')}`;
}

export interface TrustEntry {
  event: string;
  key: string;
  hash: string;
}

/** Trust keys and hashes for corral's handlers in a Codex hooks.json document. */
export function codexTrustEntries(hooksFile: string, doc: Json): TrustEntry[] {
  const entries: TrustEntry[] = [];
  for (const event of nativeEvents('codex')) {
    for (const pos of findCorralHandlers(doc, 'codex', event, hooksFile)) {
      if (!pos.current) continue;
      entries.push({
        event,
        key: `${hooksFile}:${codexEventLabel(event)}:${pos.group}:${pos.handler}`,
        hash: codexTrustHash(event, hookCommand('codex', event), handlerTimeout('codex')),
      });
    }
  }
  return entries;
}

/** The comment line corral writes above each trust table it adds. */
const TRUST_COMMENT = '# added by `corral hooks install codex`; `corral hooks uninstall codex` removes it';

function tomlHeader(key: string): string {
  return `[hooks.state.${JSON.stringify(key)}]`;
}

function parseTomlOrThrow(text: string, file: string): Json {
  try {
    return parseToml(text) as Json;
  } catch (error) {
    throw new HooksConfigError(file, `not valid TOML (${(error as Error).message.split('\n')[0]})`);
  }
}

/** The trusted_hash recorded for `key` in a parsed config.toml. */
function trustedHashIn(config: Json, key: string): string | undefined {
  const hooks = config.hooks;
  const state = isObject(hooks) ? hooks.state : undefined;
  const entry = isObject(state) ? state[key] : undefined;
  return isObject(entry) && typeof entry.trusted_hash === 'string' ? entry.trusted_hash : undefined;
}

/** Which of `entries` config.toml text already trusts. */
export function codexTrusted(tomlText: string, entries: readonly TrustEntry[], file = 'config.toml'): Set<string> {
  const config = parseTomlOrThrow(tomlText, file);
  return new Set(entries.filter((e) => trustedHashIn(config, e.key) === e.hash).map((e) => e.key));
}

/** Line range [start, end) of the table whose header line is exactly `header`, or null. */
function tableRange(lines: readonly string[], header: string): [number, number] | null {
  const start = lines.findIndex((line) => line.trim() === header);
  if (start < 0) return null;
  let end = start + 1;
  while (end < lines.length && !/^\s*\[/.test(lines[end])) end++;
  // Blank and comment lines before the next header belong to what follows.
  while (end > start + 1 && (lines[end - 1].trim() === '' || lines[end - 1].trim().startsWith('#'))) end--;
  return [start, end];
}

/**
 * config.toml text with each entry trusted. Appends a table per missing key; rewrites the
 * `trusted_hash` line of a table corral can find by its header. Throws (nothing changes)
 * when the file is not TOML or defines a key in a form this edit cannot reach.
 */
export function addCodexTrust(tomlText: string, entries: readonly TrustEntry[], file = 'config.toml'): string {
  const config = parseTomlOrThrow(tomlText, file);
  let text = tomlText;
  for (const entry of entries) {
    const current = trustedHashIn(config, entry.key);
    if (current === entry.hash) continue;
    const lines = text.split('\n');
    const range = tableRange(lines, tomlHeader(entry.key));
    const hooks = config.hooks;
    const state = isObject(hooks) && isObject(hooks.state) ? hooks.state : undefined;
    if (range) {
      const [start, end] = range;
      const at = lines.slice(start + 1, end).findIndex((line) => /^\s*trusted_hash\s*=/.test(line));
      const hashLine = `trusted_hash = ${JSON.stringify(entry.hash)}`;
      if (at >= 0) lines[start + 1 + at] = hashLine;
      else lines.splice(start + 1, 0, hashLine);
      text = lines.join('\n');
    } else if (state && entry.key in state) {
      throw new HooksConfigError(file, `hooks.state."${entry.key}" is defined in a form corral does not edit; trust the hook in Codex (/hooks) instead`);
    } else {
      const sep = text === '' || text.endsWith('\n') ? '' : '\n';
      text += `${sep}\n${TRUST_COMMENT}\n${tomlHeader(entry.key)}\ntrusted_hash = ${JSON.stringify(entry.hash)}\n`;
    }
  }
  const check = parseTomlOrThrow(text, file);
  for (const entry of entries) {
    if (trustedHashIn(check, entry.key) !== entry.hash) throw new HooksConfigError(file, `could not record trust for ${entry.key}`);
  }
  return text;
}

/**
 * config.toml text without corral's trust for `entries`: the block corral appended goes as
 * a whole (comment, header, hash and the blank line before it); a table that also holds the
 * user's settings only loses its `trusted_hash` line.
 */
export function removeCodexTrust(tomlText: string, entries: readonly TrustEntry[], file = 'config.toml'): string {
  parseTomlOrThrow(tomlText, file);
  let lines = tomlText.split('\n');
  for (const entry of entries) {
    const range = tableRange(lines, tomlHeader(entry.key));
    if (!range) continue;
    let [start] = range;
    const end = range[1];
    const body = lines.slice(start + 1, end);
    const hashAt = body.findIndex((line) => line.trim() === `trusted_hash = ${JSON.stringify(entry.hash)}`);
    if (hashAt < 0) continue; // Not corral's hash: the user trusted something else there; leave it.
    const others = body.filter((line, i) => i !== hashAt && line.trim() !== '' && !line.trim().startsWith('#'));
    if (others.length > 0) {
      lines.splice(start + 1 + hashAt, 1);
      continue;
    }
    if (start > 0 && lines[start - 1] === TRUST_COMMENT) start--;
    if (start > 0 && lines[start - 1] === '') start--;
    lines = [...lines.slice(0, start), ...lines.slice(end)];
  }
  const text = lines.join('\n');
  parseTomlOrThrow(text, file);
  return text;
}

// ---------------------------------------------------------------- files

export interface HooksLocationOptions {
  project?: boolean;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

export interface HooksLocation {
  /** The JSON file holding the hooks. */
  file: string;
  /** Codex: the config.toml where hook trust is recorded. */
  trustFile?: string;
  /** Codex: the hooks.json path as Codex names it in trust keys. */
  trustKeyPath?: string;
}

function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME !== undefined && env.HOME !== '' ? env.HOME : os.homedir();
}

function realpathOr(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

/** Where an agent's hook config lives (user-wide, or the project in `cwd` with --project). */
export function hooksLocation(agent: HookAgent, opts: HooksLocationOptions = {}): HooksLocation {
  const env = opts.env ?? process.env;
  const cwd = opts.cwd ?? process.cwd();
  const home = homeOf(env);
  switch (agent) {
    case 'claude': {
      const dir = opts.project ? path.join(cwd, '.claude') : env.CLAUDE_CONFIG_DIR || path.join(home, '.claude');
      return { file: path.join(dir, 'settings.json') };
    }
    case 'gemini':
      return { file: path.join(opts.project ? cwd : home, '.gemini', 'settings.json') };
    case 'qwen':
      // QWEN_HOME moves Qwen's user directory (~/.qwen) as a whole.
      return { file: path.join(opts.project ? path.join(cwd, '.qwen') : env.QWEN_HOME || path.join(home, '.qwen'), 'settings.json') };
    case 'codex': {
      // Codex canonicalises CODEX_HOME; trust keys carry the path it ends up with.
      const codexHome = env.CODEX_HOME ? realpathOr(path.resolve(env.CODEX_HOME)) : path.join(home, '.codex');
      const dir = opts.project ? path.join(realpathOr(cwd), '.codex') : codexHome;
      const file = path.join(dir, 'hooks.json');
      return { file, trustFile: path.join(codexHome, 'config.toml'), trustKeyPath: file };
    }
  }
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new HooksConfigError(file, `cannot read (${(error as Error).message})`);
  }
}

/** Writes through a temp file and rename, keeping the original's permissions. */
function writeAtomic(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.corral-${process.pid}.tmp`;
  writeFileSync(temp, text);
  if (existsSync(file)) chmodSync(temp, statSync(file).mode & 0o7777);
  renameSync(temp, file);
}

export interface HooksReport {
  agent: HookAgent;
  file: string;
  trust_file?: string;
  changed: boolean;
  events: EventReport[];
}

/** Installs corral's hooks for `agent`; idempotent. */
export function installHooks(agent: HookAgent, opts: HooksLocationOptions = {}): HooksReport {
  const loc = hooksLocation(agent, opts);
  const before = readText(loc.file);
  const { doc, style } = parseJsonConfig(before ?? '', loc.file);
  const events = installIntoDoc(doc, agent, loc.file);
  const after = formatJsonConfig(doc, style);
  let trustAfter: string | undefined;
  let trustBefore: string | undefined;
  if (loc.trustFile && loc.trustKeyPath) {
    trustBefore = readText(loc.trustFile) ?? '';
    const entries = codexTrustEntries(loc.trustKeyPath, doc);
    trustAfter = addCodexTrust(trustBefore, entries, loc.trustFile);
    for (const report of events) report.trusted = true;
  }
  // Everything is validated before anything is written.
  const changed = events.some((e) => e.status !== 'present') || trustAfter !== trustBefore;
  if (events.some((e) => e.status !== 'present') || before === undefined) writeAtomic(loc.file, after);
  if (loc.trustFile && trustAfter !== undefined && trustAfter !== trustBefore) writeAtomic(loc.trustFile, trustAfter);
  return { agent, file: loc.file, trust_file: loc.trustFile, changed, events };
}

/** Removes exactly corral's hooks for `agent`. */
export function uninstallHooks(agent: HookAgent, opts: HooksLocationOptions = {}): HooksReport {
  const loc = hooksLocation(agent, opts);
  const before = readText(loc.file);
  if (before === undefined) {
    return { agent, file: loc.file, trust_file: loc.trustFile, changed: false, events: uninstallFromDoc({}, agent, loc.file) };
  }
  const { doc, style } = parseJsonConfig(before, loc.file);
  // Trust keys are positional: take them before the handlers move.
  const entries = loc.trustKeyPath ? codexTrustEntries(loc.trustKeyPath, doc) : [];
  const events = uninstallFromDoc(doc, agent, loc.file);
  let trustBefore: string | undefined;
  let trustAfter: string | undefined;
  if (loc.trustFile && entries.length > 0) {
    trustBefore = readText(loc.trustFile);
    if (trustBefore !== undefined) trustAfter = removeCodexTrust(trustBefore, entries, loc.trustFile);
  }
  const removedAny = events.some((e) => e.status === 'removed');
  if (removedAny) writeAtomic(loc.file, formatJsonConfig(doc, style));
  if (loc.trustFile && trustAfter !== undefined && trustAfter !== trustBefore) writeAtomic(loc.trustFile, trustAfter);
  return { agent, file: loc.file, trust_file: loc.trustFile, changed: removedAny || trustAfter !== trustBefore, events };
}

/** Reports which of corral's hooks are installed for `agent` (Codex: and trusted). */
export function hooksStatus(agent: HookAgent, opts: HooksLocationOptions = {}): HooksReport {
  const loc = hooksLocation(agent, opts);
  const { doc } = parseJsonConfig(readText(loc.file) ?? '', loc.file);
  const events = statusOfDoc(doc, agent, loc.file);
  if (loc.trustFile && loc.trustKeyPath) {
    const entries = codexTrustEntries(loc.trustKeyPath, doc);
    const trusted = codexTrusted(readText(loc.trustFile) ?? '', entries, loc.trustFile);
    for (const report of events) {
      if (report.status === 'missing') continue;
      report.trusted = entries.some((e) => e.event === report.event && trusted.has(e.key));
    }
  }
  return { agent, file: loc.file, trust_file: loc.trustFile, changed: false, events };
}
