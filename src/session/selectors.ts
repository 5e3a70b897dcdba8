/**
 * Resolves a CLI `<target>` / RPC `target` selector to panes (SPEC §2).
 *
 * Rules, tried in order; the first rule whose SYNTAX applies decides, and a miss is an
 * error rather than a fall-through to later rules:
 *   1. `cmdline:<substr>` — case-insensitive substring of the foreground command line.
 *   2. `cwd:<path>`       — panes whose cwd is `<path>` or a directory under it.
 *   3. a pane id `w1:p2`  — the pane's current id or one of its aliases (old ids of a moved pane).
 *   4. a number `12`      — a surface id.
 *   5. a live agent name  — exact match.
 *   6. a pane name        — exact match.
 * Rules 5 and 6 share the free-text namespace, so there the first rule that MATCHES decides:
 * an agent name shadows a pane of the same name. Consequence of rules 3–4 coming first: a
 * pane named `42` or `w1:p9` cannot be addressed by its name — use its pane id.
 */
import { CorralError } from '../contract/protocol.js';
import { isPaneId, isSurfaceIdText } from './ids.js';

export interface SelectorCandidate {
  paneId: string;
  /** Earlier ids of this pane (it was moved between workspaces). */
  aliases: string[];
  surfaceId: number;
  paneName: string | null;
  /** Name of the live agent in the pane, if it has one. */
  agentName: string | null;
  cmdline: string;
  cwd: string;
}

export type SelectorRule = 'cmdline' | 'cwd' | 'pane_id' | 'surface_id' | 'agent_name' | 'pane_name';

export interface ResolveOptions {
  /** Accept several matches (`send --all`, `wait --any|--all`); otherwise several is target_ambiguous. */
  allowMany?: boolean;
}

const SELECTOR_LIMITS = {
  /** Candidates listed in an error: enough to spot the right one, bounded for huge sessions. */
  maxListed: 20,
} as const;

const CMDLINE_PREFIX = 'cmdline:';
const CWD_PREFIX = 'cwd:';

/** Which rule a selector's syntax selects; `name` covers rules 5 and 6 (agent, then pane name). */
export function classifySelector(selector: string): 'cmdline' | 'cwd' | 'pane_id' | 'surface_id' | 'name' {
  if (selector.startsWith(CMDLINE_PREFIX)) return 'cmdline';
  if (selector.startsWith(CWD_PREFIX)) return 'cwd';
  if (isPaneId(selector)) return 'pane_id';
  if (isSurfaceIdText(selector)) return 'surface_id';
  return 'name';
}

/** `p` without trailing slashes, keeping the root as `/`. */
function trimSlashes(p: string): string {
  const trimmed = p.replace(/\/+$/, '');
  return trimmed === '' && p.startsWith('/') ? '/' : trimmed;
}

/**
 * Whether `cwd` is `dir` or inside it. SPEC §2 says "equal to or under the pane's cwd";
 * we read it as the pane's cwd being equal to or under the given path, so `cwd:~/proj`
 * finds every pane working somewhere in that project. Paths are compared as given: the
 * caller expands `~` and makes them absolute.
 */
export function cwdIsUnder(cwd: string, dir: string): boolean {
  const c = trimSlashes(cwd);
  const d = trimSlashes(dir);
  if (d === '/') return c.startsWith('/');
  return c === d || c.startsWith(`${d}/`);
}

/** The machine-readable summary of candidates carried in an error's data. */
function summarise(cs: readonly SelectorCandidate[]): Array<Record<string, unknown>> {
  return cs.slice(0, SELECTOR_LIMITS.maxListed).map((c) => ({
    pane_id: c.paneId,
    surface_id: c.surfaceId,
    name: c.paneName,
    agent_name: c.agentName,
  }));
}

/** The candidates the selector picks under its rule, and the rule. */
export function matchSelector(
  selector: string,
  candidates: readonly SelectorCandidate[],
): { rule: SelectorRule; matches: SelectorCandidate[] } {
  const kind = classifySelector(selector);
  switch (kind) {
    case 'cmdline': {
      const needle = selector.slice(CMDLINE_PREFIX.length).toLowerCase();
      return { rule: 'cmdline', matches: candidates.filter((c) => c.cmdline.toLowerCase().includes(needle)) };
    }
    case 'cwd': {
      const dir = selector.slice(CWD_PREFIX.length);
      return { rule: 'cwd', matches: candidates.filter((c) => cwdIsUnder(c.cwd, dir)) };
    }
    case 'pane_id':
      return {
        rule: 'pane_id',
        matches: candidates.filter((c) => c.paneId === selector || c.aliases.includes(selector)),
      };
    case 'surface_id': {
      const id = Number(selector);
      return { rule: 'surface_id', matches: candidates.filter((c) => c.surfaceId === id) };
    }
    case 'name': {
      const agents = candidates.filter((c) => c.agentName === selector);
      if (agents.length > 0) return { rule: 'agent_name', matches: agents };
      return { rule: 'pane_name', matches: candidates.filter((c) => c.paneName === selector) };
    }
  }
}

/**
 * The panes `selector` designates. Throws invalid_params for an empty selector or prefix
 * argument, target_not_found for no match, and target_ambiguous for several unless allowMany.
 */
export function resolveSelector(
  selector: string,
  candidates: readonly SelectorCandidate[],
  opts: ResolveOptions = {},
): SelectorCandidate[] {
  if (selector.trim() === '') throw new CorralError('invalid_params', 'empty target selector', { selector });
  const kind = classifySelector(selector);
  if ((kind === 'cmdline' || kind === 'cwd') && selector.slice(kind.length + 1) === '') {
    throw new CorralError('invalid_params', `"${selector}" needs a value after "${kind}:"`, { selector });
  }
  const { matches } = matchSelector(selector, candidates);
  if (matches.length === 0) {
    throw new CorralError('target_not_found', `no pane matches "${selector}"`, {
      selector,
      candidates: summarise(candidates),
    });
  }
  if (matches.length > 1 && opts.allowMany !== true) {
    const listed = matches.slice(0, SELECTOR_LIMITS.maxListed).map((c) => c.paneId).join(', ');
    const more = matches.length > SELECTOR_LIMITS.maxListed ? `, … ${matches.length - SELECTOR_LIMITS.maxListed} more` : '';
    throw new CorralError('target_ambiguous', `"${selector}" matches ${matches.length} panes: ${listed}${more}`, {
      selector,
      candidates: summarise(matches),
    });
  }
  return matches;
}
