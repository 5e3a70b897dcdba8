/**
 * The config keys of SPEC §11: names, defaults, validators and one-line docs, in one table
 * so the loader, the sample file and docs/config.md cannot drift apart (a test checks).
 */
import { isKeyChord } from './key-chord.js';
import { DEFAULT_PREDICT, PREDICT_MODES, type PredictMode } from '../screen/remote-prediction.js';

/** The validated config the rest of corral reads. Field names are the TOML key names. */
export interface Config {
  ai_unrestricted: boolean;
  ai_injection_fence: boolean;
  agent_stall_threshold_secs: number;
  shell: string;
  scrollback_lines: number;
  max_panes: number;
  /** Save the session and restore it when the server starts (SPEC §13). */
  persist: boolean;
  persist_scrollback_lines: number;
  resume_agents: boolean;
  keys: KeysConfig;
  ui: UiConfig;
  notify: NotifyConfig;
  machines: MachinesConfig;
  worktree: WorktreeConfig;
  checkpoints: CheckpointsConfig;
}

/** `[checkpoints]` (SPEC §20). */
export interface CheckpointsConfig {
  /** Checkpoints kept per agent; the oldest refs are dropped past it. */
  keep: number;
}

export interface MachinesConfig {
  /** The ssh program and its leading arguments for machine links (SPEC §14); `CORRAL_SSH` overrides. */
  ssh: readonly string[];
  /** Predicted echo on remote panes (mosh's --predict; docs/machines.md). */
  predict: PredictMode;
}

/** `[worktree]` (SPEC §11, §15). */
export interface WorktreeConfig {
  /** Where worktrees go (`<root>/<name>`); '' for the default under `$XDG_DATA_HOME/corral/worktrees/`. */
  root: string;
  /** A shell command run in each new worktree; '' for none (then `.corral/worktree-setup`, if executable). */
  setup: string;
  setup_timeout_secs: number;
}

export interface KeysConfig {
  prefix: string;
  /** `[keys] <action> = "<chord>"` entries other than `prefix`, as written. */
  overrides: Readonly<Record<string, string>>;
}

export interface UiConfig {
  sidebar_width: number;
}

export interface NotifyConfig {
  /** Agent statuses that notify when their pane is not in view (SPEC §12). */
  on: readonly string[];
  /** A shell command run with the event as JSON on stdin; '' for none. */
  command: string;
}

/** The statuses `[notify] on` may name: SPEC §4's canonical vocabulary. */
export const NOTIFY_STATUSES = ['idle', 'working', 'blocked', 'done', 'unknown', 'errored', 'stalled'] as const;

type Env = Record<string, string | undefined>;

export const CONFIG_LIMITS = {
  /** More than a million lines per pane would cost hundreds of MB per pane in xterm's buffer. */
  maxScrollbackLines: 1_000_000,
  /** Saved lines are read, compressed and written again every time a pane changes: 100k lines per pane is plenty. */
  maxPersistScrollbackLines: 100_000,
  /** Each pane is a process and a pty; past this many the host's limits (fds, pids) bite first. */
  maxMaxPanes: 65_536,
  /** A stall threshold past a day is meaningless, and keeps the ms value far from setTimeout's 2^31 overflow. */
  maxStallThresholdSecs: 86_400,
  /** Each checkpoint is a ref (and the objects only it keeps): ten thousand per agent is far past any review. */
  maxCheckpointsKept: 10_000,
  /** Narrower than 10 cells cannot show an agent name; wider than 80 leaves no room for panes. */
  minSidebarWidth: 10,
  maxSidebarWidth: 80,
  /** A setup past a day is stuck, not slow. */
  maxSetupTimeoutSecs: 86_400,
} as const;

/** What a value must be, phrased to follow `key "x" …`; null when the value is fine. */
export type Check = (value: unknown) => string | null;

const isBool: Check = (v) => (typeof v === 'boolean' ? null : 'must be true or false');

const intBetween = (min: number, max: number): Check => (v) =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max
    ? null
    : `must be an integer between ${min} and ${max}`;

const nonEmptyString: Check = (v) => (typeof v === 'string' && v.trim() !== '' ? null : 'must be a non-empty string');

/** Exported for the [keys] override entries, which share the prefix's rule. */
export const isChord: Check = (v) =>
  typeof v === 'string' && isKeyChord(v)
    ? null
    : 'must be a key chord like "ctrl+b", "alt+x", "f5" or a single character';

const isString: Check = (v) => (typeof v === 'string' ? null : 'must be a string');

const wordList: Check = (v) =>
  Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string' && x !== '') ? null : 'must be a non-empty list of non-empty strings (a program and its arguments)';

const predictMode: Check = (v) => (typeof v === 'string' && (PREDICT_MODES as readonly string[]).includes(v) ? null : `must be one of ${PREDICT_MODES.map((x) => `"${x}"`).join(', ')}`);

const statusList: Check = (v) =>
  Array.isArray(v) && v.every((x) => typeof x === 'string' && (NOTIFY_STATUSES as readonly string[]).includes(x))
    ? null
    : `must be a list of agent states (${NOTIFY_STATUSES.map((x) => `"${x}"`).join(', ')})`;

export interface KeySpec {
  /** Dotted TOML path: `shell`, `ui.sidebar_width`. */
  path: string;
  check: Check;
  /** The default as it would be written in TOML (for docs and the sample file). */
  defaultText: string;
  doc: string;
}

/** Every fixed key corral reads. `[keys]` also takes one override per TUI action id (src/config/keybindings.ts). */
export const CONFIG_KEYS: readonly KeySpec[] = [
  { path: 'ai_unrestricted', check: isBool, defaultText: 'false', doc: 'open the scripting gate: allow CLI/RPC clients to submit input to panes' },
  { path: 'ai_injection_fence', check: isBool, defaultText: 'true', doc: 'wrap peer terminal output returned by reads in an <untrusted_terminal_output> fence' },
  {
    path: 'agent_stall_threshold_secs',
    check: intBetween(1, CONFIG_LIMITS.maxStallThresholdSecs),
    defaultText: '120',
    doc: 'an agent that is working with no screen activity for this long is reported as stalled',
  },
  { path: 'shell', check: nonEmptyString, defaultText: '"$SHELL" (else "/bin/sh")', doc: 'the shell new panes run' },
  {
    path: 'scrollback_lines',
    check: intBetween(0, CONFIG_LIMITS.maxScrollbackLines),
    defaultText: '10000',
    doc: 'lines of scrollback kept per pane',
  },
  {
    path: 'max_panes',
    check: intBetween(1, CONFIG_LIMITS.maxMaxPanes),
    defaultText: '512',
    doc: 'most panes one server holds; creating more is refused with invalid_params',
  },
  { path: 'persist', check: isBool, defaultText: 'true', doc: 'save the session and restore it when the server starts (docs/persistence.md)' },
  {
    path: 'persist_scrollback_lines',
    check: intBetween(0, CONFIG_LIMITS.maxPersistScrollbackLines),
    defaultText: '2000',
    doc: 'lines of scrollback per pane saved with the session and restored (0 = none)',
  },
  { path: 'resume_agents', check: isBool, defaultText: 'true', doc: "on restore, resume each agent's own session by id where its kind can" },
  { path: 'keys.prefix', check: isChord, defaultText: '"ctrl+b"', doc: 'the prefix key that starts every TUI command' },
  {
    path: 'ui.sidebar_width',
    check: intBetween(CONFIG_LIMITS.minSidebarWidth, CONFIG_LIMITS.maxSidebarWidth),
    defaultText: '28',
    doc: 'width of the left sidebar in cells',
  },
  {
    path: 'notify.on',
    check: statusList,
    defaultText: '["blocked", "done"]',
    doc: 'agent states that notify (sidebar mark, desktop notification, bell, command) when the pane is not in view',
  },
  {
    path: 'notify.command',
    check: isString,
    defaultText: '""',
    doc: 'a shell command run with each notification as JSON on stdin ("" for none)',
  },
  {
    path: 'machines.ssh',
    check: wordList,
    defaultText: '["ssh"]',
    doc: 'the ssh program and its leading arguments for machine links (docs/machines.md); CORRAL_SSH overrides it',
  },
  {
    path: 'machines.predict',
    check: predictMode,
    defaultText: '"always"',
    doc: 'keys typed into a remote pane drawn before their echo returns: "always" (underlined while unconfirmed on a slow link), "adaptive" only while the round trip is over 30 ms, or "never" (docs/machines.md)',
  },
  {
    path: 'worktree.root',
    check: isString,
    defaultText: '""',
    doc: 'where agent worktrees go (<root>/<name>; ~ and paths relative to the repository allowed); "" for $XDG_DATA_HOME/corral/worktrees/<repo>-<hash>',
  },
  {
    path: 'worktree.setup',
    check: isString,
    defaultText: '""',
    doc: 'a shell command run in each new worktree before its agent starts ("" for none: then an executable .corral/worktree-setup, if the repository has one)',
  },
  {
    path: 'worktree.setup_timeout_secs',
    check: intBetween(1, CONFIG_LIMITS.maxSetupTimeoutSecs),
    defaultText: '300',
    doc: 'a setup still running after this long is stopped and reported; the agent does not start unless --keep-going',
  },
  {
    path: 'checkpoints.keep',
    check: intBetween(1, CONFIG_LIMITS.maxCheckpointsKept),
    defaultText: '100',
    doc: 'checkpoints kept per agent (docs/checkpoints.md); past it the oldest are dropped',
  },
];

/** Tables the config may contain; anything else at the top level that is a table is unknown. */
export const CONFIG_TABLES = ['keys', 'ui', 'notify', 'machines', 'worktree', 'checkpoints'] as const;

const DEFAULT_SHELL = '/bin/sh';

/** The defaults of every key; `shell` comes from $SHELL when set. */
export function defaultConfig(env: Env = process.env): Config {
  const shell = env.SHELL !== undefined && env.SHELL.trim() !== '' ? env.SHELL : DEFAULT_SHELL;
  return {
    ai_unrestricted: false,
    ai_injection_fence: true,
    agent_stall_threshold_secs: 120,
    shell,
    scrollback_lines: 10_000,
    max_panes: 512,
    persist: true,
    persist_scrollback_lines: 2000,
    resume_agents: true,
    keys: { prefix: 'ctrl+b', overrides: {} },
    ui: { sidebar_width: 28 },
    notify: { on: ['blocked', 'done'], command: '' },
    machines: { ssh: ['ssh'], predict: DEFAULT_PREDICT },
    worktree: { root: '', setup: '', setup_timeout_secs: 300 },
    checkpoints: { keep: 100 },
  };
}
