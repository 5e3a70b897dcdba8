// What corral's scripted model says, independent of the wire protocol: which kind of answer a
// request gets (the "plan"), the fixed texts, and how slowly they come. Each API module
// (anthropic.mjs, gemini.mjs, openai-responses.mjs, openai-chat.mjs) only translates a plan
// into its own request and event shapes, so the agents all see the same conversation.

/** The slow answer to any ordinary prompt: six lines, so a test can see it mid-stream and whole. */
export const ANSWER = [
  'Here is a slowly streamed answer from the fake model.',
  'Line two of the answer arrives a bit later.',
  'Line three: still streaming, the agent should look busy.',
  'Line four: chunks keep coming over a few seconds.',
  'Line five: almost there.',
  'Final line: Done.',
].join('\n');

/** The answer once a tool result (a command's output, the user's pick) came back. */
export const FINAL = 'The command finished. All done.';

/** Said before every tool call: real models usually explain first, and agents show it as text. */
export const PREAMBLE = 'I will use a tool now.';

/** Side calls (session titles, topic checks) get this at once. */
export const TITLE = 'Fake session title';

/** The question behind ASKQ, with two choices; each API module shapes it for its agent's tool. */
export const QUESTION = {
  question: 'Which color should the widget be?',
  header: 'Color',
  options: [
    { label: 'Red', description: 'A warm color' },
    { label: 'Blue', description: 'A cool color' },
  ],
};

/**
 * `MCPCALL <tool> <json>` in the user's text: call the agent's MCP tool named <tool> — as the
 * agent declares it, `mcp__corral__<tool>` for Claude Code, `mcp_corral_<tool>` for Gemini CLI — with the JSON object as its
 * arguments (one line). How the live tests make an agent drive corral over MCP (docs/mcp.md).
 */
const MCP_CALL = /MCPCALL (\w+) (\{[^\n]*\})/;

/** The MCP call a user text asks for, if the agent declared a tool of that name; else null. */
export function mcpCallOf(text, tools) {
  const m = MCP_CALL.exec(text);
  if (!m) return null;
  // Claude Code and Codex prefix it mcp__corral__, Gemini CLI mcp_corral_.
  const name = tools.find((t) => t === m[1] || t.endsWith(`_${m[1]}`));
  if (!name) return null;
  return { name, input: JSON.parse(m[2]) };
}

/** The answer once an MCP tool's result came back: that result on one line, so the agent's answer shows what it got. */
export function mcpFinalOf(resultText) {
  return `The corral tool answered: ${resultText.replace(/\s+/g, ' ').trim().slice(0, 2000)}`;
}

/** Timing of the shorter pieces (ms): before a tool call's preamble, between it and the call, per argument piece. */
export const TOOL_TIMING = { preamble: 500, call: 300, argPiece: 100, short: 300, nonStreamTool: 800 };

/** Env knobs, read once by server.mjs. */
export function knobsFrom(env) {
  const num = (name, fallback) => (env[name] !== undefined && env[name] !== '' ? Number(env[name]) : fallback);
  return {
    chunks: num('CHUNKS', 20), // pieces of the slow answer
    chunkMs: num('CHUNK_MS', 200), // between pieces
    firstTokenMs: num('FIRST_TOKEN_MS', 1500), // "thinking" before the first piece
    toolCmd: env.TOOL_CMD || 'touch /tmp/x', // what RUNTOOL asks the shell tool to run
    usageInput: num('USAGE_INPUT', null), // tokens every main call reports (null: the API's default)
    usageOutput: num('USAGE_OUTPUT', null),
  };
}

/**
 * The token counts a call reports (SPEC §18's live tests): a side call (titles, topic checks)
 * the API's defaults; a main call the last `TOKENS=<in>:<out>` anywhere in the conversation it
 * carries (so a prompt sets it for its whole turn, and for later turns until another says
 * otherwise), else the run's USAGE_INPUT / USAGE_OUTPUT, else the API's defaults.
 */
export function usageFor(body, main, knobs, defaults) {
  if (!main) return defaults;
  const all = [...JSON.stringify(body).matchAll(/\bTOKENS=(\d+):(\d+)\b/g)];
  const last = all[all.length - 1];
  if (last) return { input: Number(last[1]), output: Number(last[2]) };
  return { input: knobs.usageInput ?? defaults.input, output: knobs.usageOutput ?? defaults.output };
}

/**
 * Agents wrap the typed prompt in context blocks (Claude Code's <system-reminder>, Kilo's
 * <environment_details>); a trigger word in there is not the user's, so it is cut out first.
 */
export function stripContext(text) {
  return text
    .replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, '')
    .replace(/<environment_details>[\s\S]*?<\/environment_details>/g, '');
}

/**
 * The plan for one request.
 * - main: the request declares tools (the agent's own turn); without tools it is a side call
 *   (titles, summaries, next-speaker checks) and gets `side` (an immediate short answer);
 * - toolResult: the last user turn carries a tool result → `final`;
 * - MCPCALL <tool> <json> and that MCP tool declared → `mcp` (see mcpCallOf);
 * - RUNTOOL in the last user text and a shell tool declared → `shell`;
 * - ASKQ and an ask-the-user tool declared → `ask`;
 * - anything else → `answer`, the slow one.
 * A trigger whose tool the agent did not declare falls through to the slow answer.
 */
export function decide({ main, toolResult, text, shellTool, askTool, mcpCall }) {
  if (!main) return 'side';
  if (toolResult) return 'final';
  if (mcpCall) return 'mcp';
  if (/RUNTOOL/.test(text) && shellTool) return 'shell';
  if (/ASKQ/.test(text) && askTool) return 'ask';
  return 'answer';
}

/** Splits text into about n pieces of equal length. */
export function chunksOf(text, n) {
  const out = [];
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, n)));
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The pieces of a text answer, each awaited at its time:
 * - `answer`: FIRST_TOKEN_MS, then CHUNKS pieces CHUNK_MS apart (a few seconds of "working");
 * - `final`: one piece after 300 ms;
 * - `side`: one piece at once (agents wait on titles before they draw).
 * `stopped()` ends the stream early when the agent hung up (an interrupt).
 */
export async function* textPieces(kind, text, knobs, stopped = () => false) {
  if (kind === 'side') {
    yield text;
    return;
  }
  if (kind === 'final') {
    await sleep(TOOL_TIMING.short);
    if (!stopped()) yield text;
    return;
  }
  await sleep(knobs.firstTokenMs);
  for (const piece of chunksOf(text, knobs.chunks)) {
    if (stopped()) return;
    await sleep(knobs.chunkMs);
    if (stopped()) return;
    yield piece;
  }
}

/** The text a text plan answers with. */
export function textOf(kind) {
  return kind === 'final' ? FINAL : ANSWER;
}

let ids = 0;
/** A unique id with the API's usual prefix (msg_, toolu_, call_ …). */
export const newId = (prefix) => `${prefix}_${Date.now().toString(36)}${(ids++).toString(36)}`;

/** The user text for the log: short texts whole, long ones as head … tail (tests grep either end). */
export function logText(text) {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= 160 ? flat : `${flat.slice(0, 80)} … ${flat.slice(-80)}`;
}
