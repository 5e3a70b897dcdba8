/**
 * Every TUI command in one table: id, default key (pressed after the prefix), description
 * and category. The help overlay is generated from it and `[keys]` in config.toml overrides
 * it by id, so a binding cannot exist without a description (a unit test checks each entry).
 */
import { encodeKey } from '../terminal/keys.js';

export type CommandId =
  | 'new_tab'
  | 'split_right'
  | 'split_down'
  | 'focus_left'
  | 'focus_down'
  | 'focus_up'
  | 'focus_right'
  | 'last_pane'
  | 'next_pane'
  | 'resize_left'
  | 'resize_down'
  | 'resize_up'
  | 'resize_right'
  | 'close_pane'
  | 'zoom'
  | 'next_tab'
  | 'prev_tab'
  | 'select_tab'
  | 'new_workspace'
  | 'next_workspace'
  | 'prev_workspace'
  | 'workspace_switcher'
  | 'next_attention'
  | 'rename'
  | 'rename_tab'
  | 'rename_workspace'
  | 'mute_pane'
  | 'toggle_scripting'
  | 'copy_mode'
  | 'review'
  | 'paste_buffer'
  | 'help'
  | 'detach'
  | 'send_prefix';

export interface CommandSpec {
  /** Key names (SPEC §6 names or a literal character) that trigger it after the prefix. */
  keys: readonly string[];
  description: string;
  category: 'Panes' | 'Tabs' | 'Workspaces' | 'Agents' | 'Session';
  /** Pressed again within TUNING.repeatMs, it runs again without the prefix (tmux's `bind -r`). */
  repeatable?: boolean;
}

export const COMMANDS: Readonly<Record<CommandId, CommandSpec>> = {
  split_right: { keys: ['v', '%'], description: 'Split the pane, new one to the right', category: 'Panes' },
  split_down: { keys: ['-', '"'], description: 'Split the pane, new one below', category: 'Panes' },
  focus_left: { keys: ['h', 'left'], description: 'Focus the pane to the left', category: 'Panes' },
  focus_down: { keys: ['j', 'down'], description: 'Focus the pane below', category: 'Panes' },
  focus_up: { keys: ['k', 'up'], description: 'Focus the pane above', category: 'Panes' },
  focus_right: { keys: ['l', 'right'], description: 'Focus the pane to the right', category: 'Panes' },
  last_pane: { keys: [';'], description: 'Focus the pane focused before this one', category: 'Panes' },
  next_pane: { keys: ['o'], description: 'Focus the next pane in this tab', category: 'Panes' },
  resize_left: { keys: ['H'], description: 'Resize: move the border left (repeatable)', category: 'Panes', repeatable: true },
  resize_down: { keys: ['J'], description: 'Resize: move the border down (repeatable)', category: 'Panes', repeatable: true },
  resize_up: { keys: ['K'], description: 'Resize: move the border up (repeatable)', category: 'Panes', repeatable: true },
  resize_right: { keys: ['L'], description: 'Resize: move the border right (repeatable)', category: 'Panes', repeatable: true },
  close_pane: { keys: ['x'], description: 'Close the pane (asks if a program runs)', category: 'Panes' },
  zoom: { keys: ['z'], description: 'Zoom the pane to the whole tab, or back', category: 'Panes' },
  rename: { keys: ['r'], description: 'Rename the pane', category: 'Panes' },
  copy_mode: { keys: ['['], description: 'Copy mode: scroll, search (/ ?), select (v V) and copy (y); q or esc leaves', category: 'Panes' },
  paste_buffer: { keys: [']'], description: 'Paste the last copied text into the pane', category: 'Panes' },
  new_tab: { keys: ['c'], description: 'New tab in this workspace', category: 'Tabs' },
  rename_tab: { keys: [','], description: 'Rename the tab', category: 'Tabs' },
  next_tab: { keys: ['n'], description: 'Next tab', category: 'Tabs' },
  prev_tab: { keys: ['p'], description: 'Previous tab', category: 'Tabs' },
  select_tab: { keys: ['1', '2', '3', '4', '5', '6', '7', '8', '9'], description: 'Go to tab 1…9', category: 'Tabs' },
  new_workspace: { keys: ['N'], description: 'New workspace in the pane\u2019s directory', category: 'Workspaces' },
  next_workspace: { keys: [')'], description: 'Next workspace', category: 'Workspaces' },
  prev_workspace: { keys: ['('], description: 'Previous workspace', category: 'Workspaces' },
  workspace_switcher: { keys: ['w'], description: 'Choose a workspace', category: 'Workspaces' },
  rename_workspace: { keys: ['$'], description: 'Rename the workspace', category: 'Workspaces' },
  next_attention: { keys: ['g'], description: 'Jump to the next agent that needs you (blocked, then done)', category: 'Agents' },
  mute_pane: { keys: ['m'], description: 'Mute or unmute notifications from this pane', category: 'Agents' },
  review: {
    keys: ['D'],
    description: 'Review the pane: its agent\u2019s turns ([ ] select, r rewinds) with the turn\u2019s diff, and its worktree\u2019s diff (m merges); scroll and search as in copy mode, q leaves',
    category: 'Agents',
  },
  toggle_scripting: { keys: ['s'], description: 'Toggle the scripting gate (lets scripts submit input)', category: 'Session' },
  help: { keys: ['?'], description: 'Show this help', category: 'Session' },
  detach: { keys: ['d'], description: 'Detach: leave corral, the panes keep running (corral attach)', category: 'Session' },
  send_prefix: { keys: ['ctrl+b'], description: 'Send the prefix key itself to the pane', category: 'Session' },
};

/** The keys of a command in force: `[keys] <command> = "<key>"` replaces the defaults. */
export function commandKeys(id: CommandId, overrides: Readonly<Record<string, string>>, prefix: string): readonly string[] {
  const override = overrides[id];
  if (override !== undefined) return [override];
  return id === 'send_prefix' ? [prefix] : COMMANDS[id].keys;
}

/**
 * The bindings in force as a map from the bytes a key sends to its command. Arrow keys are
 * entered in both cursor-key modes, since the outer terminal may send either.
 */
export function resolveBindings(overrides: Readonly<Record<string, string>>, prefix: string): Map<string, CommandId> {
  const byBytes = new Map<string, CommandId>();
  for (const id of Object.keys(COMMANDS) as CommandId[]) {
    for (const key of commandKeys(id, overrides, prefix)) {
      byBytes.set(encodeKey(key), id);
      byBytes.set(encodeKey(key, { applicationCursor: true }), id);
    }
  }
  return byBytes;
}

/** Command ids, for validating `[keys]` in config. */
export const COMMAND_IDS = Object.keys(COMMANDS) as CommandId[];
