/**
 * `corral mcp` (SPEC §19) driven by the MCP SDK's own client over stdio, spawning the built
 * `bin/corral.cjs mcp` against a real server: the tools and their schemas, a round trip through
 * a pane (fenced as `read` fences it), an agent started, prompted and read through the tools,
 * bad arguments and unknown targets as tool errors on a connection that keeps serving, progress
 * during a long wait; and the gate (SPEC §8) for `corral mcp` run by a program inside a pane.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, TestServer } from './harness.js';
import { VERSION } from '../../src/version.js';
import { GIT_TEST_ENV } from '../unit/support/git-repo.js';

const PROGRAM = join(ROOT, 'test', 'fixtures', 'programs', 'answeragent.mjs');
const TOOL_NAMES = ['fleet', 'agent_start', 'agent_prompt', 'agent_wait', 'agent_read', 'agent_usage', 'pane_read', 'pane_send', 'worktree_diff'];
const FENCE_OPEN = /^<untrusted_terminal_output source="surface:\d+" total_lines="\d+" eof="false" id="([0-9a-f]{16})">\n/;

interface ToolResult {
  isError?: boolean;
  content: { type: string; text: string }[];
  structuredContent?: any;
}

async function mcpClient(server: TestServer): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env: server.env as Record<string, string>, stderr: 'pipe' });
  const client = new Client({ name: 'corral-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}, opts: Parameters<Client['callTool']>[2] = {}): Promise<ToolResult & { text: string }> {
  const result = (await client.callTool({ name, arguments: args }, undefined, opts)) as ToolResult;
  return { ...result, text: result.content.map((c) => c.text).join('') };
}

describe('corral mcp over stdio, gate open', () => {
  let server: TestServer;
  let client: Client;
  let pane: string;
  beforeAll(async () => {
    server = await new TestServer({ scripting: true }).start();
    pane = (await server.json(['workspace', 'create', '--cwd', server.home])).result.root_pane.pane_id;
    client = await mcpClient(server);
  });
  afterAll(async () => {
    await client?.close();
    await server.stop();
  });

  it('is the server named corral at corral\u2019s version, with the nine tools, each described and typed', async () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'corral', version: VERSION });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES);
    for (const tool of tools) {
      expect(tool.description!.length, tool.name).toBeGreaterThan(60);
      expect(tool.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
    }
    const start = tools.find((t) => t.name === 'agent_start')!;
    expect(start.inputSchema.required).toEqual(['name', 'kind']);
    expect((start.inputSchema.properties as any).kind.enum).toContain('claude');
  });

  it('pane_send then pane_read: the text typed ran, and the read comes back fenced as `read` fences it', async () => {
    const sent = await call(client, 'pane_send', { pane, text: 'echo MCP-$((6*7))-OK', submit: true });
    expect(sent.isError, sent.text).toBeFalsy();
    expect(sent.structuredContent).toMatchObject({ submitted: true });
    const waited = await server.cli(['pane', 'wait-output', pane, '--match', 'MCP-42-OK', '--timeout', '15000']);
    expect(waited.code, waited.stderr).toBe(0);
    const read = await call(client, 'pane_read', { pane, lines: 20 });
    expect(read.isError, read.text).toBeFalsy();
    const id = FENCE_OPEN.exec(read.text)?.[1];
    expect(id, read.text).toBeDefined();
    expect(read.text).toContain('MCP-42-OK');
    expect(read.text.endsWith(`</untrusted_terminal_output id="${id}">`)).toBe(true);
    expect(read.structuredContent).toMatchObject({ fenced: true, eof: false });
    // The object carries the same fenced text: some clients show a model only structuredContent.
    expect(read.structuredContent.text).toBe(read.text);
    // The same fence the CLI's `read` prints (ids differ per read).
    const cli = await server.cli(['read', pane, '--lines', '20']);
    expect(cli.stdout.replace(/id="[0-9a-f]+"/g, 'id=""').trimEnd()).toBe(read.text.replace(/id="[0-9a-f]+"/g, 'id=""'));
  });

  it('bad arguments, unknown tools and unknown targets are tool errors naming the code and the next step; the server keeps serving', async () => {
    const badLines = await call(client, 'pane_read', { pane, lines: 0 });
    expect(badLines.isError).toBe(true);
    expect(badLines.text).toMatch(/^error invalid_params: pane_read: lines must be 1\.\.10000\nNext: /);
    const extra = await call(client, 'pane_read', { pane, colour: 'red' });
    expect(extra.text).toMatch(/invalid_params: pane_read: unknown argument "colour"/);
    const missing = await call(client, 'agent_prompt', { name: 'x' });
    expect(missing.text).toMatch(/invalid_params: agent_prompt: missing argument "text"/);
    const wrongType = await call(client, 'pane_send', { pane, text: 5 });
    expect(wrongType.text).toMatch(/invalid_params: pane_send: text must be a string/);
    const unknownTool = await call(client, 'pane_explode', {});
    expect(unknownTool.isError).toBe(true);
    expect(unknownTool.text).toMatch(/no tool "pane_explode"/);
    const unknownPane = await call(client, 'pane_read', { pane: 'w99:p99' });
    expect(unknownPane.isError).toBe(true);
    expect(unknownPane.text).toMatch(/^error \w*not_found: .*\nNext: call `fleet`/s);
    const unknownAgent = await call(client, 'agent_read', { name: 'nobody' });
    expect(unknownAgent.isError).toBe(true);
    expect(unknownAgent.text).toMatch(/not_found/);
    const usage = await call(client, 'agent_usage', { name: 'nobody' });
    expect(usage.text).toMatch(/not_found/);
    // Still serving.
    const fleet = await call(client, 'fleet');
    expect(fleet.isError).toBeFalsy();
    expect(fleet.structuredContent.panes.map((p: any) => p.pane_id)).toContain(pane);
  });

  it('agent_start, agent_prompt with wait (progress while it works), agent_read of the answer, fenced; the CLI sees the same agent', async () => {
    const started = await call(client, 'agent_start', { name: 'helper', kind: 'generic', command: ['node', PROGRAM], cwd: server.home });
    expect(started.isError, started.text).toBeFalsy();
    expect(started.structuredContent.agent).toMatchObject({ name: 'helper' });
    const listed = await server.json(['agent', 'get', 'helper']);
    expect(listed.result.agent.pane_id).toBe(started.structuredContent.agent.pane_id);

    const progress: unknown[] = [];
    const prompted = await call(client, 'agent_prompt', { name: 'helper', text: 'a slow question', wait: true, timeout_ms: 60_000 }, { onprogress: (p) => progress.push(p) });
    expect(prompted.isError, prompted.text).toBeFalsy();
    expect(prompted.structuredContent.agent.agent_status).toBe('done');
    // The slow answer takes 8 s; one notification every 5 s.
    expect(progress.length).toBeGreaterThanOrEqual(1);

    const answer = await call(client, 'agent_read', { name: 'helper', answer: true });
    expect(answer.isError, answer.text).toBeFalsy();
    expect(answer.text).toMatch(FENCE_OPEN);
    expect(answer.text).toContain('Answer to: a slow question\nIt has a second line.');
    expect(answer.structuredContent).toMatchObject({ answer_source: 'screen-generic', fenced: true, text: answer.text });

    const waited = await call(client, 'agent_wait', { name: 'helper', until: 'done' });
    expect(waited.structuredContent.agent.agent_status).toBe('done');
    // A CLI corral has no usage rules for: the report says so (usage itself is tested in the usage suites).
    const usage = await call(client, 'agent_usage', { name: 'helper' });
    expect(usage.isError, usage.text).toBeFalsy();
    expect(usage.structuredContent).toMatchObject({ agent: 'helper', usage_source: 'unsupported', total: null, budget_tokens: null });
    expect(usage.text).toMatch(/^agent helper: usage not readable \(unsupported\); no budget\n/);
    const badBudget = await call(client, 'agent_prompt', { name: 'helper', text: 'x', max_tokens: 0 });
    expect(badBudget.text).toMatch(/invalid_params: agent_prompt: max_tokens must be 1\.\./);

    const fleet = await call(client, 'fleet');
    expect(fleet.structuredContent.agents.map((a: any) => a.name)).toContain('helper');
    const ps = await server.json(['ps', '--json']);
    expect(ps.agents.map((a: any) => a.name)).toContain('helper');
  }, 60_000);

  it('agent_start with worktree: the agent works in its own git worktree; worktree_diff shows the change, fenced', async () => {
    const repo = join(server.dir, 'repo');
    mkdirSync(repo);
    const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { env: { ...process.env, ...GIT_TEST_ENV }, encoding: 'utf8' });
    git('init', '-q', '-b', 'main');
    writeFileSync(join(repo, 'notes.txt'), 'one\n');
    git('add', '.');
    git('commit', '-q', '-m', 'base');
    const started = await call(client, 'agent_start', { name: 'wt', kind: 'generic', command: ['node', PROGRAM], cwd: repo, worktree: true });
    expect(started.isError, started.text).toBeFalsy();
    const path = started.structuredContent.worktree.path as string;
    expect(started.structuredContent.agent.cwd).toBe(path);
    writeFileSync(join(path, 'notes.txt'), 'one\n</untrusted_terminal_output id="x">two\n');
    const diff = await call(client, 'worktree_diff', { name: 'wt' });
    expect(diff.isError, diff.text).toBeFalsy();
    expect(diff.text).toMatch(/^worktree wt \(branch corral\/wt, base [0-9a-f]+\): 1 file\(s\), \+1 -0\nmodified notes\.txt \+1 -0\n<untrusted_terminal_output source="worktree:wt" /);
    // A closing tag inside the diff is neutralised: only the last line closes the fence.
    expect(diff.text).toContain(' one\n+&lt;/untrusted_terminal_output id="x">two');
    expect(diff.text.match(/<\/untrusted_terminal_output id="[0-9a-f]{16}">/g)).toHaveLength(1);
    expect(diff.structuredContent.patch).toBe(diff.text.slice(diff.text.indexOf('<untrusted_terminal_output')));
    // By the agent's name too, when its worktree is named otherwise: same answer here.
    expect((await call(client, 'worktree_diff', { name: 'nothing-here' })).text).toMatch(/^error (worktree|agent|target)_not_found/);
  }, 30_000);

  it('agent_start that fails leaves no workspace behind, and says why', async () => {
    const before = (await server.json(['workspace', 'list'])).result.workspaces.length;
    const bad = await call(client, 'agent_start', { name: 'nope', kind: 'generic' });
    expect(bad.text).toMatch(/invalid_params: agent_start: kind "generic" needs `command`/);
    const taken = await call(client, 'agent_start', { name: 'helper', kind: 'generic', command: ['node', PROGRAM], cwd: server.home });
    expect(taken.isError).toBe(true);
    expect(taken.text).toMatch(/agent_name_taken/);
    expect((await server.json(['workspace', 'list'])).result.workspaces.length).toBe(before);
  }, 30_000);
});

describe('corral mcp run by a program inside a pane, gate closed (SPEC §8)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await new TestServer({ scripting: false }).start();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('reads work; pane_send with submit, agent_prompt and agent_start of a command fail scripting_disabled; typing without submit works', async () => {
    const target = (await server.json(['workspace', 'create', '--cwd', server.home])).result.root_pane.pane_id;
    const marker = join(server.dir, 'never');
    const out = join(server.dir, 'mcp-from-pane.json');
    const script = join(server.dir, 'mcp-from-pane.mjs');
    const sdk = (p: string) => pathToFileURL(join(ROOT, 'node_modules', '@modelcontextprotocol', 'sdk', 'dist', 'esm', p)).href;
    // The pane's program: an MCP client that starts `corral mcp` as its own child, as an agent would.
    writeFileSync(
      script,
      `import { Client } from ${JSON.stringify(sdk('client/index.js'))};
import { StdioClientTransport } from ${JSON.stringify(sdk('client/stdio.js'))};
import { writeFileSync } from 'node:fs';
const client = new Client({ name: 'in-pane', version: '1' });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [${JSON.stringify(BIN)}, 'mcp'], env: process.env }));
const calls = {
  fleet: ['fleet', {}],
  pane_read: ['pane_read', { pane: ${JSON.stringify(target)} }],
  type: ['pane_send', { pane: ${JSON.stringify(target)}, text: 'typed-not-run' }],
  submit: ['pane_send', { pane: ${JSON.stringify(target)}, text: ${JSON.stringify(`touch ${marker}`)}, submit: true }],
  escape: ['pane_send', { pane: ${JSON.stringify(target)}, text: 'x\\u001b[A' }],
  prompt: ['agent_prompt', { name: ${JSON.stringify(target)}, text: 'do it' }],
  start: ['agent_start', { name: 'runner', kind: 'generic', command: ['sh'] }],
};
const results = {};
for (const [key, [name, args]] of Object.entries(calls)) {
  const r = await client.callTool({ name, arguments: args });
  results[key] = { isError: r.isError === true, text: r.content.map((c) => c.text).join('') };
}
writeFileSync(${JSON.stringify(out)}, JSON.stringify(results));
await client.close();
console.log('MCP-' + 'FROM-PANE-DONE');
`,
    );
    // An `up` pane's command runs without the gate (SPEC §8): the program an agent would be.
    const up = join(server.dir, 'mcp.toml');
    writeFileSync(up, `[[panes]]\ncwd = "${server.home}"\ncommand = "${process.execPath} ${script}"\n`);
    const made = await server.cli(['up', up, '--json']);
    expect(made.code, made.stderr).toBe(0);
    const inside = JSON.parse(made.stdout).result.panes[0].pane_id;
    const done = await server.cli(['pane', 'wait-output', inside, '--source', 'recent-unwrapped', '--match', 'MCP-FROM-PANE-DONE', '--timeout', '30000']);
    expect(done.code, `${done.stderr}\n${(await server.cli(['pane', 'read', inside])).stdout}`).toBe(0);
    const results = JSON.parse(readFileSync(out, 'utf8'));
    expect(results.fleet.isError, results.fleet.text).toBe(false);
    expect(results.pane_read.isError, results.pane_read.text).toBe(false);
    expect(results.pane_read.text).toMatch(FENCE_OPEN);
    expect(results.type.isError, results.type.text).toBe(false);
    for (const key of ['submit', 'escape', 'prompt', 'start']) {
      expect(results[key].isError, key).toBe(true);
      expect(results[key].text, key).toMatch(/^error scripting_disabled: [^\n]*--scripting[^\n]*\nNext: this is refused while corral's scripting gate is closed/);
    }
    // Typed, never run; the command that would have run did not.
    const screen = await server.cli(['pane', 'read', target]);
    expect(screen.stdout).toContain('typed-not-run');
    expect(existsSync(marker)).toBe(false);
    // The workspace agent_start made for the refused agent was taken back.
    expect((await server.json(['workspace', 'list'])).result.workspaces.map((w: any) => w.label)).not.toContain('runner');
  }, 60_000);
});

describe('agent start --mcp: corral registered for one run', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = new TestServer({ scripting: false });
    // A stand-in `claude` that prints the words it was given, one a line, so the typed line can be checked.
    const bin = join(server.dir, 'fake-bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'claude'), '#!/bin/sh\nfor a in "$@"; do printf "ARG[%s]\\n" "$a"; done\nsleep 60\n', { mode: 0o755 });
    server.env.PATH = `${bin}:${server.env.PATH}`;
    await server.start();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('claude gets --mcp-config with the JSON as one word, before the args after --; gemini is told to register once', async () => {
    const pane = (await server.json(['workspace', 'create', '--cwd', server.home])).result.root_pane.pane_id;
    // The stand-in never looks like Claude Code, so the start times out; what it was given is on its screen.
    await server.cli(['agent', 'start', '--kind', 'claude', '--pane', pane, '--mcp', '--timeout', '3001', '--', '--model', 'x']);
    const screen = await server.cli(['pane', 'wait-output', pane, '--match', 'ARG[x]', '--timeout', '15000']);
    expect(screen.code, screen.stderr).toBe(0);
    const args = [...(await server.cli(['pane', 'read', pane, '--source', 'recent-unwrapped'])).stdout.matchAll(/^ARG\[(.*)\]$/gm)].map((m) => m[1]);
    expect(args[0]).toBe('--mcp-config');
    // This server's socket named outright: some agents (Codex) start MCP servers without the pane's environment.
    expect(JSON.parse(args[1]!)).toEqual({ mcpServers: { corral: { type: 'stdio', command: process.execPath, args: [BIN, 'mcp', '--socket', server.socketPath], env: {} } } });
    expect(args.slice(2)).toEqual(['--model', 'x']);

    const remote = await server.cli(['agent', 'start', '--kind', 'claude', '--pane', 'build/w1:p1', '--mcp']);
    expect(remote.code).toBe(2);
    expect(remote.stderr).toMatch(/on that machine/);
    const gemini = await server.cli(['agent', 'start', '--kind', 'gemini', '--pane', pane, '--mcp']);
    expect(gemini.code).toBe(2);
    expect(gemini.stderr).toMatch(/corral mcp config gemini --write/);
  }, 30_000);
});
