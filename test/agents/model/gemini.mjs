// Gemini API (Gemini CLI with GOOGLE_GEMINI_BASE_URL pointed here):
// POST /v1beta/models/<model>:streamGenerateContent?alt=sse, :generateContent, :countTokens,
// and the embedding methods, answered with a dummy vector.

import { openStream, sendJson } from './respond.mjs';
import { PREAMBLE, QUESTION, TITLE, TOOL_TIMING, chunksOf, decide, logText, mcpCallOf, mcpFinalOf, newId, sleep, textOf, textPieces, usageFor } from './script.mjs';

/** The last user turn: its text parts, and whether it carries a functionResponse (a tool result). */
function lastUser(body) {
  const contents = body.contents || [];
  for (let i = contents.length - 1; i >= 0; i--) {
    const c = contents[i];
    if (c.role && c.role !== 'user') continue;
    const parts = c.parts || [];
    const results = parts.filter((p) => p.functionResponse);
    return {
      text: parts.filter((p) => typeof p.text === 'string').map((p) => p.text).join('\n'),
      toolResult: results.length > 0,
      toolResultText: results.map((p) => JSON.stringify(p.functionResponse.response ?? {})).join('\n'),
      // An MCP call is made only for a user text asking for one: the last text the user typed says so.
      afterMcp: results.length > 0 && /MCPCALL/.test(lastUserText(contents.slice(0, i))),
    };
  }
  return { text: '', toolResult: false };
}

/** The last text a user turn carries in these contents ('' if none). */
function lastUserText(contents) {
  for (let i = contents.length - 1; i >= 0; i--) {
    const c = contents[i];
    if (c.role && c.role !== 'user') continue;
    const text = (c.parts || []).filter((p) => typeof p.text === 'string').map((p) => p.text).join('\n');
    if (text) return text;
  }
  return '';
}

/**
 * Gemini CLI's side calls (next-speaker check, model router, loop detection) ask for JSON with
 * their own schemas: one object carrying every key they read, each with a harmless value.
 */
const SIDE_JSON = {
  reasoning: 'fake', next_speaker: 'user', model_choice: 'flash', complexity_reasoning: 'fake', complexity_score: 10,
  is_stuck: false, unproductive_state_confidence: 0, unproductive_state_analysis: 'none', title: 'Fake session',
};

/** `method` is what follows the colon: streamGenerateContent, generateContent, countTokens … */
export async function handle(req, res, body, ctx, model, method) {
  if (method === 'countTokens') return sendJson(res, ctx, null, 'count', { totalTokens: 100 });
  if (method === 'embedContent' || method === 'batchEmbedContents') {
    return sendJson(res, ctx, null, 'embed', { embedding: { values: [0, 0, 0] }, embeddings: [{ values: [0, 0, 0] }] });
  }

  const tools = (body.tools || []).flatMap((t) => (t.functionDeclarations || []).map((f) => f.name));
  // Gemini CLI's shell tool is run_shell_command; its question tool ask_user.
  const shellTool = tools.find((t) => /shell/.test(t));
  const askTool = tools.includes('ask_user') ? 'ask_user' : undefined;
  const main = tools.length > 0;
  const { text, toolResult, toolResultText = '', afterMcp = false } = lastUser(body);
  const gc = body.generationConfig || {};
  const mcpCall = mcpCallOf(text, tools);
  const kind = decide({ main, toolResult, text, shellTool, askTool, mcpCall });
  ctx.log('gemini plan', JSON.stringify({ model, method, isMain: main, ntools: tools.length, shellTool, toolResult, kind, rmt: gc.responseMimeType, user: logText(text) }));

  const wantsJson = gc.responseMimeType === 'application/json' || !!gc.responseJsonSchema || !!gc.responseSchema;
  const answerText = kind === 'side' ? (wantsJson ? JSON.stringify(SIDE_JSON) : 'ok') : afterMcp ? mcpFinalOf(toolResultText) : textOf(kind);
  let call;
  if (kind === 'shell') call = { name: shellTool, args: { command: ctx.knobs.toolCmd, description: 'Create marker file' } };
  if (kind === 'mcp') call = { name: mcpCall.name, args: mcpCall.input };
  if (kind === 'ask') call = { name: askTool, args: { questions: [{ question: QUESTION.question, header: QUESTION.header, type: 'choice', options: QUESTION.options }] } };

  const counts = usageFor(body, main, ctx.knobs, { input: 10, output: 5 });
  const usageMetadata = { promptTokenCount: counts.input, candidatesTokenCount: counts.output, totalTokenCount: counts.input + counts.output };
  // One GenerateContentResponse; finishReason only on the last one of a stream.
  const response = (parts, last) => ({
    candidates: [{ content: { role: 'model', parts }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) }],
    usageMetadata, modelVersion: model, responseId: newId('resp'),
  });

  if (method === 'generateContent') {
    return sendJson(res, ctx, 'gemini', kind, response(call ? [{ functionCall: call }] : [{ text: answerText }], true));
  }

  // streamGenerateContent?alt=sse: bare `data:` events (no event names), CRLF-separated as Google sends them.
  const out = openStream(res, ctx, 'gemini', kind);
  const send = (o) => out.send(`data: ${JSON.stringify(o)}\r\n\r\n`);
  if (!call) {
    // The finishReason goes on the last piece: count them first.
    const total = kind === 'answer' ? chunksOf(answerText, ctx.knobs.chunks).length : 1;
    let sent = 0;
    for await (const piece of textPieces(kind, answerText, ctx.knobs, out.stopped)) send(response([{ text: piece }], ++sent === total));
  } else {
    await sleep(TOOL_TIMING.preamble);
    send(response([{ text: PREAMBLE }], false));
    await sleep(TOOL_TIMING.call);
    send(response([{ functionCall: call }], true));
  }
  out.end();
}
