/**
 * The scripting gate (SPEC §8), enforced in this one place for every method, from the
 * gating each method declares in the method table (`METHOD_TABLE` in protocol.ts). With the
 * gate closed, nothing a caller sends can make a program already running in a pane act on
 * text the caller chose: methods that submit are refused, and text that reaches a pane
 * without the gate (typing, names, labels) must be inert — printable characters and TAB.
 */
import { CorralError, methodSpec, methodVerb, type MethodSpec } from '../contract/protocol.js';
import { codePointId, controlName, firstControl } from '../terminal/control-chars.js';
import type { Params } from './params.js';
import { GENERIC_KIND } from '../agents/rules.js';
import type { Handler, HandlerTable } from './handlers/context.js';
import { GATE_HOW_TO_OPEN } from './gate-refusal.js';

/**
 * The strings at a param path: `text`, `args` (each item of a string array), `panes.*.prompt`
 * (`*` walks an array). Values of other types are left to the handler's own param checks.
 */
export function textsAt(params: unknown, path: string): { param: string; value: string }[] {
  const found: { param: string; value: string }[] = [];
  const walk = (value: unknown, segments: readonly string[], label: string): void => {
    if (segments.length === 0) {
      if (typeof value === 'string') found.push({ param: label, value });
      else if (Array.isArray(value)) value.forEach((item, i) => typeof item === 'string' && found.push({ param: `${label}[${i}]`, value: item }));
      return;
    }
    const [head, ...rest] = segments;
    if (head === '*') {
      if (Array.isArray(value)) value.forEach((item, i) => walk(item, rest, `${label}[${i}]`));
    } else if (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, head!)) {
      walk((value as Params)[head!], rest, label === '' ? head! : `${label}.${head}`);
    }
  };
  walk(params, path.split('.'), '');
  return found;
}

/** The first control character in the listed params, as a description, or null. */
function findControl(params: Params, paths: readonly string[], allowTab: boolean): { param: string; index: number; codePoint: number } | null {
  for (const path of paths) {
    for (const { param, value } of textsAt(params, path)) {
      const bad = firstControl(value, { allowTab });
      if (bad) return { param, ...bad };
    }
  }
  return null;
}

/** Whether this call submits input, given its declared gating. */
function submits(spec: MethodSpec, params: Params): boolean {
  if (spec.gated === 'when-submitting') return params.submit === true;
  if (spec.gated === 'when-command') return params.kind === GENERIC_KIND;
  return spec.gated === 'always';
}

/**
 * Throws unless `method` may run with these params given the gate's state: `scripting_disabled`
 * for a submitting call or non-inert text while closed; shell words with a control character
 * (or TAB) are refused whatever the gate's state.
 */
export function enforceGate(method: string, params: Params, scripting: boolean): void {
  const spec = methodSpec(method);
  if (!spec) return;
  const word = findControl(params, spec.words ?? [], false);
  if (word) {
    const character = controlName(word.codePoint);
    throw new CorralError(
      scripting ? 'invalid_params' : 'scripting_disabled',
      `${methodVerb(method)}: param "${word.param}" holds ${character} at index ${word.index}: each item is typed at the shell prompt as one quoted word, ` +
        'which may hold printable characters only (a control would act on the line, a TAB would run completion)',
      { param: word.param, character: codePointId(word.codePoint), index: word.index },
    );
  }
  if (scripting) return;
  if (submits(spec, params)) {
    throw new CorralError('scripting_disabled', `${methodVerb(method)} submits input to a pane, which needs the scripting gate: ${GATE_HOW_TO_OPEN}`);
  }
  const text = findControl(params, spec.inert ?? [], true);
  if (text) {
    const character = controlName(text.codePoint);
    throw new CorralError(
      'scripting_disabled',
      `${methodVerb(method)}: param "${text.param}" holds ${character} at index ${text.index}: with the scripting gate closed, text may hold ` +
        `printable characters and TAB only, so that nothing typed can act in the pane; to send it, ${GATE_HOW_TO_OPEN}`,
      { param: text.param, character: codePointId(text.codePoint), index: text.index },
    );
  }
}

/**
 * Wraps every handler so the gate is checked before it runs. A handler without a declared
 * gating is a programming error caught at start-up, so no method can slip past the table.
 */
export function withGate(handlers: HandlerTable): HandlerTable {
  const gated: HandlerTable = {};
  for (const [method, handler] of Object.entries(handlers)) {
    if (!methodSpec(method)) throw new Error(`method ${method} has no gating in METHOD_TABLE (src/contract/protocol.ts)`);
    const wrapped: Handler = (params, ctx) => {
      enforceGate(method, params, ctx.core.scripting);
      return handler(params, ctx);
    };
    gated[method] = wrapped;
  }
  return gated;
}
