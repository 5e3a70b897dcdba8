// OpenAI Responses API: POST /v1/responses, always SSE (Codex, `wire_api = "responses"`).
// Codex has no ask-the-user tool, so ASKQ gets the slow answer here.

import { openStream } from './respond.mjs';
import { PREAMBLE, TOOL_TIMING, decide, logText, mcpCallOf, mcpFinalOf, newId, sleep, textOf, textPieces, usageFor } from './script.mjs';

/** The last input item that is a user message or a tool output. */
function lastUser(body) {
  const input = Array.isArray(body.input) ? body.input : [{ role: 'user', content: String(body.input || '') }];
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i];
    if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output' || item.type === 'local_shell_call_output') {
      const call = input.slice(0, i).findLast((x) => x.type === 'function_call' && x.call_id === item.call_id);
      const output = typeof item.output === 'string' ? item.output : (item.output || []).map((x) => x.text || '').join('\n');
      return { text: '', toolResult: true, toolResultText: output, afterMcp: !!call && MCP_TOOL.test(call.namespace ?? call.name) };
    }
    if ((item.type === 'message' || !item.type) && item.role === 'user') {
      const c = item.content;
      return { text: typeof c === 'string' ? c : (c || []).map((x) => x.text || '').join('\n'), toolResult: false };
    }
  }
  return { text: '', toolResult: false };
}

/** An MCP tool as Codex names it for the model (`mcp__corral__agent_start`). */
const MCP_TOOL = /^mcp__/;

/** Codex's shell tool has had several names across versions; the first one declared wins. */
const SHELL_TOOLS = ['shell_command', 'exec_command', 'shell', 'local_shell'];

/** The call's arguments in the shape each of Codex's shell tools takes. */
function shellCall(name, cmd) {
  const id = newId('fc');
  const base = { id, type: 'function_call', status: 'completed', name, call_id: newId('call') };
  switch (name) {
    case 'shell':
      return { ...base, arguments: JSON.stringify({ command: ['bash', '-lc', cmd] }) };
    case 'exec_command':
      // Asking for escalation is what makes Codex (workspace-write sandbox) show its approval prompt.
      return { ...base, arguments: JSON.stringify({ cmd, sandbox_permissions: 'require_escalated', justification: 'Create the marker file /tmp/x?' }) };
    case 'local_shell': {
      const args = JSON.stringify({ command: cmd });
      return { ...base, type: 'local_shell_call', arguments: args, action: { type: 'exec', command: ['bash', '-lc', cmd] } };
    }
    default:
      return { ...base, arguments: JSON.stringify({ command: cmd }) };
  }
}

export async function handle(req, res, body, ctx) {
  const tools = (body.tools || []).map((t) => t.name || t.type);
  const shellTool = SHELL_TOOLS.find((n) => tools.includes(n));
  const main = tools.length > 0;
  const counts = usageFor(body, main, ctx.knobs, { input: 10, output: 20 });
  const { text, toolResult, toolResultText = '', afterMcp = false } = lastUser(body);
  // Codex declares MCP tools grouped: {type: "namespace", name: "mcp__corral", tools: [{name: "agent_start"}, …]}.
  const namespaced = (body.tools || []).flatMap((t) => (t.type === 'namespace' ? (t.tools || []).map((x) => ({ namespace: t.name, name: x.name })) : []));
  const mcpCall = mcpCallOf(text, [...tools, ...namespaced.map((x) => `${x.namespace}__${x.name}`)]);
  const mcpTarget = mcpCall && namespaced.find((x) => `${x.namespace}__${x.name}` === mcpCall.name);
  const kind = decide({ main, toolResult, text, shellTool, askTool: undefined, mcpCall });
  ctx.log('responses plan', JSON.stringify({ model: body.model, stream: body.stream, isMain: main, tools, shellTool, toolResult, kind, user: logText(text) }));

  const model = body.model || 'gpt-fake';
  const base = { id: newId('resp'), object: 'response', created_at: Math.floor(Date.now() / 1000), model, status: 'in_progress', output: [] };
  const out = openStream(res, ctx, 'responses', kind);
  let seq = 0;
  const event = (type, data) => out.send(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
  const outputs = [];

  /** One assistant message item: added, its text as deltas, then done events carrying the whole text. */
  const message = async (index, whole, pieces) => {
    const item_id = newId('msg');
    event('response.output_item.added', { output_index: index, item: { id: item_id, type: 'message', status: 'in_progress', role: 'assistant', content: [] } });
    event('response.content_part.added', { item_id, output_index: index, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
    for await (const delta of pieces) event('response.output_text.delta', { item_id, output_index: index, content_index: 0, delta });
    event('response.output_text.done', { item_id, output_index: index, content_index: 0, text: whole });
    const item = { id: item_id, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: whole, annotations: [] }] };
    event('response.content_part.done', { item_id, output_index: index, content_index: 0, part: item.content[0] });
    event('response.output_item.done', { output_index: index, item });
    outputs.push(item);
  };

  event('response.created', { response: base });
  event('response.in_progress', { response: base });
  if (kind !== 'shell' && kind !== 'mcp') {
    const whole = kind === 'side' ? 'Fake title' : afterMcp ? mcpFinalOf(toolResultText) : textOf(kind);
    if (kind === 'final') await sleep(TOOL_TIMING.short); // the final text arrives whole, a moment later
    await message(0, whole, kind === 'answer' ? textPieces(kind, whole, ctx.knobs, out.stopped) : [whole]);
  } else {
    await sleep(TOOL_TIMING.preamble);
    await message(0, PREAMBLE, [PREAMBLE]);
    await sleep(TOOL_TIMING.call);
    const item =
      kind === 'mcp'
        ? {
            id: newId('fc'),
            type: 'function_call',
            status: 'completed',
            ...(mcpTarget ? { namespace: mcpTarget.namespace, name: mcpTarget.name } : { name: mcpCall.name }),
            call_id: newId('call'),
            arguments: JSON.stringify(mcpCall.input),
          }
        : shellCall(shellTool, ctx.knobs.toolCmd);
    event('response.output_item.added', { output_index: 1, item: { ...item, status: 'in_progress', arguments: '' } });
    event('response.function_call_arguments.delta', { item_id: item.id, output_index: 1, delta: item.arguments });
    event('response.function_call_arguments.done', { item_id: item.id, output_index: 1, arguments: item.arguments });
    event('response.output_item.done', { output_index: 1, item });
    outputs.push(item);
  }
  event('response.completed', {
    response: {
      ...base, status: 'completed', output: outputs,
      usage: { input_tokens: counts.input, input_tokens_details: { cached_tokens: 0 }, output_tokens: counts.output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: counts.input + counts.output },
    },
  });
  out.end();
}
