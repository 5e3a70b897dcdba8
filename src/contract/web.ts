/**
 * What the web view (SPEC §16, `corral web`) asks of the server: the fleet page's facts in one
 * reply (`web.fleet`), one pane's screen as a stream (`pane.watch`) and a person's input from
 * the page (`web.input`). Plain data shared by the server, `corral web` and the page's bundle.
 */
import type { AgentStatus, AgentUsage, ConductorState } from './objects.js';

/** One answer to a blocked agent's prompt, as its rule file declares it (`[answers]`). */
export interface WebAnswer {
  label: string;
  keys: string[];
}

/** One agent on the fleet page. */
export interface WebAgent {
  /** The machine it runs on (SPEC §14); null for this one. */
  machine: string | null;
  pane_id: string;
  workspace: string;
  /** The workspace's label, as the sidebar shows it. */
  workspace_label: string;
  tool: string;
  name: string | null;
  state: ConductorState;
  agent_status: AgentStatus;
  /** Whether a person has seen it since it last finished (a done agent not seen needs you). */
  seen: boolean;
  /** How long ago its status last changed, in ms (null when not known, e.g. on another machine). */
  since_ms: number | null;
  /** The question a blocked agent asks, or its last message. */
  message: string | null;
  /** The last non-blank lines it printed, plain text (the page shows them escaped). */
  last_lines: string[];
  /** The answer keys of its kind (empty when its rule file declares none). */
  answers: WebAnswer[];
  /** What it spent (SPEC §18); null or absent when unknown. */
  usage?: AgentUsage | null;
}

/** One pane without an agent. */
export interface WebPane {
  machine: string | null;
  pane_id: string;
  workspace: string;
  workspace_label: string;
  name: string | null;
  title: string;
  cmd: string;
  last_lines: string[];
}

/** `web.fleet`. */
export interface WebFleet {
  /** The scripting gate's state (SPEC §8). */
  scripting: boolean;
  agents: WebAgent[];
  panes: WebPane[];
}

/** `web.hello`: who the web view is to the server, and whether a person's keys may pass. */
export interface WebHello {
  client_id: string;
  /** The web view was started by a person at their own terminal: its keys pass with the gate closed. */
  person: boolean;
  /** Why its keys do not pass while the gate is closed, in words (null for a person). */
  why: string | null;
}

/** The notification `pane.watch` streams: a snapshot first, then each batch and resize. */
export const PANE_WATCH_NOTIFICATION = 'pane.watch';

export type PaneWatchMessage =
  | { kind: 'snapshot'; pane_id: string; cols: number; rows: number; data: string }
  /** `data`: the batch's bytes in base64 (a batch may end inside a UTF-8 character). */
  | { kind: 'output'; pane_id: string; data: string }
  | { kind: 'resize'; pane_id: string; cols: number; rows: number }
  | { kind: 'closed'; pane_id: string };
