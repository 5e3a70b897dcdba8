/**
 * `flow run` files (SPEC §10): a DAG of steps. Each step either creates a pane (the `up`
 * pane fields) or sends text to one, may wait on a ready barrier and may capture the pane's
 * last lines into a variable that later steps type into agents. The whole file is validated
 * before anything runs — unknown keys, duplicate ids, unknown needs, cycles, missing
 * timeouts, variables used where no earlier step captured them — and foreach steps are
 * expanded into their instances (`id[item]`). Pure apart from the injectable directory check.
 */
import { BOUNDS } from '../contract/bounds.js';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { PRESET_KINDS, type PresetKind } from '../session/layout.js';
import { suggest } from '../config/suggest.js';
import { Checker, FileError, Locator, isTable, locateIssues, parseToml, type KeyPath, type Table } from './toml-doc.js';
import { checkPane, checkPaneSet, MAX_PANES, type PaneSpec, type PathContext } from './pane-spec.js';
import { DEFAULT_LAYOUT, type ParseFileOptions } from './up-file.js';
import { fillTemplate, ITEM_VARIABLE, parseTemplate } from './template.js';
import { compilePaneRegex } from '../terminal/pane-regex.js';

export const FLOW_KEYS = ['name', 'layout', 'defaults', 'step', 'budget_tokens'] as const;
export const DEFAULTS_KEYS = ['timeout_secs', 'on_failure'] as const;
export const STEP_KEYS = ['id', 'needs', 'foreach', 'pane', 'send', 'ready', 'capture', 'max_tokens'] as const;
export const SEND_KEYS = ['target', 'text', 'submit'] as const;
export const READY_KEYS = ['pattern', 'idle', 'timeout_secs'] as const;
export const CAPTURE_KEYS = ['var', 'lines', 'answer'] as const;
export const ON_FAILURE = ['fail_fast', 'continue'] as const;
export type OnFailure = (typeof ON_FAILURE)[number];

export const FLOW_LIMITS = {
  /** A week: anything longer is a typo (and overflows timers, which cap at ~24.8 days). */
  maxTimeoutSecs: 7 * 24 * 3600,
  /** Lines a capture may take; surface reads cap at 10000. */
  maxCaptureLines: 10_000,
  /** Enough for a typical agent answer plus its UI's footer. */
  defaultCaptureLines: 50,
} as const;

const STEP_ID = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The only fields where captured variables are filled in (SPEC §10). */
const VARIABLE_FIELDS: readonly (readonly string[])[] = [
  ['pane', 'prompt'],
  ['send', 'text'],
];

export interface ReadySpec {
  /** A regex (RE2 syntax, src/terminal/pane-regex.ts) that new output must match. */
  pattern?: string;
  idle: boolean;
  timeoutSecs: number;
}

export interface CaptureSpec {
  variable: string;
  /** The pane's last lines (ignored with `answer`). */
  lines: number;
  /** What the step's agent answered (`agent read --answer`), instead of the pane's last lines. */
  answer?: true;
}

export type StepAction =
  | { kind: 'pane'; pane: PaneSpec }
  | {
      kind: 'send';
      /** A selector, unless `targetStep` names the pane step whose pane it means. */
      target: string;
      /** May still hold `${var}` placeholders (filled when the step starts). */
      text: string;
      submit: boolean;
      targetStep?: string;
      /** The turn this submit starts: its token budget (SPEC §18). */
      maxTokens?: number;
    };

/** One runnable step (a foreach step becomes one per item). */
export interface FlowStep {
  /** `id`, or `id[item]` for a foreach instance. */
  id: string;
  baseId: string;
  item?: string;
  /** Instance ids this step waits for. */
  needs: string[];
  action: StepAction;
  ready?: ReadySpec;
  capture?: CaptureSpec;
  /** Variables its prompt/text uses (all captured by steps it needs, directly or not). */
  variables: string[];
}

export interface FlowPlan {
  name: string;
  layout: PresetKind;
  onFailure: OnFailure;
  /** Tokens every agent the flow drives may spend together (SPEC §18): crossing it stops them and fails the step. */
  budgetTokens?: number;
  /** In a topological order (file order where the needs allow). */
  steps: FlowStep[];
}

/** What validation knows about one `[[step]]` table before expansion. */
interface RawStep {
  index: number;
  at: KeyPath;
  table: Table;
  id: string | null;
  label: string;
  needs: string[];
  items: string[] | null;
  kind: 'pane' | 'send' | null;
  ready?: { pattern?: string; idle: boolean; timeoutSecs: number };
  capture?: CaptureSpec;
  maxTokens?: number;
  instances: FlowStep[];
}

function instanceId(base: string, item: string): string {
  return `${base}[${item}]`;
}

/** Every string in `value` with its key path (relative to the step table). */
function stringsIn(value: unknown, at: (string | number)[] = []): { path: (string | number)[]; text: string }[] {
  if (typeof value === 'string') return [{ path: at, text: value }];
  if (Array.isArray(value)) return value.flatMap((v, i) => stringsIn(v, [...at, i]));
  if (isTable(value)) return Object.entries(value).flatMap(([k, v]) => stringsIn(v, [...at, k]));
  return [];
}

function isVariableField(p: readonly (string | number)[]): boolean {
  return VARIABLE_FIELDS.some((f) => isDeepStrictEqual(f, p));
}

/** A deep copy of `value` with `${item}` filled; variable fields keep other `${…}` for later. */
function fillItem(value: unknown, values: Record<string, string>, at: (string | number)[] = []): unknown {
  if (typeof value === 'string') {
    try {
      return fillTemplate(value, values, !isVariableField(at));
    } catch {
      return value;
    }
  }
  if (Array.isArray(value)) return value.map((v, i) => fillItem(v, values, [...at, i]));
  if (isTable(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillItem(v, values, [...at, k])]));
  return value;
}

/** Validates a parsed flow document; returns the plan (meaningful only without issues). */
export function checkFlowDocument(check: Checker, doc: Table, ctx: PathContext & { defaultName: string }): FlowPlan {
  check.knownKeys(doc, [], FLOW_KEYS, '');
  const name = check.str(doc, 'name', [], '', { nonEmpty: true }) ?? ctx.defaultName;
  const layout = check.oneOf(doc, 'layout', [], '', PRESET_KINDS) ?? DEFAULT_LAYOUT;
  const defaults = check.table(doc, 'defaults', [], '') ?? {};
  check.knownKeys(defaults, ['defaults'], DEFAULTS_KEYS, ' in [defaults]');
  const defaultTimeout = check.positive(defaults, 'timeout_secs', ['defaults'], ' in [defaults]', FLOW_LIMITS.maxTimeoutSecs);
  const onFailure = check.oneOf(defaults, 'on_failure', ['defaults'], ' in [defaults]', ON_FAILURE) ?? 'fail_fast';
  const plan: FlowPlan = { name, layout, onFailure, steps: [] };
  const budgetTokens = check.int(doc, 'budget_tokens', [], '', BOUNDS.budgetTokens.min, BOUNDS.budgetTokens.max);
  if (budgetTokens !== undefined) plan.budgetTokens = budgetTokens;

  const raw = doc.step;
  if (raw === undefined || (Array.isArray(raw) && raw.length === 0)) {
    check.add([], 'no steps: add at least one [[step]] table');
    return plan;
  }
  if (!Array.isArray(raw)) {
    check.add(['step'], 'key "step" must be an array of tables ([[step]])');
    return plan;
  }

  // Pass 1: each step on its own.
  const steps: RawStep[] = [];
  const byId = new Map<string, RawStep>();
  raw.forEach((table, index) => {
    const at: KeyPath = ['step', index];
    if (!isTable(table)) return check.add(at, `[[step]] #${index + 1} must be a table`);
    const rawId = table.id;
    const id = typeof rawId === 'string' && STEP_ID.test(rawId) ? rawId : null;
    const label = id ? `[[step]] "${id}"` : `[[step]] #${index + 1}`;
    const ctxText = ` in ${label}`;
    check.knownKeys(table, at, STEP_KEYS, ctxText);
    if (rawId === undefined) check.add(at, `${label} has no "id"`);
    else if (id === null) check.add([...at, 'id'], `key "id"${ctxText} must be letters, digits, _ and -, starting with a letter or _, got ${JSON.stringify(rawId)}`);
    const step: RawStep = { index, at, table, id, label, needs: [], items: null, kind: null, instances: [] };
    if (id !== null) {
      const first = byId.get(id);
      if (first) check.add([...at, 'id'], `duplicate step id "${id}" (${first.label} is #${first.index + 1}, this is #${index + 1})`);
      else byId.set(id, step);
    }
    step.needs = check.strings(table, 'needs', at, ctxText) ?? [];
    step.maxTokens = check.int(table, 'max_tokens', at, ctxText, BOUNDS.budgetTokens.min, BOUNDS.budgetTokens.max);
    if (table.max_tokens !== undefined && isTable(table.send) && table.send.submit !== true) {
      check.add([...at, 'max_tokens'], `key "max_tokens"${ctxText} bounds the turn a submit starts: it needs send.submit = true`);
    }
    if (table.max_tokens !== undefined && isTable(table.pane) && table.pane.agent === undefined) {
      check.add([...at, 'max_tokens'], `key "max_tokens"${ctxText} needs pane.agent: it bounds the agent's turn`);
    }
    const items = check.strings(table, 'foreach', at, ctxText, { numbers: true });
    if (items !== undefined) {
      if (items.length === 0) check.add([...at, 'foreach'], `key "foreach"${ctxText} must list at least one item`);
      const dup = items.find((item, i) => items.indexOf(item) !== i);
      if (dup !== undefined) check.add([...at, 'foreach'], `key "foreach"${ctxText} lists "${dup}" twice; instance ids must be unique`);
      step.items = items;
    }

    const hasPane = table.pane !== undefined;
    const hasSend = table.send !== undefined;
    if (hasPane === hasSend) {
      check.add(at, `${label} needs exactly one of "pane" or "send"${hasPane ? ', not both' : ''}`);
    }
    step.kind = hasPane && !hasSend ? 'pane' : hasSend && !hasPane ? 'send' : null;
    if (hasPane && !isTable(table.pane)) check.add([...at, 'pane'], `key "pane"${ctxText} must be a table`);
    if (hasSend) {
      const send = check.table(table, 'send', at, ctxText);
      if (send) {
        check.knownKeys(send, [...at, 'send'], SEND_KEYS, ` in send of ${label}`);
        if (send.target === undefined) check.add([...at, 'send'], `send of ${label} needs a "target" (a pane step id, a pane name or any selector)`);
        check.str(send, 'target', [...at, 'send'], ` in send of ${label}`, { nonEmpty: true });
        check.str(send, 'text', [...at, 'send'], ` in send of ${label}`);
        check.bool(send, 'submit', [...at, 'send'], ` in send of ${label}`);
      }
    }

    const ready = check.table(table, 'ready', at, ctxText);
    if (ready) {
      const rctx = ` in ready of ${label}`;
      check.knownKeys(ready, [...at, 'ready'], READY_KEYS, rctx);
      const pattern = check.str(ready, 'pattern', [...at, 'ready'], rctx, { nonEmpty: true });
      if (pattern !== undefined && !pattern.includes('${')) {
        try {
          compilePaneRegex(pattern);
        } catch (error) {
          check.add([...at, 'ready', 'pattern'], `key "pattern"${rctx}: ${(error as Error).message}`);
        }
      }
      const idle = check.bool(ready, 'idle', [...at, 'ready'], rctx) ?? false;
      if (pattern === undefined && !idle) check.add([...at, 'ready'], `ready of ${label} needs a "pattern" or "idle = true"`);
      const timeoutSecs = check.positive(ready, 'timeout_secs', [...at, 'ready'], rctx, FLOW_LIMITS.maxTimeoutSecs) ?? defaultTimeout;
      if (ready.timeout_secs === undefined && defaultTimeout === undefined) {
        check.add([...at, 'ready'], `ready of ${label} has no timeout: set "timeout_secs" (seconds) here or in [defaults]`);
      }
      step.ready = { idle, timeoutSecs: timeoutSecs ?? 0, ...(pattern !== undefined ? { pattern } : {}) };
    }

    const capture = check.table(table, 'capture', at, ctxText);
    if (capture) {
      const cctx = ` in capture of ${label}`;
      check.knownKeys(capture, [...at, 'capture'], CAPTURE_KEYS, cctx);
      const variable = check.str(capture, 'var', [...at, 'capture'], cctx, { nonEmpty: true });
      if (capture.var === undefined) check.add([...at, 'capture'], `capture of ${label} needs "var", the variable to store the text in`);
      else if (variable !== undefined && !VAR_NAME.test(variable)) check.add([...at, 'capture', 'var'], `key "var"${cctx} must be letters, digits and _, not starting with a digit, got ${JSON.stringify(variable)}`);
      else if (variable === ITEM_VARIABLE) check.add([...at, 'capture', 'var'], `key "var"${cctx}: "${ITEM_VARIABLE}" is reserved for foreach items`);
      const lines = check.int(capture, 'lines', [...at, 'capture'], cctx, 1, FLOW_LIMITS.maxCaptureLines) ?? FLOW_LIMITS.defaultCaptureLines;
      const answer = check.bool(capture, 'answer', [...at, 'capture'], cctx) ?? false;
      if (answer && capture.lines !== undefined) check.add([...at, 'capture', 'answer'], `key "answer"${cctx} does not go with "lines": an answer is what the agent answered, not the pane's last lines (use one)`);
      if (!ready) check.add([...at, 'capture'], `capture of ${label} needs "ready": the text is captured once the step is ready`);
      if (step.items) check.add([...at, 'capture'], `capture of ${label} is not allowed in a foreach step: every instance would set the same variable`);
      if (variable !== undefined) step.capture = answer ? { variable, lines, answer } : { variable, lines };
    }

    // Placeholders: syntax, `${item}` only in foreach steps, variables only in prompt/text.
    for (const { path: sub, text } of stringsIn(table)) {
      if (sub[0] === 'id' || sub[0] === 'needs' || sub[0] === 'foreach') continue;
      const keyName = sub.filter((s) => typeof s === 'string').join('.');
      let names: string[];
      try {
        names = parseTemplate(text).flatMap((p) => ('variable' in p ? [p.variable] : []));
      } catch (error) {
        check.add([...at, ...sub], `key "${keyName}"${ctxText}: ${(error as Error).message}`);
        continue;
      }
      for (const variable of names) {
        if (variable === ITEM_VARIABLE) {
          if (!step.items) check.add([...at, ...sub], `key "${keyName}"${ctxText} uses \${${ITEM_VARIABLE}}, which only foreach steps define`);
        } else if (!isVariableField(sub)) {
          check.add([...at, ...sub], `key "${keyName}"${ctxText} uses \${${variable}}: captured variables are filled in only in send.text and pane.prompt`);
        }
      }
    }
    steps.push(step);
  });

  // Pass 2: expand foreach steps into instances.
  let paneCount = 0;
  const instanceById = new Map<string, { step: RawStep; instance: FlowStep }>();
  const panePaths: KeyPath[] = [];
  const panes: PaneSpec[] = [];
  const paneLabels: string[] = [];
  for (const step of steps) {
    // A duplicate id was reported; its instances would shadow the first step's.
    if (step.id === null || step.kind === null || byId.get(step.id) !== step) continue;
    const items = step.items ?? [null];
    for (const item of items) {
      const values: Record<string, string> = item === null ? {} : { [ITEM_VARIABLE]: item };
      const filled = fillItem(step.table, values) as Table;
      const id = item === null ? step.id : instanceId(step.id, item);
      const ctxText = ` in ${step.label}${item === null ? '' : ` (item "${item}")`}`;
      let action: StepAction;
      if (step.kind === 'pane') {
        const paneTable = isTable(filled.pane) ? filled.pane : {};
        const pane = checkPane(check, paneTable, [...step.at, 'pane'], ctxText, ctx);
        if (step.maxTokens !== undefined && pane.max_tokens === undefined) pane.max_tokens = step.maxTokens;
        action = { kind: 'pane', pane };
        paneCount++;
        panes.push(pane);
        panePaths.push([...step.at, 'pane']);
        paneLabels.push(`step "${id}"`);
      } else {
        const send = isTable(filled.send) ? filled.send : {};
        action = {
          kind: 'send',
          target: typeof send.target === 'string' ? send.target : '',
          text: typeof send.text === 'string' ? send.text : '',
          submit: send.submit === true,
          ...(step.maxTokens !== undefined ? { maxTokens: step.maxTokens } : {}),
        };
      }
      let ready: ReadySpec | undefined;
      if (step.ready) {
        const pattern = isTable(filled.ready) && typeof filled.ready.pattern === 'string' ? filled.ready.pattern : undefined;
        if (pattern !== undefined && item !== null) {
          try {
            compilePaneRegex(pattern);
          } catch (error) {
            check.add([...step.at, 'ready', 'pattern'], `key "pattern"${ctxText}: ${(error as Error).message}`);
          }
        }
        ready = { idle: step.ready.idle, timeoutSecs: step.ready.timeoutSecs, ...(pattern !== undefined ? { pattern } : {}) };
      }
      const instance: FlowStep = { id, baseId: step.id, needs: [], action, variables: [] };
      if (item !== null) instance.item = item;
      if (ready) instance.ready = ready;
      if (step.capture) instance.capture = step.capture;
      for (const field of VARIABLE_FIELDS) {
        const text = field.reduce<unknown>((v, k) => (isTable(v) ? v[k] : undefined), filled);
        if (typeof text !== 'string') continue;
        try {
          for (const part of parseTemplate(text)) if ('variable' in part && !instance.variables.includes(part.variable)) instance.variables.push(part.variable);
        } catch {
          // Reported in pass 1.
        }
      }
      step.instances.push(instance);
      instanceById.set(id, { step, instance });
    }
  }
  if (paneCount > MAX_PANES) check.add([], `too many panes: the steps create ${paneCount}, at most ${MAX_PANES} fit in one flow`);
  checkPaneSet(check, panes, panePaths, (i) => paneLabels[i]!);

  // Pass 3: needs, resolved to instances.
  const allIds = [...byId.keys(), ...instanceById.keys()];
  let needsOk = true;
  for (const step of steps) {
    if (step.id === null || byId.get(step.id) !== step) continue;
    const resolved: string[] = [];
    step.needs.forEach((ref, i) => {
      const base = byId.get(ref);
      const single = instanceById.get(ref);
      if (base) resolved.push(...base.instances.map((s) => s.id));
      else if (single) resolved.push(single.instance.id);
      else {
        needsOk = false;
        const hint = suggest(ref, allIds);
        check.add([...step.at, 'needs', i], `unknown step "${ref}" in needs of ${step.label}${hint ? ` (did you mean "${hint}"?)` : ''}`);
      }
    });
    for (const instance of step.instances) instance.needs = [...new Set(resolved)];
  }
  if (!needsOk) return plan;

  // Pass 4: cycles, named step by step.
  const cycle = findCycle(steps.filter((s) => s.id !== null && byId.get(s.id) === s).map((s) => ({ id: s.id!, needs: s.instances[0]?.needs.map((n) => instanceById.get(n)!.step.id!) ?? [] })));
  if (cycle) {
    const first = byId.get(cycle[0]!)!;
    check.add([...first.at, 'needs'], `steps form a cycle: ${cycle.map((id) => `"${id}"`).join(' → ')} (each needs the next)`);
    return plan;
  }

  // Pass 5: what each step can rely on — ancestors, captured variables, send targets.
  const instances = [...instanceById.values()].map((v) => v.instance);
  const ancestors = new Map<string, Set<string>>();
  const ancestorsOf = (id: string): Set<string> => {
    let set = ancestors.get(id);
    if (set) return set;
    set = new Set();
    for (const need of instanceById.get(id)!.instance.needs) {
      set.add(need);
      for (const a of ancestorsOf(need)) set.add(a);
    }
    ancestors.set(id, set);
    return set;
  };
  const capturedBy = new Map<string, RawStep>();
  for (const step of steps) {
    if (!step.capture || step.id === null || byId.get(step.id) !== step) continue;
    const first = capturedBy.get(step.capture.variable);
    if (first) check.add([...step.at, 'capture', 'var'], `variable "${step.capture.variable}" is captured by ${first.label} already; each variable has one source`);
    else capturedBy.set(step.capture.variable, step);
  }
  const paneStepByName = new Map<string, FlowStep>();
  for (const instance of instances) {
    if (instance.action.kind === 'pane' && instance.action.pane.name) paneStepByName.set(instance.action.pane.name, instance);
  }
  for (const instance of instances) {
    const { step } = instanceById.get(instance.id)!;
    const mine = ancestorsOf(instance.id);
    for (const variable of instance.variables) {
      const source = capturedBy.get(variable);
      const field = step.kind === 'pane' ? ['pane', 'prompt'] : ['send', 'text'];
      if (!source) check.add([...step.at, ...field], `\${${variable}} in ${step.label}: no step captures a variable "${variable}"`);
      else if (!source.instances.every((s) => mine.has(s.id))) {
        check.add([...step.at, ...field], `\${${variable}} in ${step.label} is used before it is captured: ${source.label} captures it, but ${step.label} does not need it (add "${source.id}" to needs)`);
      }
    }
    if (instance.action.kind === 'send') {
      const target = instance.action.target;
      const byStep = instanceById.get(target);
      const base = byId.get(target);
      const named = paneStepByName.get(target);
      const where: KeyPath = [...step.at, 'send', 'target'];
      let targetStep: FlowStep | undefined;
      if (base && base.instances.length > 1) {
        check.add(where, `send target "${target}" in ${step.label} names a foreach step with ${base.instances.length} panes; name one instance, e.g. "${base.instances[0]!.id}"`);
      } else if (byStep || base) {
        targetStep = byStep?.instance ?? base!.instances[0];
        if (targetStep && targetStep.action.kind !== 'pane') {
          check.add(where, `send target "${target}" in ${step.label} is a send step; name a pane step, a pane name or a selector`);
          targetStep = undefined;
        }
      } else if (named) targetStep = named;
      if (targetStep) {
        if (!mine.has(targetStep.id)) {
          check.add(where, `send target "${target}" in ${step.label} is the pane of step "${targetStep.id}", which ${step.label} does not need (add "${targetStep.baseId}" to needs)`);
        } else instance.action.targetStep = targetStep.id;
      }
    }
  }

  plan.steps = topologicalOrder(instances);
  return plan;
}

/** A cycle among `nodes` (ids in order, the first repeated at the end), or null. */
export function findCycle(nodes: readonly { id: string; needs: readonly string[] }[]): string[] | null {
  const needsOf = new Map(nodes.map((n) => [n.id, n.needs]));
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (id: string): string[] | null => {
    if (state.get(id) === 'done') return null;
    if (state.get(id) === 'visiting') return [...stack.slice(stack.indexOf(id)), id];
    state.set(id, 'visiting');
    stack.push(id);
    for (const need of needsOf.get(id) ?? []) {
      const found = visit(need);
      if (found) return found;
    }
    stack.pop();
    state.set(id, 'done');
    return null;
  };
  for (const node of nodes) {
    const found = visit(node.id);
    if (found) return found;
  }
  return null;
}

/** Kahn's algorithm, taking ready steps in file order. */
function topologicalOrder(steps: readonly FlowStep[]): FlowStep[] {
  const done = new Set<string>();
  const out: FlowStep[] = [];
  const left = [...steps];
  while (left.length > 0) {
    const next = left.findIndex((s) => s.needs.every((n) => done.has(n)));
    if (next < 0) break;
    const [step] = left.splice(next, 1);
    out.push(step!);
    done.add(step!.id);
  }
  return out;
}

/** Parses and validates a flow file; throws a FileError listing every problem with its line. */
export function parseFlowFile(source: string, opts: ParseFileOptions): FlowPlan {
  const doc = parseToml(source, opts.shownPath);
  const check = new Checker();
  const defaultName = path.basename(opts.shownPath).replace(/\.toml$/i, '') || 'flow';
  const plan = checkFlowDocument(check, doc, { ...opts, defaultName });
  if (check.issues.length > 0) throw new FileError(locateIssues(check.issues, opts.shownPath, new Locator(source)));
  return plan;
}

/** Human summary of a plan (`flow run --dry-run`). */
export function formatFlowPlan(plan: FlowPlan): string {
  const lines = [`flow ${JSON.stringify(plan.name)}: ${plan.steps.length} step${plan.steps.length === 1 ? '' : 's'}, layout ${plan.layout}, on_failure ${plan.onFailure} (dry run: nothing was started)`];
  for (const step of plan.steps) {
    const action =
      step.action.kind === 'pane'
        ? `pane ${step.action.pane.agent ? `agent ${step.action.pane.agent}` : step.action.pane.command ? `run ${JSON.stringify(step.action.pane.command)}` : 'shell'} in ${step.action.pane.cwd}${step.action.pane.name ? ` named ${step.action.pane.name}` : ''}${step.action.pane.prompt !== undefined ? ', prompt typed' : ''}`
        : `send ${JSON.stringify(step.action.text.length > 40 ? `${step.action.text.slice(0, 37)}...` : step.action.text)} to ${step.action.targetStep ? `step ${step.action.targetStep}'s pane` : step.action.target}${step.action.submit ? ' and submit' : ''}`;
    const ready = step.ready
      ? `; ready when ${[step.ready.pattern !== undefined ? `/${step.ready.pattern}/ appears` : '', step.ready.idle ? 'idle' : ''].filter(Boolean).join(' and ')} within ${step.ready.timeoutSecs} s`
      : '';
    const captured = step.capture?.answer ? "the agent's answer" : `last ${step.capture?.lines} lines`;
    const capture = step.capture ? `; capture ${captured} as \${${step.capture.variable}}` : '';
    const needs = step.needs.length ? ` (after ${step.needs.join(', ')})` : '';
    lines.push(`  ${step.id}${needs}: ${action}${ready}${capture}`);
  }
  return `${lines.join('\n')}\n`;
}
