/** The Conductor surface: `surface.*` and `fleet.list` (SPEC §5). */
import { checkBudget, openTurn } from '../../actions/budget.js';
import { READ_SOURCES } from '../../contract/protocol.js';
import { optBool, optInt, optOneOf, optStr, str, text, type Params } from '../params.js';
import { readPane, sendText, sendKeys } from '../../actions/pane-io.js';
import { wrapUntrusted } from '../../core/fence.js';
import { fleetRow, surfaceRow, surfaceStatus } from '../../core/views.js';
import type { CorralCore } from '../../core/corral-core.js';
import type { PaneRecord } from '../../session/model.js';
import { keysParam } from './handler-params.js';
import { BOUNDS, PARAM_DEFAULTS } from '../../contract/bounds.js';
import { submitDelayMs } from '../../agents/kind-facts.js';
import type { HandlerGroup } from './context.js';
import { notePrompt } from '../../agents/prompt-log.js';

/** A `target` param: a selector or a bare surface id number. */
function targetSelector(p: Params): string {
  const raw = p.target;
  if (typeof raw === 'number' && Number.isInteger(raw)) return String(raw);
  return str(p, 'target');
}

function target(core: CorralCore, p: Params): PaneRecord {
  return core.resolveOne(targetSelector(p));
}

export const surfaceHandlers = {
  // This machine's agents, then every connected machine's (SPEC §14), each row with its `machine`.
  'fleet.list': async (_p, { core, machines }) => ({
    agents: [...[...core.agents.agents()].map(({ pane }) => fleetRow(core, pane)), ...((await machines?.fleetRows()) ?? [])],
  }),
  'surface.list': async (p, { core, machines }) => {
    const workspace = optStr(p, 'workspace');
    const match = optStr(p, 'match');
    if (workspace) core.model.workspace(workspace);
    const panes = match ? core.resolve(match, { allowMany: true }) : [...core.model.tabs.values()].flatMap((t) => core.model.tabPanes(t.id));
    const local = panes.filter((pane) => !workspace || pane.workspaceId === workspace).map((pane) => surfaceRow(core, pane));
    // A listing narrowed to a local workspace or selector is about this machine only.
    const remote = workspace || match ? [] : ((await machines?.surfaceRows()) ?? []);
    return { surfaces: [...local, ...remote] };
  },
  'surface.status': (p, { core }) => surfaceStatus(core, target(core, p)),
  'surface.read': (p, { core }) => {
    const opts = {
      source: optOneOf(p, 'source', READ_SOURCES) ?? 'recent',
      lines: optInt(p, 'lines', BOUNDS.readLines.min, BOUNDS.readLines.max) ?? PARAM_DEFAULTS.surfaceReadLines,
    };
    const pane = target(core, p);
    const { read, totalLines, endLine, lineCount, lineStarts } = readPane(core, pane, opts);
    const raw = optBool(p, 'raw') ?? false;
    const eof = core.paneExit(pane).exited;
    const fenced = core.config.ai_injection_fence && !raw;
    return {
      text: fenced ? wrapUntrusted(read.text, { surfaceId: pane.surfaceId, totalLines, eof }) : read.text,
      lines: lineCount,
      total_lines: totalLines,
      end_line: endLine,
      ...(lineStarts ? { line_starts: lineStarts } : {}),
      eof,
      fenced,
      output_generation: read.revision,
    };
  },
  'surface.search': (p, { core }) => {
    const pane = target(core, p);
    return core.view(pane).search(str(p, 'pattern'), {
      regex: optBool(p, 'regex') ?? false,
      maxMatches: optInt(p, 'max_matches', BOUNDS.maxMatches.min, BOUNDS.maxMatches.max) ?? PARAM_DEFAULTS.maxMatches,
    });
  },
  'surface.send_text': async (p, { core }) => {
    const body = text(p, 'text');
    const submit = optBool(p, 'submit') ?? false;
    // Submitting to an agent uses the agent's own pause before Enter, as `agent prompt` does.
    const send = (pane: PaneRecord) => {
      const agent = core.agents.agentIn(pane);
      // A submit to a spent agent types nothing; one that goes through opens its turn (SPEC §18).
      if (agent && submit) {
        checkBudget(core, pane);
        openTurn(core, pane, null);
      }
      // Text typed into an agent is a prompt `agent read --answer` looks for.
      if (agent && body.trim() !== '') notePrompt(agent, body);
      const kind = agent?.kind;
      const enterDelayMs = kind ? submitDelayMs(kind) : undefined;
      return sendText(core, pane, body, { submit, enterDelayMs });
    };
    if (optBool(p, 'all')) {
      const panes = core.resolve(targetSelector(p), { allowMany: true });
      const results = await Promise.all(panes.map(async (pane) => ({ surface_id: pane.surfaceId, ...(await send(pane)) })));
      return { sent: true, length: body.length, submitted: submit, paste: results.some((r) => r.paste), surfaces: results };
    }
    return send(target(core, p));
  },
  'surface.send_keys': (p, { core }) => {
    sendKeys(core, target(core, p), keysParam(p));
    return { sent: true };
  },
  'surface.focus': (p, { core }) => {
    const pane = core.focusPane(target(core, p).id);
    return { focused: true, surface_id: pane.surfaceId, pane_id: pane.id };
  },
  'surface.rename': (p, { core }) => {
    const name = text(p, 'name');
    const pane = core.renamePane(target(core, p).id, name);
    return { renamed: true, name: pane.name };
  },
} satisfies HandlerGroup;

