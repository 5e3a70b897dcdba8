/**
 * The web view's methods (SPEC §16). `corral web` is a client of this server, like `corral
 * attach`: it says hello once per connection, reads the fleet in one reply, follows one pane's
 * screen per page and forwards what a person types or taps. Whether those keys reach a pane
 * with the scripting gate closed is decided here, from where the `corral web` process stands
 * (kernel peer credentials through `ClientRights`, as for an attaching client), never from
 * anything it says. Prompts, answers and keys from the page are logged with the client's id.
 */
import type { CorralCore } from '../../core/corral-core.js';
import { CorralError, type WebAgent, type WebAnswer, type WebFleet, type WebPane } from '../../contract/protocol.js';
import type { FleetRow, SurfaceRow } from '../../contract/protocol.js';
import { ClientRights } from '../../pty/client-rights.js';
import { encodeKeys } from '../../terminal/keys.js';
import { visibleControls } from '../../terminal/control-chars.js';
import { fleetRow, surfaceRow } from '../../core/views.js';
import { readPane } from '../../actions/pane-io.js';
import type { PaneRecord } from '../../session/model.js';
import { optInt, optStr, str } from '../params.js';
import { PaneWatch, localPane, type WatchedPane } from '../pane-watch.js';
import type { PeerCaller } from '../peer.js';
import type { HandlerGroup, MachineService, RequestContext } from './context.js';

export const WEB_LIMITS = {
  /** Last lines per row on the fleet page: enough to recognise the work, little enough for a phone. */
  defaultLines: 3,
  maxLines: 20,
  /** A person types far less than this per message; a paste is chunked by the page. */
  maxInputChars: 64 * 1024,
  /** Typing is logged as a count per client and pane at most this often (the text may be a password). */
  typingLogMs: 1000,
} as const;

/** A web view's connection: its id and rights, fixed at `web.hello`. */
interface WebClient {
  id: string;
  rights: ClientRights;
  /** Bytes typed per pane since the last log line. */
  typed: Map<string, number>;
  typingTimer: NodeJS.Timeout | null;
}

const clients = new WeakMap<PeerCaller, WebClient>();
const counters = new WeakMap<CorralCore, number>();

function log(line: string): void {
  // What the page sent reaches the log: no escape sequence of it may act on a terminal.
  process.stderr.write(`corral server: ${visibleControls(line)}\n`);
}

function clientOf(ctx: RequestContext): WebClient {
  const client = clients.get(ctx.peer);
  if (!client) throw new CorralError('invalid_params', 'web.input needs web.hello first on this connection');
  return client;
}

/** The last non-blank lines of a pane's visible screen. */
function lastLines(text: string, count: number): string[] {
  const lines = text.split('\n').map((line) => line.trimEnd());
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return count === 0 ? [] : lines.slice(-count);
}

/**
 * Last lines per pane, kept with the revision they were read at: a fleet read after an event
 * re-reads only the panes whose screen changed since (one, while a person types), not a hundred.
 */
const lineCache = new WeakMap<CorralCore, Map<number, { revision: number; count: number; lines: string[] }>>();

function localLines(core: CorralCore, pane: PaneRecord, count: number): string[] {
  let cache = lineCache.get(core);
  if (!cache) lineCache.set(core, (cache = new Map()));
  try {
    const revision = core.view(pane).revision;
    const hit = cache.get(pane.surfaceId);
    if (hit && hit.revision === revision && hit.count === count) return hit.lines;
    const lines = lastLines(readPane(core, pane, { source: 'visible' }).read.text, count);
    cache.set(pane.surfaceId, { revision, count, lines });
    return lines;
  } catch {
    cache.delete(pane.surfaceId);
    return []; // its process is gone: nothing to show
  }
}

function remoteLines(machines: MachineService | null, paneId: string, count: number): string[] {
  try {
    return machines ? lastLines(machines.readMirror(paneId, { source: 'visible' }).text, count) : [];
  } catch {
    return []; // the mirror has not arrived yet
  }
}

function answersOf(core: CorralCore, pane: PaneRecord): WebAnswer[] {
  return (core.agents.agentIn(pane)?.rules?.answers ?? []).map((a) => ({ label: a.label, keys: [...a.keys] }));
}

function localAgent(core: CorralCore, pane: PaneRecord, row: FleetRow, count: number): WebAgent {
  const snap = core.agents.agentIn(pane)?.state.snapshot();
  return {
    machine: null,
    pane_id: row.pane_id,
    workspace: row.workspace,
    workspace_label: core.model.workspaces.get(pane.workspaceId)?.label ?? row.workspace,
    tool: row.tool,
    name: row.name,
    state: row.state,
    agent_status: row.agent_status,
    seen: snap?.seen ?? true,
    since_ms: snap ? Math.max(0, Date.now() - snap.statusSince) : null,
    message: row.message,
    last_lines: localLines(core, pane, count),
    answers: answersOf(core, pane),
    usage: row.usage ?? null,
  };
}

/** A remote row's pane as this server names it (`build/w1:p2`): what the page watches and types into. */
function qualified(row: { machine: string | null; pane_id: string }): string {
  return row.machine === null || row.pane_id.startsWith(`${row.machine}/`) ? row.pane_id : `${row.machine}/${row.pane_id}`;
}

function remoteAgent(machines: MachineService | null, row: FleetRow, count: number): WebAgent {
  const paneId = qualified(row);
  return {
    machine: row.machine,
    pane_id: paneId,
    workspace: row.workspace,
    workspace_label: row.workspace,
    tool: row.tool,
    name: row.name,
    state: row.state,
    agent_status: row.agent_status,
    // A remote agent's seen flag is not mirrored: a done one counts as seen, so it never
    // claims a person's attention it may not need.
    seen: true,
    since_ms: row.agent_status === 'blocked' ? row.waiting_ms : null,
    message: row.message,
    last_lines: remoteLines(machines, paneId, count),
    answers: [],
    usage: row.usage ?? null,
  };
}

function webPane(core: CorralCore, machines: MachineService | null, row: SurfaceRow, count: number): WebPane {
  const local = row.machine === null ? core.model.paneBySurface(row.surface_id) : undefined;
  const paneId = qualified(row);
  return {
    machine: row.machine,
    pane_id: paneId,
    workspace: row.workspace,
    workspace_label: local ? (core.model.workspaces.get(local.workspaceId)?.label ?? row.workspace) : row.workspace,
    name: row.name,
    title: row.title,
    cmd: row.cmd,
    last_lines: local ? localLines(core, local, count) : remoteLines(machines, paneId, count),
  };
}

/** Whether `paneId` names a pane of a saved machine (`build/w1:p2`), which this server mirrors. */
function remoteId(machines: MachineService | null, paneId: string): boolean {
  const slash = paneId.indexOf('/');
  return machines !== null && slash > 0 && machines.has(paneId.slice(0, slash));
}

/** Another machine's pane as this server's mirror shows it. */
function mirroredPane(machines: MachineService, paneId: string): WatchedPane {
  const view = machines.mirrorView(paneId);
  return { id: () => paneId, view: () => view, onClosed: () => null };
}

/** Logs what a client typed as a count per pane, at most once a second. */
function noteTyping(client: WebClient, paneId: string, bytes: number): void {
  client.typed.set(paneId, (client.typed.get(paneId) ?? 0) + bytes);
  if (client.typingTimer) return;
  client.typingTimer = setTimeout(() => {
    client.typingTimer = null;
    for (const [pane, count] of client.typed) log(`web client ${client.id} typed ${count} bytes into ${pane}`);
    client.typed.clear();
  }, WEB_LIMITS.typingLogMs);
  client.typingTimer.unref();
}

export const webHandlers = {
  'web.hello': (_p, ctx) => {
    let client = clients.get(ctx.peer);
    if (!client) {
      const n = (counters.get(ctx.core) ?? 0) + 1;
      counters.set(ctx.core, n);
      // followTerminal: a `corral web` run in a terminal that a pane's program types into is no person.
      const place = ctx.peer.placeOnce(true);
      const rights = new ClientRights(place, (surfaceId) => ctx.core.model.paneBySurface(surfaceId)?.id ?? `(closed, surface ${surfaceId})`);
      client = { id: `web${n}`, rights, typed: new Map(), typingTimer: null };
      clients.set(ctx.peer, client);
      const created = client;
      ctx.onClose(() => {
        if (created.typingTimer) clearTimeout(created.typingTimer);
        clients.delete(ctx.peer);
      });
      log(`web client ${client.id} connected (pid ${ctx.peer.pid ?? 'unknown'}): ${rights.isPerson ? 'a person at a terminal' : rights.why()}`);
    }
    return { client_id: client.id, person: client.rights.isPerson, why: client.rights.isPerson ? null : client.rights.why() };
  },
  'web.fleet': async (p, { core, machines }) => {
    const count = optInt(p, 'lines', 0, WEB_LIMITS.maxLines) ?? WEB_LIMITS.defaultLines;
    const agents: WebAgent[] = [];
    const withAgent = new Set<string>();
    for (const { pane } of core.agents.agents()) {
      agents.push(localAgent(core, pane, fleetRow(core, pane), count));
      withAgent.add(pane.id);
    }
    for (const row of (await machines?.fleetRows()) ?? []) {
      const agent = remoteAgent(machines, row, count);
      agents.push(agent);
      withAgent.add(agent.pane_id);
    }
    const local = [...core.model.tabs.values()].flatMap((t) => core.model.tabPanes(t.id)).map((pane) => surfaceRow(core, pane));
    const rows = [...local, ...((await machines?.surfaceRows()) ?? [])];
    const panes = rows.filter((row) => !withAgent.has(qualified(row))).map((row) => webPane(core, machines, row, count));
    // Forget the lines of panes that closed (the cache lives as long as the core).
    const cache = lineCache.get(core);
    if (cache) for (const id of cache.keys()) if (!core.model.paneBySurface(id)) cache.delete(id);
    const fleet: WebFleet = { scripting: core.scripting, agents, panes };
    return fleet;
  },
  'pane.watch': (p, ctx) => {
    const id = str(p, 'pane_id');
    const pane = remoteId(ctx.machines, id) ? mirroredPane(ctx.machines!, id) : localPane(ctx.core, ctx.core.resolveOne(id));
    const watch = new PaneWatch(pane, ctx.stream);
    ctx.afterResponse(() => watch.start());
    ctx.holdStream();
    ctx.onClose(() => watch.dispose());
    return { watching: true, pane_id: pane.id() };
  },
  'web.input': (p, ctx) => {
    const client = clientOf(ctx);
    const id = str(p, 'pane_id');
    const remote = remoteId(ctx.machines, id);
    const pane = remote ? null : ctx.core.resolveOne(id);
    const paneId = pane?.id ?? id;
    const data = optStr(p, 'data');
    const answer = optStr(p, 'answer');
    if ((data === undefined) === (answer === undefined)) throw new CorralError('invalid_params', 'give exactly one of "data" and "answer"');
    try {
      client.rights.assertMayType(ctx.core.scripting);
    } catch (error) {
      log(`web client ${client.id}: input for ${paneId} refused: ${(error as Error).message}`);
      throw error;
    }
    if (data !== undefined) {
      if (data.length > WEB_LIMITS.maxInputChars) throw new CorralError('invalid_params', `param "data" is longer than ${WEB_LIMITS.maxInputChars} characters`);
      // A remote pane's keys go through its link as the TUI's do; that machine's side takes them as a person's.
      if (pane) ctx.core.writeToPane(pane, data);
      else ctx.machines!.typeInto(id, data);
      noteTyping(client, paneId, Buffer.byteLength(data));
      return { sent: true };
    }
    if (!pane) throw new CorralError('invalid_params', `answers are pressed in this machine's panes only; open ${id} and type the key`);
    const agent = ctx.core.agents.agentIn(pane);
    const declared = agent?.rules?.answers.find((a) => a.label === answer);
    if (!agent || !declared) throw new CorralError('invalid_params', `${agent ? `${agent.kind} declares no answer ${JSON.stringify(answer)}` : `no agent runs in ${pane.id}`}`);
    // Pressed only while it asks: the same digit typed into its prompt after the dialog went would be text.
    const status = agent.state.snapshot().status;
    if (status !== 'blocked') throw new CorralError('invalid_params', `${agent.kind} in ${pane.id} is ${status}, not blocked: nothing to answer`);
    ctx.core.writeToPane(pane, encodeKeys(declared.keys));
    log(`web client ${client.id} answered ${JSON.stringify(declared.label)} (${declared.keys.join(' ')}) to ${agent.kind} in ${pane.id}`);
    return { sent: true };
  },
} satisfies HandlerGroup;
