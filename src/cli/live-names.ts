/**
 * The running server's names for shell completion (SPEC §17): panes, agents, workspaces, tabs,
 * worktrees, machines, each from one read-only list call. A TAB must never hang nor print an
 * error: no server, a refused socket directory or a server slower than LOOKUP.timeoutMs all
 * give no names. Machines saved in machines.toml are listed without a server too (the
 * `machine` verbs edit that file themselves).
 */
import { connect as netConnect, type Socket } from 'node:net';
import { dirname } from 'node:path';
import type { MethodCaller } from '../contract/protocol.js';
import { machinesPath, readMachines } from '../machines/machine-config.js';
import { RpcClient } from '../rpc/client.js';
import { assertPrivateDir } from '../socket-dir.js';
import type { NameKind } from './completion-slots.js';

export const LOOKUP = {
  /** A TAB waits this long for the server at most: long enough for a list call, short enough not to feel stuck. */
  timeoutMs: 300,
} as const;

/** A name to offer and what it is (zsh and fish show it beside the name). */
export interface LiveName {
  value: string;
  description: string;
}

/** Where to ask: the session's socket, and the machine `--machine NAME` sends the verb to. */
export interface NameSource {
  socketPath: string;
  machine?: string;
}

/** The names of `kind`; none when they cannot be had in time. */
export async function liveNames(kind: NameKind, source: NameSource, timeoutMs: number = LOOKUP.timeoutMs): Promise<LiveName[]> {
  const fromServer = await withServer(source.socketPath, timeoutMs, (client) => {
    // Machines are this host's list; everything else lives where the verb will run.
    if (kind !== 'machine' && source.machine) client.forMachine(source.machine);
    return LISTS[kind](client);
  });
  if (fromServer !== null) return fromServer;
  return kind === 'machine' ? savedMachines() : [];
}

/** One list call per kind. */
const LISTS: Readonly<Record<NameKind, (client: MethodCaller) => Promise<LiveName[]>>> = {
  async target(client) {
    const { panes } = await client.call('pane.list', {});
    return panes.flatMap((pane) => [
      { value: pane.pane_id, description: pane.agent ? `${pane.agent.name ?? pane.agent.kind} (${pane.agent.kind})` : pane.name ?? pane.cmd },
      ...(pane.name ? [{ value: pane.name, description: `pane ${pane.pane_id}` }] : []),
      ...(pane.agent?.name ? [{ value: pane.agent.name, description: `${pane.agent.kind} agent in ${pane.pane_id}` }] : []),
    ]);
  },
  async pane(client) {
    const { panes } = await client.call('pane.list', {});
    return panes.map((pane) => ({ value: pane.pane_id, description: pane.name ?? pane.agent?.name ?? pane.agent?.kind ?? pane.cmd }));
  },
  async agent(client) {
    const { agents } = await client.call('agent.list', {});
    return agents.flatMap((agent) => [
      ...(agent.name ? [{ value: agent.name, description: `${agent.kind} agent in ${agent.pane_id}` }] : []),
      { value: agent.pane_id, description: `${agent.name ?? agent.kind} (${agent.kind})` },
    ]);
  },
  async workspace(client) {
    const { workspaces } = await client.call('workspace.list', {});
    return workspaces.map((w) => ({ value: w.workspace_id, description: w.label }));
  },
  async tab(client) {
    const { tabs } = await client.call('tab.list', {});
    return tabs.map((t) => ({ value: t.tab_id, description: t.label }));
  },
  async worktree(client) {
    const { worktrees } = await client.call('worktree.list', {});
    return worktrees.map((w) => ({ value: w.name, description: w.branch }));
  },
  async machine(client) {
    const { machines } = await client.call('machine.list', {});
    return machines.map((m) => ({ value: m.name, description: m.target }));
  },
};

/** The machines saved in machines.toml; none when it is missing or unreadable. */
function savedMachines(): LiveName[] {
  try {
    return readMachines(machinesPath()).map((m) => ({ value: m.name, description: m.target }));
  } catch {
    return [];
  }
}

/**
 * Runs `body` against the server at `socketPath`; null when there is none, it refuses, or it
 * has not answered within `timeoutMs`. The socket is this function's: it is destroyed at the
 * end whatever happened, so a stuck server never keeps the completing shell waiting.
 */
async function withServer<T>(socketPath: string, timeoutMs: number, body: (client: RpcClient) => Promise<T>): Promise<T | null> {
  let socket: Socket | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    // The same check every verb makes before it trusts a socket (SPEC §8).
    assertPrivateDir(dirname(socketPath));
    const timedOut = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), timeoutMs);
    });
    const answer = (async () => {
      const connected = netConnect(socketPath);
      socket = connected;
      await new Promise<void>((resolve, reject) => {
        connected.once('connect', () => resolve());
        connected.once('error', reject);
      });
      return body(RpcClient.over(connected, socketPath));
    })();
    // A late failure after the timeout won: nothing waits for it, nothing reports it.
    answer.catch(() => {});
    return await Promise.race([answer, timedOut]);
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
    socket?.destroy();
  }
}
