/**
 * Which requests go to another machine (SPEC §14): one with `machine: NAME` in its params
 * (`corral --machine NAME …`), or one whose selector names a saved machine (`build/w1:p2`,
 * `build/reviewer`, `build/7`, `build/cmdline:pytest`). The request then goes to that
 * machine's server as it is, with the prefix taken off, and that server's own gate decides
 * (a local open gate opens nothing remote). Unqualified selectors stay local; a `NAME/` that
 * names no saved machine is left alone, so a local selector such as `cwd:src/app` still works.
 */
import { CorralError, HOOK_METHODS } from '../contract/protocol.js';
import type { MachineService } from './handlers/context.js';

/**
 * Never forwarded: attaching and detaching terminals, the hook notifications (a hook speaks
 * for the pane it runs in, SPEC §8), the machine table itself, and the link's own plumbing
 * (`pane.input`, `mirror.*`), which a script must not reach through a link: on the far side it
 * is a person's input.
 */
const LOCAL_ONLY = new Set<string>(['client.attach', 'client.list', 'client.detach', ...HOOK_METHODS]);
const isLinkPlumbing = (method: string) => method === 'pane.input' || method.startsWith('mirror.');

/**
 * Answered here even for a `NAME/` pane: the web view (SPEC §16) is a client of this server,
 * which follows and types into a remote pane through its own mirror and link, as its TUI does.
 */
const WEB_VIEW = new Set<string>(['web.hello', 'web.fleet', 'web.input', 'pane.watch']);

/** Params that hold a selector or an id a machine prefix may qualify. */
const SELECTOR_PARAMS = ['target', 'pane_id', 'workspace', 'workspace_id', 'tab', 'tab_id'] as const;

const QUALIFIED = /^([a-z0-9][a-z0-9-]{0,31})\/(.+)$/s;

/** Extra time a forwarded call gets beyond the caller's own `timeout_ms` (the link's round trips). */
const FORWARD_MARGIN_MS = 10_000;

export interface Route {
  machine: string;
  params: Record<string, unknown>;
  /** How long to wait for the remote's answer. */
  timeoutMs: number | undefined;
}

/** The machine a request goes to and its params there, or null to answer it here. */
export function machineRoute(method: string, params: unknown, machines: MachineService | null): Route | null {
  if (machines === null || typeof params !== 'object' || params === null || Array.isArray(params)) return null;
  // The machine table's own methods name machines themselves (`machine.read build/w1:p2` reads the mirror here).
  if (method.startsWith('machine.') || WEB_VIEW.has(method)) return null;
  const p = params as Record<string, unknown>;
  let machine: string | null = null;
  if (typeof p.machine === 'string') {
    if (!machines.has(p.machine)) throw new CorralError('machine_not_found', `no machine named ${JSON.stringify(p.machine)}; \`corral machine list\` shows the saved ones`, { machine: p.machine });
    machine = p.machine;
  }
  const out: Record<string, unknown> = { ...p };
  delete out.machine;
  for (const key of SELECTOR_PARAMS) {
    const value = out[key];
    if (typeof value !== 'string') continue;
    const match = QUALIFIED.exec(value);
    if (!match || !machines.has(match[1]!)) continue;
    if (machine !== null && machine !== match[1]) {
      throw new CorralError('invalid_params', `param "${key}" names machine ${match[1]}, but the request goes to ${machine}`);
    }
    machine = match[1]!;
    out[key] = match[2];
  }
  if (machine === null) return null;
  // `events.subscribe` with a machine is a local subscription filtered to that machine.
  if (method === 'events.subscribe') return null;
  if (LOCAL_ONLY.has(method) || isLinkPlumbing(method)) {
    throw new CorralError('invalid_params', `${method} is not forwarded to another machine`);
  }
  const own = typeof out.timeout_ms === 'number' ? out.timeout_ms : undefined;
  return { machine, params: out, timeoutMs: own === undefined ? undefined : own + FORWARD_MARGIN_MS };
}

/** A forwarded listing's rows, tagged with the machine they came from. */
export function tagRows(method: string, machine: string, result: unknown): unknown {
  if (typeof result !== 'object' || result === null) return result;
  const key = method === 'fleet.list' ? 'agents' : method === 'surface.list' ? 'surfaces' : null;
  const rows = key ? (result as Record<string, unknown>)[key] : undefined;
  if (!key || !Array.isArray(rows)) return result;
  return { ...result, [key]: rows.map((row) => (typeof row === 'object' && row !== null ? { ...row, machine } : row)) };
}
