/**
 * The agent kinds corral recognises (SPEC §2), by name. What each kind's process looks like,
 * how long its prompt's Enter waits and how its hook config takes a handler are data in the
 * kind's own file, assets/agents/<kind>.toml (read by kind-facts.ts); this list stays in code
 * because SPEC §2 fixes it and the CLI validates `--kind` without reading any file.
 */

/** Every kind, in SPEC §2 order. */
export const AGENT_KINDS = [
  'pi',
  'claude',
  'codex',
  'gemini',
  'cursor',
  'devin',
  'agy',
  'cline',
  'omp',
  'mastracode',
  'opencode',
  'copilot',
  'kimi',
  'kiro',
  'droid',
  'amp',
  'grok',
  'hermes',
  'kilo',
  'qodercli',
  'qwen',
  'letta',
  'maki',
  'muse',
] as const;
export type AgentKind = (typeof AGENT_KINDS)[number];

/** True when `value` names a kind. */
export function isAgentKind(value: string): value is AgentKind {
  return (AGENT_KINDS as readonly string[]).includes(value);
}
