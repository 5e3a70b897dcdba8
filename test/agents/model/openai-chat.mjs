// OpenAI Chat Completions: POST /v1/chat/completions, SSE when `stream` is set, else one JSON
// completion. Spoken by Qwen Code, pi and Kilo (@ai-sdk/openai-compatible). Their shell and
// ask-the-user tools differ in name and arguments, so the call is built from the tool's
// declared schema (schema.mjs).

import { openStream, sendJson } from './respond.mjs';
import { sample, firstType } from './schema.mjs';
import { PREAMBLE, QUESTION, TITLE, TOOL_TIMING, chunksOf, decide, logText, newId, sleep, stripContext, textOf, textPieces, usageFor } from './script.mjs';

/** Known shell tool names, best first; then anything named like *_bash_*, *_shell_*, *_terminal_*. */
const SHELL_NAMES = ['bash', 'Bash', 'shell', 'run_shell_command', 'shell_command', 'exec_command', 'execute_command', 'run_command', 'run_terminal_cmd', 'terminal', 'local_shell'];
const SHELL_LIKE = /(^|_)(bash|shell|terminal)(_|$)/i;
/** Ask-the-user tools: Qwen's ask_user_question, Kilo's and pi's (extension) question, … */
const ASK_NAMES = ['ask_user_question', 'AskUserQuestion', 'question', 'ask_user', 'ask_followup_question', 'ask_question', 'askUserQuestion', 'ask', 'user_question'];
const ASK_LIKE = /(^|_)(ask|question)(_|$)/i;

function findTool(tools, names, like) {
  for (const name of names) {
    const tool = tools.find((t) => t.name === name);
    if (tool) return tool;
  }
  return tools.find((t) => like.test(t.name));
}

const contentText = (c) => (typeof c === 'string' ? c : Array.isArray(c) ? c.map((x) => (typeof x === 'string' ? x : x?.text || '')).join('\n') : '');

/**
 * The last user text, or a tool result if a tool message comes after it. A user message that is
 * only injected context (reminders an agent adds after a tool result) does not count: look further back.
 */
function lastUser(messages) {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] || {};
    if (m.role === 'tool' || m.role === 'function') return { text: '', toolResult: true };
    if (m.role !== 'user') continue;
    const text = stripContext(contentText(m.content)).trim();
    if (text) return { text, toolResult: false };
  }
  return { text: '', toolResult: false };
}

/** Arguments for the shell tool: TOOL_CMD in its command key (argv form if the key is an array). */
function shellArgs(tool, cmd) {
  const schema = tool.parameters || {};
  const props = schema.properties || {};
  const cmdKey = ['command', 'cmd', 'commands', 'script'].find((k) => props[k]) || 'command';
  const argv = props[cmdKey]?.type === 'array';
  return (
    sample(schema, '', (k, s) => {
      if (k === cmdKey) return argv ? ['bash', '-lc', cmd] : cmd;
      if (k === 'description' && s?.type !== 'object') return 'Create marker file';
      if (k === 'justification') return 'Create the marker file';
      return undefined;
    }) || { command: cmd }
  );
}

/** Arguments for the ask tool: the question, its header, and the two options in whatever shape the schema wants. */
function askArgs(tool) {
  const schema = tool.parameters || {};
  const hints = (k, s) => {
    const t = firstType(s);
    if (/^(question|prompt|text|message)$/.test(k) && t !== 'array' && t !== 'object') return QUESTION.question;
    if (k === 'header' || k === 'title') return QUESTION.header;
    if (/^(multiSelect|multiple|multi_select|allowMultiple)$/.test(k)) return false;
    if (/^(options|choices|follow_up|suggestions|answers|enum)$/.test(k) && t === 'array') {
      const item = s.items || {};
      const itemType = firstType(item);
      if (itemType === 'string' || (!itemType && !item.properties)) return QUESTION.options.map((o) => o.label);
      return QUESTION.options.map((o) =>
        sample(item, '', (kk, ss) => {
          if (/^(label|text|value|answer|name)$/.test(kk) && ss?.type !== 'object') return o.label;
          if (kk === 'description') return o.description;
          return undefined;
        }, schema),
      );
    }
    return undefined;
  };
  return sample(schema, '', hints) || { question: QUESTION.question, options: QUESTION.options.map((o) => o.label) };
}

/** A side call's text: JSON when a JSON response_format is asked for (Kilo's titles use a json_schema). */
function sideText(format) {
  if (format?.type === 'json_schema') {
    const schema = format.json_schema?.schema || {};
    return JSON.stringify(sample(schema, '', (k) => (/title/i.test(k) ? TITLE : undefined)));
  }
  if (format?.type === 'json_object') return `{"title": "${TITLE}"}`;
  return TITLE;
}

export async function handle(req, res, body, ctx) {
  const tools = (body.tools || []).map((t) => t.function || t).filter((f) => f && typeof f.name === 'string');
  const shell = findTool(tools, SHELL_NAMES, SHELL_LIKE);
  const ask = findTool(tools, ASK_NAMES, ASK_LIKE);
  const main = tools.length > 0;
  const { text, toolResult } = lastUser(body.messages || []);
  const format = body.response_format;
  const kind = decide({ main, toolResult, text, shellTool: shell?.name, askTool: ask?.name });
  let call;
  if (kind === 'shell') call = { name: shell.name, args: shellArgs(shell, ctx.knobs.toolCmd) };
  if (kind === 'ask') call = { name: ask.name, args: askArgs(ask) };
  ctx.log('chat plan', JSON.stringify({ model: body.model, stream: !!body.stream, isMain: main, ntools: tools.length, shell: shell?.name, ask: ask?.name, toolResult, kind, tool: call?.name, args: call?.args, rf: format?.type, user: logText(text) }));
  if (ctx.dumping && main) ctx.log('chat tools', tools.map((t) => t.name).join(','));

  const answerText = kind === 'side' ? sideText(format) : textOf(kind);
  const id = newId('chatcmpl');
  const model = body.model || 'gpt-fake';
  const created = Math.floor(Date.now() / 1000);
  const counts = usageFor(body, main, ctx.knobs, { input: 10, output: 20 });
  const usage = { prompt_tokens: counts.input, completion_tokens: counts.output, total_tokens: counts.input + counts.output };
  const callId = newId('call');
  const argsJson = call ? JSON.stringify(call.args) : '';

  if (!body.stream) {
    // The whole answer after the time a stream would have taken to start.
    if (kind !== 'side') await sleep(call ? TOOL_TIMING.nonStreamTool : kind === 'final' ? TOOL_TIMING.short : ctx.knobs.firstTokenMs);
    const message = call
      ? { role: 'assistant', content: PREAMBLE, tool_calls: [{ id: callId, type: 'function', function: { name: call.name, arguments: argsJson } }] }
      : { role: 'assistant', content: answerText };
    return sendJson(res, ctx, 'chat', kind, {
      id, object: 'chat.completion', created, model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: call ? 'tool_calls' : 'stop' }], usage,
    });
  }

  // With stream_options.include_usage the usage comes in a last chunk with no choices (as
  // OpenAI sends it); otherwise on the finishing chunk, where most clients also look.
  const usageChunk = !!body.stream_options?.include_usage;
  const out = openStream(res, ctx, 'chat', kind);
  const chunk = (o) => out.send(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: null, ...o })}\n\n`);
  const delta = (d, finish = null, extra = {}) => chunk({ choices: [{ index: 0, delta: d, logprobs: null, finish_reason: finish }], ...extra });
  const finishExtra = usageChunk ? {} : { usage };
  delta({ role: 'assistant', content: '' });
  if (!call) {
    for await (const piece of textPieces(kind, answerText, ctx.knobs, out.stopped)) delta({ content: piece });
    delta({}, 'stop', finishExtra);
  } else {
    await sleep(TOOL_TIMING.preamble);
    delta({ content: PREAMBLE });
    await sleep(TOOL_TIMING.call);
    delta({ tool_calls: [{ index: 0, id: callId, type: 'function', function: { name: call.name, arguments: '' } }] });
    for (const piece of chunksOf(argsJson, 4)) {
      await sleep(TOOL_TIMING.argPiece);
      delta({ tool_calls: [{ index: 0, function: { arguments: piece } }] });
    }
    delta({}, 'tool_calls', finishExtra);
  }
  if (usageChunk) chunk({ choices: [], usage });
  out.send('data: [DONE]\n\n');
  out.end();
}
