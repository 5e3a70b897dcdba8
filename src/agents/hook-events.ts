/**
 * From an agent's hook payload to corral's `ai.*` notification (SPEC §4, source 1). Pure:
 * the payload shapes are the ones Claude Code 2.1, Gemini CLI 0.61 and Codex 0.171 actually
 * sent (recorded in docs/hooks.md and test/unit/agent-hooks.test.ts); unknown fields are
 * ignored and missing ones left out, so newer agent versions degrade to less detail.
 */

/** corral's hook events; `corral hook <event>` takes one of these. */
export const AI_EVENTS = ['session_start', 'prompt_submit', 'tool_use', 'notification', 'stop', 'exit', 'session_end'] as const;
export type AiEvent = (typeof AI_EVENTS)[number];

/** Agents whose hook systems corral installs into. */
export const HOOK_AGENTS = ['claude', 'codex', 'gemini', 'qwen'] as const;
export type HookAgent = (typeof HOOK_AGENTS)[number];

/** Claude Code's events, which Qwen Code fires too. */
const CLAUDE_EVENTS: Readonly<Record<string, AiEvent>> = {
  SessionStart: 'session_start',
  UserPromptSubmit: 'prompt_submit',
  PreToolUse: 'tool_use',
  // After a permission prompt was answered the tool runs: working again.
  PostToolUse: 'tool_use',
  Notification: 'notification',
  Stop: 'stop',
  SessionEnd: 'session_end',
};

/**
 * Each agent's native event names and the corral event they carry. The install writes one
 * handler per native event; the mapping also serves payloads whose `--agent` is unknown.
 */
export const NATIVE_EVENTS: Readonly<Record<HookAgent, Readonly<Record<string, AiEvent>>>> = {
  claude: CLAUDE_EVENTS,
  codex: {
    SessionStart: 'session_start',
    UserPromptSubmit: 'prompt_submit',
    PreToolUse: 'tool_use',
    PostToolUse: 'tool_use',
    // Codex has no Notification event; this one fires just before its approval prompt shows.
    PermissionRequest: 'notification',
    Stop: 'stop',
  },
  // Qwen Code 0.24 fires Claude's events with Claude's payloads (recorded in docs/hooks.md),
  // and gets Claude's treatment: Notification (permission_prompt) rather than PermissionRequest.
  qwen: CLAUDE_EVENTS,
  gemini: {
    SessionStart: 'session_start',
    BeforeAgent: 'prompt_submit',
    BeforeTool: 'tool_use',
    AfterTool: 'tool_use',
    Notification: 'notification',
    AfterAgent: 'stop',
    SessionEnd: 'session_end',
  },
};

/** Bounds on what a notification carries: hooks must stay small and fast. */
export const HOOK_LIMITS = {
  /** Longest text field sent (last_result, message, prompt): enough for a summary line or ten. */
  maxTextChars: 4000,
} as const;

/**
 * Claude Notification types that do not mean "waiting for the user to decide": idle_prompt
 * fires after 60 s of an idle prompt (the agent is idle, not blocked), the others report
 * things that already happened.
 */
const NON_BLOCKING_CLAUDE_NOTIFICATIONS = new Set([
  'idle_prompt',
  'auth_success',
  'elicitation_complete',
  'elicitation_response',
  'computer_use_enter',
  'computer_use_exit',
]);

/** Tools that show the user a question: their pre-tool event means blocked, not working. */
const ASK_USER_TOOLS = new Set(['AskUserQuestion', 'ask_user', 'request_user_input']);

/** The notification to send: method `ai.<event>` and its params (pane_id is added by the sender). */
export interface MappedHook {
  event: AiEvent;
  params: Record<string, unknown>;
  /** Set when a stop carried no final text but names a transcript to read it from. */
  transcriptPath?: string;
}

type Payload = Record<string, unknown>;

function text(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  return value.length > HOOK_LIMITS.maxTextChars ? `${value.slice(0, HOOK_LIMITS.maxTextChars)}…` : value;
}

function record(value: unknown): Payload | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Payload) : undefined;
}

/** Normalises `session-start`, `SessionStart`-style input to an AiEvent, or undefined. */
export function parseAiEvent(name: string): AiEvent | undefined {
  const snake = name.replace(/-/g, '_').toLowerCase();
  return (AI_EVENTS as readonly string[]).includes(snake) ? (snake as AiEvent) : undefined;
}

/** The agent a payload most likely came from, by its event name and fields. */
export function guessHookAgent(payload: Payload): HookAgent | undefined {
  const name = typeof payload.hook_event_name === 'string' ? payload.hook_event_name : '';
  if (name in NATIVE_EVENTS.gemini && !(name in NATIVE_EVENTS.claude)) return 'gemini';
  // Gemini stamps every payload with `timestamp`; Codex with `turn_id` or `model` everywhere.
  if (typeof payload.timestamp === 'string') return 'gemini';
  if (name === 'PermissionRequest' || typeof payload.turn_id === 'string') return 'codex';
  return name in NATIVE_EVENTS.claude ? 'claude' : undefined;
}

/** The first question of an ask-the-user tool's input, for the notification message. */
function questionOf(input: Payload | undefined): string | undefined {
  if (!input) return undefined;
  const questions = Array.isArray(input.questions) ? input.questions : [];
  const first = record(questions[0]);
  return text(first?.question) ?? text(input.question) ?? text(input.prompt);
}

/**
 * Maps one hook invocation. `event` is what the installed command passed (`corral hook
 * tool_use`); the payload's `hook_event_name` refines it (PostToolUse vs PreToolUse). Null
 * means "send nothing" (a Claude idle reminder, a payload that maps to no state).
 */
export function mapHookEvent(event: AiEvent, payload: Payload, agent?: HookAgent, extra: { exitCode?: number } = {}): MappedHook | null {
  const kind = agent ?? guessHookAgent(payload);
  const native = typeof payload.hook_event_name === 'string' ? payload.hook_event_name : undefined;
  const params: Record<string, unknown> = {};
  const set = (key: string, value: unknown): void => {
    if (value !== undefined) params[key] = value;
  };
  set('kind', kind);
  set('hook_event_name', native);
  set('session_id', text(payload.session_id));
  set('cwd', text(payload.cwd));

  switch (event) {
    case 'session_start':
      set('source', text(payload.source));
      set('model', text(payload.model));
      return { event, params };
    case 'prompt_submit':
      set('prompt', text(payload.prompt));
      return { event, params };
    case 'tool_use': {
      const tool = text(payload.tool_name);
      const input = record(payload.tool_input);
      const phase = native === 'PostToolUse' || native === 'AfterTool' ? 'post' : 'pre';
      if (phase === 'pre' && tool !== undefined && ASK_USER_TOOLS.has(tool)) {
        // The agent is about to show a question and wait: that is blocked, not working.
        set('message', questionOf(input) ?? `${kind ?? 'the agent'} asks a question`);
        set('notification_type', 'question');
        set('tool_name', tool);
        return { event: 'notification', params };
      }
      set('tool_name', tool);
      set('active_tool_name', phase === 'pre' ? tool : undefined);
      set('phase', phase);
      return { event, params };
    }
    case 'notification': {
      const type = text(payload.notification_type);
      if ((kind === 'claude' || kind === 'qwen') && type !== undefined && NON_BLOCKING_CLAUDE_NOTIFICATIONS.has(type)) return null;
      set('notification_type', type ?? (native === 'PermissionRequest' ? 'permission_request' : undefined));
      const input = record(payload.tool_input);
      const tool = text(payload.tool_name);
      const fallback = tool ? `${kind ?? 'the agent'} needs approval for ${tool}${input && typeof input.command === 'string' ? `: ${input.command}` : ''}` : undefined;
      set('message', text(payload.message) ?? text(input?.description) ?? fallback ?? 'the agent needs your attention');
      set('tool_name', tool);
      return { event, params };
    }
    case 'stop': {
      const last = text(payload.last_assistant_message) ?? text(payload.prompt_response);
      set('last_result', last);
      const transcript = text(payload.transcript_path);
      set('transcript_path', transcript);
      return last === undefined && transcript !== undefined ? { event, params, transcriptPath: transcript } : { event, params };
    }
    case 'exit': {
      const code = extra.exitCode ?? (typeof payload.exit_code === 'number' ? payload.exit_code : undefined);
      set('exit_code', code);
      return { event, params };
    }
    case 'session_end':
      set('reason', text(payload.reason));
      return { event, params };
  }
}

/** The Claude-style transcript lines a stop's last_result is read from. */
interface TranscriptLine {
  type?: unknown;
  message?: { role?: unknown; content?: unknown };
}

/**
 * The last assistant text in the tail of a Claude Code transcript (JSONL: one object per
 * line, `{"type":"assistant","message":{"content":[{"type":"text","text":…}]}}`). The tail
 * may start mid-line; unparseable lines are skipped. Undefined when there is none.
 */
export function lastAssistantText(tail: string): string | undefined {
  const lines = tail.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i].trim();
    if (!line.startsWith('{') || !line.includes('"assistant"')) continue;
    let entry: TranscriptLine;
    try {
      entry = JSON.parse(line) as TranscriptLine;
    } catch {
      continue;
    }
    if (entry.type !== 'assistant' && entry.message?.role !== 'assistant') continue;
    const content = entry.message?.content;
    const texts =
      typeof content === 'string'
        ? [content]
        : Array.isArray(content)
          ? content.flatMap((part) => (record(part)?.type === 'text' && typeof record(part)?.text === 'string' ? [record(part)!.text as string] : []))
          : [];
    const joined = texts.join('\n').trim();
    // A turn ending in a tool call has no text in its last entry: keep looking back.
    if (joined !== '') return text(joined);
  }
  return undefined;
}
