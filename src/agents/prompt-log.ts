/**
 * The prompts corral typed into each agent, newest last (issue 29): an answer read from the
 * screen starts below the row that echoes the prompt it answers, and one read from a session
 * record is checked to hold it (the record may lag the screen by a moment). Kept beside the
 * registry, keyed by its tracked agent object, so a restarted agent (a new object) starts
 * with none and a gone one's prompts go with it.
 */

const MAX_PROMPTS = 20;

const prompts = new WeakMap<object, string[]>();

/** Records a prompt typed into `agent` (submitted at once, or later by an Enter from elsewhere). */
export function notePrompt(agent: object, text: string): void {
  const list = prompts.get(agent) ?? [];
  list.push(text);
  if (list.length > MAX_PROMPTS) list.splice(0, list.length - MAX_PROMPTS);
  prompts.set(agent, list);
}

/** The prompts corral typed into `agent`, oldest first (at most the last 20). */
export function submittedPrompts(agent: object): readonly string[] {
  return prompts.get(agent) ?? [];
}
