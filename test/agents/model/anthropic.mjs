// Anthropic Messages API: POST /v1/messages (SSE when `stream` is set, else one JSON message)
// and POST /v1/messages/count_tokens. Spoken by Claude Code and by OpenCode (its config uses
// the @ai-sdk/anthropic provider pointed here).

import { sendJson, openStream } from './respond.mjs';
import { PREAMBLE, QUESTION, TITLE, TOOL_TIMING, chunksOf, decide, logText, mcpCallOf, mcpFinalOf, newId, sleep, stripContext, textOf, textPieces, usageFor } from './script.mjs';

/** The last user turn: its text, and whether it carries a tool_result block. */
function lastUser(body) {
  const messages = body.messages || [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== 'user') continue;
    if (typeof m.content === 'string') return { text: m.content, toolResult: false };
    const blocks = m.content || [];
    const results = blocks.filter((b) => b.type === 'tool_result');
    return {
      text: blocks.filter((b) => b.type === 'text').map((b) => b.text).join('\n'),
      toolResult: results.length > 0,
      toolResultText: results.map((b) => (typeof b.content === 'string' ? b.content : (b.content || []).map((c) => c.text || '').join('\n'))).join('\n'),
      afterMcp: results.length > 0 && lastToolUseName(messages.slice(0, i)).startsWith('mcp__'),
    };
  }
  return { text: '', toolResult: false };
}

/** The name of the last tool the model called in these messages ('' if none). */
function lastToolUseName(messages) {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== 'assistant' || typeof m.content === 'string') continue;
    const use = (m.content || []).findLast((b) => b.type === 'tool_use');
    if (use) return use.name;
  }
  return '';
}

/** Claude Code's shell tool is `Bash`, OpenCode's `bash`; their ask tools `AskUserQuestion` and `question`. */
const SHELL_TOOLS = ['Bash', 'bash'];
const ASK_TOOLS = ['AskUserQuestion', 'question'];

export function countTokens(req, res, body, ctx) {
  sendJson(res, ctx, null, 'count', { input_tokens: 100 });
}

export async function messages(req, res, body, ctx) {
  const tools = (body.tools || []).map((t) => t.name);
  const shellTool = SHELL_TOOLS.find((t) => tools.includes(t));
  const askTool = ASK_TOOLS.find((t) => tools.includes(t));
  const main = tools.length > 0;
  const { text: raw, toolResult, toolResultText = '', afterMcp = false } = lastUser(body);
  const text = stripContext(raw);
  const mcpCall = mcpCallOf(text, tools);
  const kind = decide({ main, toolResult, text, shellTool, askTool, mcpCall });
  ctx.log('anthropic plan', JSON.stringify({ model: body.model, stream: !!body.stream, isMain: main, ntools: tools.length, toolResult, kind, user: logText(text) }));

  // A side call that asks for structured output (Claude Code's title and topic checks) gets JSON
  // with the keys those callers read.
  const wantsJson = !!(body.output_config?.format || body.output_format || body.response_format);
  const answerText = kind === 'side' ? (wantsJson ? `{"title": "${TITLE}", "isNewTopic": false}` : TITLE) : afterMcp ? mcpFinalOf(toolResultText) : textOf(kind);
  let tool;
  if (kind === 'shell') tool = { name: shellTool, input: { command: ctx.knobs.toolCmd, description: 'Create marker file' } };
  if (kind === 'mcp') tool = mcpCall;
  if (kind === 'ask') tool = { name: askTool, input: { questions: [{ question: QUESTION.question, header: QUESTION.header, multiSelect: false, options: QUESTION.options }] } };

  const model = body.model || 'claude-fake';
  const counts = usageFor(body, main, ctx.knobs, { input: 10, output: 30 });
  const usage = { input_tokens: counts.input, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const messageId = newId('msg');
  // Claude Code reads the request id header when it logs errors; real responses always have one.
  const headers = { 'request-id': newId('req') };

  if (!body.stream) {
    const content = tool ? [{ type: 'tool_use', id: newId('toolu'), name: tool.name, input: tool.input }] : [{ type: 'text', text: answerText }];
    res.setHeader('request-id', headers['request-id']);
    sendJson(res, ctx, 'anthropic', kind, {
      id: messageId, type: 'message', role: 'assistant', model, content,
      stop_reason: tool ? 'tool_use' : 'end_turn', stop_sequence: null, usage: { ...usage, output_tokens: main ? counts.output : 20 },
    });
    return;
  }

  const out = openStream(res, ctx, 'anthropic', kind, headers);
  const event = (type, data) => out.send(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  event('message_start', { message: { id: messageId, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage } });
  event('ping', {});
  event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
  if (!tool) {
    for await (const piece of textPieces(kind, answerText, ctx.knobs, out.stopped)) {
      event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: piece } });
    }
    event('content_block_stop', { index: 0 });
    event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: counts.output } });
  } else {
    // A sentence first, then the tool_use block whose input arrives as partial JSON pieces,
    // the way the real API streams it.
    await sleep(TOOL_TIMING.preamble);
    event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: PREAMBLE } });
    event('content_block_stop', { index: 0 });
    event('content_block_start', { index: 1, content_block: { type: 'tool_use', id: newId('toolu'), name: tool.name, input: {} } });
    for (const piece of chunksOf(JSON.stringify(tool.input), 4)) {
      await sleep(TOOL_TIMING.argPiece);
      event('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: piece } });
    }
    event('content_block_stop', { index: 1 });
    event('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: counts.output } });
  }
  event('message_stop', {});
  out.end();
}
