/**
 * corral's scripted model (test/agents/model/server.mjs), the fake LLM the live agent tests
 * point the real agents at: run as a child process on a free port and asked what each agent
 * asks, over each API — the plain streamed answer, RUNTOOL → the shell tool running TOOL_CMD,
 * ASKQ → the ask-the-user tool, a tool result → the short final text — plus its `finished`
 * log lines, 200 {} for unknown paths, and that it listens on 127.0.0.1 only.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpCallOf } from '../agents/model/script.mjs';

const SERVER = fileURLToPath(new URL('../agents/model/server.mjs', import.meta.url));
const TOOL_CMD = 'touch marker.txt';
const ANSWER_END = 'Final line: Done.';
const FINAL = 'The command finished. All done.';
const QUESTION = 'Which color should the widget be?';

let dir: string;
let log: string;
let dump: string;
let port: number;
let child: ChildProcess;

async function until<T>(probe: () => T | null | undefined | false, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== null && value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const logText = () => (existsSync(log) ? readFileSync(log, 'utf8') : '');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(free));
    });
  });
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'corral-model-'));
  log = path.join(dir, 'fake-model.log');
  dump = path.join(dir, 'requests');
  mkdirSync(dump);
  port = await freePort();
  child = spawn(process.execPath, [SERVER, String(port)], {
    env: { ...process.env, LOG: log, DUMP_DIR: dump, TOOL_CMD, CHUNKS: '4', CHUNK_MS: '5', FIRST_TOKEN_MS: '5' },
    stdio: 'ignore',
  });
  await until(() => logText().includes(`listening on 127.0.0.1:${port}`) || child.exitCode !== null, 'the listening line');
  expect(child.exitCode).toBeNull();
});

afterAll(() => {
  child?.kill();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function post(pathname: string, body: unknown): Promise<Response> {
  return fetch(`http://127.0.0.1:${port}${pathname}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

/** The `data:` payloads of an SSE body, parsed ([DONE] dropped), with their `event:` names. */
async function events(res: Response): Promise<{ event?: string; data: any }[]> {
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  const out: { event?: string; data: any }[] = [];
  for (const block of (await res.text()).split(/\r?\n\r?\n/)) {
    const event = block.match(/^event: (.*)$/m)?.[1];
    const data = block.match(/^data: (.*)$/m)?.[1];
    if (data && data !== '[DONE]') out.push({ event, data: JSON.parse(data) });
  }
  return out;
}

/** Waits for the `finished <api> kind=<kind>` line of the answer whose request was the n-th finished one. */
async function finished(api: string, kind: string, before: number): Promise<void> {
  const pattern = new RegExp(`^\\[[^\\]]+\\] finished ${api} kind=${kind} `);
  await until(() => logText().split('\n').filter((line) => / finished /.test(line)).slice(before).some((line) => pattern.test(line)), `finished ${api} kind=${kind}`);
}
const finishedCount = () => logText().split('\n').filter((line) => / finished /.test(line)).length;

describe('Anthropic Messages (Claude Code, OpenCode)', () => {
  const tools = [{ name: 'Bash', input_schema: {} }, { name: 'AskUserQuestion', input_schema: {} }];
  const user = (content: unknown) => ({ model: 'claude-x', stream: true, tools, messages: [{ role: 'user', content }] });
  const text = (evs: { data: any }[]) => evs.filter((e) => e.data.delta?.type === 'text_delta').map((e) => e.data.delta.text).join('');
  const toolUse = (evs: { data: any }[]) => ({
    name: evs.find((e) => e.data.content_block?.type === 'tool_use')?.data.content_block.name,
    input: JSON.parse(evs.filter((e) => e.data.delta?.type === 'input_json_delta').map((e) => e.data.delta.partial_json).join('')),
  });

  it('streams the slow answer as text deltas and logs finished', async () => {
    const before = finishedCount();
    const evs = await events(await post('/v1/messages', user('Say hello please')));
    expect(evs[0].event).toBe('message_start');
    expect(evs.at(-1)?.event).toBe('message_stop');
    expect(text(evs)).toContain('Here is a slowly streamed answer');
    expect(text(evs).endsWith(ANSWER_END)).toBe(true);
    expect(evs.filter((e) => e.data.delta?.type === 'text_delta').length).toBeGreaterThan(1);
    await finished('anthropic', 'answer', before);
  });

  it('RUNTOOL calls Bash with TOOL_CMD', async () => {
    const evs = await events(await post('/v1/messages', user([{ type: 'text', text: 'Please RUNTOOL now' }])));
    expect(toolUse(evs)).toEqual({ name: 'Bash', input: { command: TOOL_CMD, description: 'Create marker file' } });
    expect(evs.find((e) => e.event === 'message_delta')?.data.delta.stop_reason).toBe('tool_use');
  });

  it('a trigger inside a <system-reminder> is not the user\'s', async () => {
    const evs = await events(await post('/v1/messages', user('<system-reminder>RUNTOOL</system-reminder>Say hello')));
    expect(text(evs).endsWith(ANSWER_END)).toBe(true);
  });

  it('ASKQ calls AskUserQuestion (OpenCode: question)', async () => {
    const evs = await events(await post('/v1/messages', user('Please ASKQ me')));
    const call = toolUse(evs);
    expect(call.name).toBe('AskUserQuestion');
    expect(call.input.questions[0].question).toBe(QUESTION);
    expect(call.input.questions[0].options.map((o: any) => o.label)).toEqual(['Red', 'Blue']);
    const oc = await events(await post('/v1/messages', { ...user('Please ASKQ me'), tools: [{ name: 'bash' }, { name: 'question' }] }));
    expect(toolUse(oc).name).toBe('question');
  });

  it('MCPCALL finds the tool under each agent\u2019s prefix: mcp__corral__ (Claude Code, Codex), mcp_corral_ (Gemini CLI), or bare', () => {
    const args = '{"name":"second"}';
    expect(mcpCallOf(`MCPCALL agent_start ${args}`, ['Bash', 'mcp__corral__agent_start'])).toEqual({ name: 'mcp__corral__agent_start', input: { name: 'second' } });
    expect(mcpCallOf(`MCPCALL agent_start ${args}`, ['mcp_corral_agent_prompt', 'mcp_corral_agent_start'])?.name).toBe('mcp_corral_agent_start');
    expect(mcpCallOf(`MCPCALL fleet {}`, ['fleet'])?.name).toBe('fleet');
    expect(mcpCallOf(`MCPCALL agent_start ${args}`, ['Bash'])).toBeNull();
    expect(mcpCallOf('no trigger here', ['fleet'])).toBeNull();
  });

  it('MCPCALL calls the named MCP tool with the JSON arguments, and answers its result with that result', async () => {
    const mcpTools = [...tools, { name: 'mcp__corral__agent_start', input_schema: {} }];
    const evs = await events(await post('/v1/messages', { ...user('MCPCALL agent_start {"name":"second","kind":"claude"}'), tools: mcpTools }));
    expect(toolUse(evs)).toEqual({ name: 'mcp__corral__agent_start', input: { name: 'second', kind: 'claude' } });
    // Not declared (no corral registered): the slow answer.
    expect(text(await events(await post('/v1/messages', user('MCPCALL agent_start {"name":"second"}')))).endsWith(ANSWER_END)).toBe(true);
    const body = {
      ...user('x'),
      tools: mcpTools,
      messages: [
        { role: 'user', content: 'MCPCALL agent_start {}' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'mcp__corral__agent_start', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: 'started in\nworkspace w2' }] }] },
      ],
    };
    expect(text(await events(await post('/v1/messages', body)))).toBe('The corral tool answered: started in workspace w2');
  });

  it('answers a tool result with the final text', async () => {
    const before = finishedCount();
    const body = { ...user('x'), messages: [{ role: 'user', content: 'RUNTOOL' }, { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'Bash', input: {} }] }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'ok' }] }] };
    expect(text(await events(await post('/v1/messages', body)))).toBe(FINAL);
    await finished('anthropic', 'final', before);
  });

  it('answers without streaming, and counts tokens', async () => {
    const before = finishedCount();
    const res = await post('/v1/messages', { ...user('Please RUNTOOL now'), stream: false });
    const message = await res.json();
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content[0]).toMatchObject({ type: 'tool_use', name: 'Bash', input: { command: TOOL_CMD } });
    await finished('anthropic', 'shell', before);
    expect(await (await post('/v1/messages/count_tokens', user('hi'))).json()).toEqual({ input_tokens: 100 });
  });

  it('a side call (no tools) gets a title at once, JSON when asked for', async () => {
    const res = await post('/v1/messages', { model: 'haiku', stream: false, messages: [{ role: 'user', content: 'title this' }], output_config: { format: { type: 'json_schema' } } });
    expect(JSON.parse((await res.json()).content[0].text)).toMatchObject({ title: 'Fake session title' });
  });
});

describe('Gemini (Gemini CLI)', () => {
  const tools = [{ functionDeclarations: [{ name: 'run_shell_command' }, { name: 'ask_user' }] }];
  const url = (method: string) => `/v1beta/models/gemini-x:${method}${method === 'streamGenerateContent' ? '?alt=sse' : ''}`;
  const user = (parts: unknown[]) => ({ tools, contents: [{ role: 'user', parts }] });
  const parts = (evs: { data: any }[]) => evs.flatMap((e) => e.data.candidates[0].content.parts);

  it('streams the slow answer, finishReason on the last piece, and logs finished', async () => {
    const before = finishedCount();
    const evs = await events(await post(url('streamGenerateContent'), user([{ text: 'Say hello please' }])));
    expect(evs.length).toBeGreaterThan(1);
    expect(parts(evs).map((p) => p.text).join('').endsWith(ANSWER_END)).toBe(true);
    expect(evs.map((e) => e.data.candidates[0].finishReason ?? null)).toEqual([...evs.slice(1).map(() => null), 'STOP']);
    await finished('gemini', 'answer', before);
  });

  it('RUNTOOL calls run_shell_command with TOOL_CMD', async () => {
    const call = parts(await events(await post(url('streamGenerateContent'), user([{ text: 'Please RUNTOOL now' }])))).find((p) => p.functionCall)?.functionCall;
    expect(call).toEqual({ name: 'run_shell_command', args: { command: TOOL_CMD, description: 'Create marker file' } });
  });

  it('ASKQ calls ask_user', async () => {
    const call = parts(await events(await post(url('streamGenerateContent'), user([{ text: 'Please ASKQ me' }])))).find((p) => p.functionCall)?.functionCall;
    expect(call.name).toBe('ask_user');
    expect(call.args.questions[0]).toMatchObject({ question: QUESTION, type: 'choice' });
  });

  it('answers a function response with the final text; generateContent and countTokens', async () => {
    const body = { tools, contents: [{ role: 'user', parts: [{ text: 'RUNTOOL' }] }, { role: 'model', parts: [{ functionCall: { name: 'run_shell_command', args: {} } }] }, { role: 'user', parts: [{ functionResponse: { name: 'run_shell_command', response: {} } }] }] };
    expect(parts(await events(await post(url('streamGenerateContent'), body))).map((p) => p.text).join('')).toBe(FINAL);
    const before = finishedCount();
    const whole = await (await post(url('generateContent'), user([{ text: 'Say hello' }]))).json();
    expect(whole.candidates[0].content.parts[0].text.endsWith(ANSWER_END)).toBe(true);
    await finished('gemini', 'answer', before);
    expect(await (await post(url('countTokens'), user([{ text: 'hi' }]))).json()).toEqual({ totalTokens: 100 });
  });
});

describe('OpenAI Responses (Codex)', () => {
  const tools = [{ type: 'function', name: 'shell_command' }, { type: 'function', name: 'update_plan' }];
  const user = (text: string) => ({ model: 'gpt-fake', stream: true, tools, input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text }] }] });
  const text = (evs: { event?: string; data: any }[]) => evs.filter((e) => e.event === 'response.output_text.delta').map((e) => e.data.delta).join('');

  it('streams the slow answer and logs finished', async () => {
    const before = finishedCount();
    const evs = await events(await post('/v1/responses', user('Say hello please')));
    expect(evs[0].event).toBe('response.created');
    expect(evs.at(-1)?.event).toBe('response.completed');
    expect(evs.map((e) => e.data.sequence_number)).toEqual(evs.map((_, i) => i));
    expect(text(evs).endsWith(ANSWER_END)).toBe(true);
    await finished('responses', 'answer', before);
  });

  it('RUNTOOL calls shell_command with TOOL_CMD; exec_command asks for escalation', async () => {
    const evs = await events(await post('/v1/responses', user('Please RUNTOOL now')));
    const item = evs.find((e) => e.event === 'response.output_item.done' && e.data.item.type === 'function_call')?.data.item;
    expect(item.name).toBe('shell_command');
    expect(JSON.parse(item.arguments)).toEqual({ command: TOOL_CMD });
    const exec = await events(await post('/v1/responses', { ...user('RUNTOOL'), tools: [{ type: 'function', name: 'exec_command' }] }));
    const args = JSON.parse(exec.find((e) => e.event === 'response.output_item.done' && e.data.item.type === 'function_call')?.data.item.arguments);
    expect(args).toMatchObject({ cmd: TOOL_CMD, sandbox_permissions: 'require_escalated' });
  });

  it('ASKQ: Codex declares no ask tool, so it gets the plain answer', async () => {
    expect(text(await events(await post('/v1/responses', user('Please ASKQ me')))).endsWith(ANSWER_END)).toBe(true);
  });

  it('answers a function_call_output with the final text', async () => {
    const before = finishedCount();
    const body = { ...user('RUNTOOL'), input: [...user('RUNTOOL').input, { type: 'function_call', call_id: 'c', name: 'shell_command', arguments: '{}' }, { type: 'function_call_output', call_id: 'c', output: 'ok' }] };
    expect(text(await events(await post('/v1/responses', body)))).toBe(FINAL);
    await finished('responses', 'final', before);
  });
});

describe('OpenAI Chat Completions (Qwen Code, pi, Kilo)', () => {
  /** A Kilo-like bash tool (command, description, timeout) and a question tool with nested options. */
  const tools = [
    { type: 'function', function: { name: 'read', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } } },
    { type: 'function', function: { name: 'bash', parameters: { type: 'object', properties: { command: { type: 'string' }, description: { type: 'string' }, timeout: { type: 'number' } }, required: ['command', 'description', 'timeout'] } } },
    {
      type: 'function',
      function: {
        name: 'question',
        parameters: {
          type: 'object',
          required: ['questions'],
          properties: { questions: { type: 'array', items: { type: 'object', required: ['question', 'header', 'options'], properties: { question: { type: 'string' }, header: { type: 'string' }, options: { type: 'array', items: { type: 'object', required: ['label', 'description'], properties: { label: { type: 'string' }, description: { type: 'string' } } } } } } } },
        },
      },
    },
  ];
  const user = (content: string) => ({ model: 'fake-model', stream: true, stream_options: { include_usage: true }, tools, messages: [{ role: 'system', content: 'sys' }, { role: 'user', content }] });
  const deltas = (evs: { data: any }[]) => evs.filter((e) => e.data.choices.length).map((e) => e.data.choices[0].delta);
  const text = (evs: { data: any }[]) => deltas(evs).map((d) => d.content ?? '').join('');
  const call = (evs: { data: any }[]) => {
    const parts = deltas(evs).flatMap((d) => d.tool_calls ?? []);
    return { name: parts.find((p) => p.function?.name)?.function.name, args: JSON.parse(parts.map((p) => p.function?.arguments ?? '').join('')) };
  };

  it('streams the slow answer, usage last, and logs finished', async () => {
    const before = finishedCount();
    const evs = await events(await post('/v1/chat/completions', user('Say hello please')));
    expect(text(evs).endsWith(ANSWER_END)).toBe(true);
    expect(evs.at(-2)?.data.choices[0].finish_reason).toBe('stop');
    expect(evs.at(-1)?.data).toMatchObject({ choices: [], usage: { total_tokens: 30 } });
    await finished('chat', 'answer', before);
  });

  it('RUNTOOL calls the declared shell tool, its arguments from its schema', async () => {
    const evs = await events(await post('/v1/chat/completions', user('Please RUNTOOL now')));
    expect(call(evs)).toEqual({ name: 'bash', args: { command: TOOL_CMD, description: 'Create marker file', timeout: 60 } });
    expect(deltas(evs).at(-1)).toEqual({});
    expect(evs.at(-2)?.data.choices[0].finish_reason).toBe('tool_calls');
  });

  it('ASKQ calls the declared question tool with both options', async () => {
    const { name, args } = call(await events(await post('/v1/chat/completions', user('Please ASKQ me'))));
    expect(name).toBe('question');
    expect(args.questions).toEqual([{ question: QUESTION, header: 'Color', options: [{ label: 'Red', description: 'A warm color' }, { label: 'Blue', description: 'A cool color' }] }]);
  });

  it('answers a tool message with the final text, past a context-only user message', async () => {
    const before = finishedCount();
    const body = { ...user('RUNTOOL'), messages: [...user('RUNTOOL').messages, { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'bash', arguments: '{}' } }] }, { role: 'tool', tool_call_id: 'c', content: 'ok' }, { role: 'user', content: '<system-reminder>RUNTOOL</system-reminder>' }] };
    expect(text(await events(await post('/v1/chat/completions', body)))).toBe(FINAL);
    await finished('chat', 'final', before);
  });

  it('answers without streaming', async () => {
    const before = finishedCount();
    const whole = await (await post('/v1/chat/completions', { ...user('Please RUNTOOL now'), stream: false })).json();
    expect(whole.choices[0].finish_reason).toBe('tool_calls');
    expect(JSON.parse(whole.choices[0].message.tool_calls[0].function.arguments).command).toBe(TOOL_CMD);
    await finished('chat', 'shell', before);
  });

  it('lists models', async () => {
    const list = await (await fetch(`http://127.0.0.1:${port}/v1/models`)).json();
    expect(list.data.map((m: any) => m.id)).toContain('fake-model');
  });
});

describe('the server', () => {
  it('answers anything else with 200 {} and logs it', async () => {
    const res = await post('/v1/some/telemetry', { a: 1 });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({});
    const get = await fetch(`http://127.0.0.1:${port}/whatever?x=1`);
    expect(await get.json()).toEqual({});
    expect(logText()).toMatch(/\] POST \/v1\/some\/telemetry len=7\n/);
    expect(logText()).toMatch(/\] GET \/whatever\?x=1 len=0\n/);
  });

  it('logs each plan with the user text, and saves each request body in DUMP_DIR', async () => {
    expect(logText()).toMatch(/\] anthropic plan \{.*"kind":"shell".*"user":"Please RUNTOOL now"/);
    const saved = readdirSync(dump).map((f) => readFileSync(path.join(dump, f), 'utf8'));
    expect(saved.some((body) => body.includes('Please ASKQ me'))).toBe(true);
  });

  it('listens on 127.0.0.1 only', async () => {
    const refused = (host: string) =>
      new Promise<string>((resolve) => {
        const socket = net.connect({ host, port }, () => {
          socket.destroy();
          resolve('connected');
        });
        socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
      });
    const others = ['127.0.0.2', ...Object.values(os.networkInterfaces()).flat().filter((a) => a && !a.internal && a.family === 'IPv4').map((a) => a!.address)];
    for (const host of others) expect(await refused(host), host).not.toBe('connected');
    expect(await refused('127.0.0.1')).toBe('connected');
  });
});
