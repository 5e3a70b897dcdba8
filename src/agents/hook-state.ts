/**
 * What a hook event (`ai.*` from `corral hook`, SPEC §4 source 1) does to an agent's state:
 * a submitted prompt or a tool is work, a notification blocks, a stop is idle, an exit ends it.
 */
import type { AgentState, StatusChange } from './agent-state.js';

/** Applies hook `event` with its params to `state`; the change it made, or null. */
export function observeHook(state: AgentState, event: string, params: Record<string, unknown>, now: number, visible: boolean): StatusChange | null {
  const text = (key: string) => (typeof params[key] === 'string' ? (params[key] as string) : null);
  switch (event) {
    case 'ai.prompt_submit':
      return state.observeHook('working', now, { visible, tool: null });
    case 'ai.tool_use':
      return state.observeHook('working', now, { visible, tool: text('tool_name') ?? text('active_tool_name') });
    case 'ai.notification':
      return state.observeHook('blocked', now, { visible, message: text('message') });
    case 'ai.stop':
      return state.observeHook('idle', now, { visible, lastResult: text('last_result') });
    case 'ai.exit': {
      const code = typeof params.exit_code === 'number' ? params.exit_code : 0;
      return state.exited(code, now, visible);
    }
    case 'ai.session_start': {
      // Codex 0.171 fires SessionStart lazily, with the first prompt, after that turn began:
      // a session starting says nothing of a turn in progress, and must not finish it (it
      // read as done 0.1 s into the answer, with no last_result).
      const current = state.snapshot().detected;
      return current !== 'working' && current !== 'blocked' ? state.observeHook('idle', now, { visible }) : null;
    }
    default:
      return null;
  }
}
