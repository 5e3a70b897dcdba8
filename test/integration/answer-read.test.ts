/**
 * `agent read --answer` from the screen (issue 29) on a stand-in agent with a banner, tips box,
 * input box and hint row (test/fixtures/programs/answeragent.mjs, read with the generic rules
 * and no session record): the answer comes back without them, `--turns` gives the last ones,
 * a working agent is refused, and a flow's `capture = { var, answer = true }` hands the answer
 * alone to the next step.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, TestServer } from './harness.js';

const PROGRAM = join(ROOT, 'test', 'fixtures', 'programs', 'answeragent.mjs');
const UI = ['Answer Agent v1', 'Welcome back', 'Tips for getting started', '? for shortcuts', '────', '╭', '│', 'esc to interrupt'];

describe('agent read --answer on a stand-in agent (screen)', () => {
  let server: TestServer;
  let pane: string;
  beforeAll(async () => {
    server = await new TestServer({ scripting: true }).start();
    pane = (await server.json(['workspace', 'create', '--cwd', server.home])).result.root_pane.pane_id;
    await server.json(['agent', 'start', 'writer', '--kind', 'generic', '--pane', pane, '--', 'node', PROGRAM]);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('returns the answer to the prompt corral typed, none of the UI, from the screen', async () => {
    const done = (await server.json(['agent', 'prompt', 'writer', 'Write two lines', '--wait', '--timeout', '30000'])).result.agent;
    expect(done.agent_status).toBe('done');
    const read = (await server.json(['agent', 'read', 'writer', '--answer', '--json'])).result.read;
    expect(read).toMatchObject({ pane_id: pane, answer_source: 'screen-generic', text: 'Answer to: Write two lines\nIt has a second line.', answers: ['Answer to: Write two lines\nIt has a second line.'] });
    for (const ui of UI) expect(read.text).not.toContain(ui);
    // Plain: the answer alone on stdout, for `$(corral agent read writer --answer)`.
    const plain = await server.cli(['agent', 'read', 'writer', '--answer']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toBe('Answer to: Write two lines\nIt has a second line.\n');
    expect(plain.stderr).toBe('');
  });

  it('--turns 2: the last two answers, oldest first, each ending at the next prompt', async () => {
    await server.json(['agent', 'prompt', 'writer', 'And once more', '--wait', '--timeout', '30000']);
    const read = (await server.json(['agent', 'read', 'writer', '--answer', '--turns', '2', '--json'])).result.read;
    expect(read.answers).toEqual(['Answer to: Write two lines\nIt has a second line.', 'Answer to: And once more\nIt has a second line.']);
    expect(read.text).toBe(read.answers.join('\n\n'));
    const last = (await server.json(['agent', 'read', 'writer', '--answer', '--json'])).result.read;
    expect(last.answers).toEqual(['Answer to: And once more\nIt has a second line.']);
  });

  it('refuses while the agent works (agent_not_idle), and bad flags are usage errors', async () => {
    await server.json(['agent', 'prompt', 'writer', 'A slow one']);
    await server.json(['agent', 'wait', 'writer', '--until', 'working', '--timeout', '20000']);
    const busy = await server.cli(['agent', 'read', 'writer', '--answer']);
    expect(busy.code).toBe(1);
    expect(JSON.parse(busy.stderr).error.code).toBe('agent_not_idle');
    await server.json(['agent', 'wait', 'writer', '--until', 'done', '--timeout', '20000']);
    expect((await server.cli(['agent', 'read', 'writer', '--turns', '2'])).code).toBe(2);
    expect((await server.cli(['agent', 'read', 'writer', '--answer', '--turns', '21'])).code).toBe(2);
    expect((await server.cli(['agent', 'read', 'writer', '--answer', '--lines', '5'])).code).toBe(2);
    const client = await server.connect();
    try {
      const refused = await client.request('agent.read', { target: 'writer', answer: true, lines: 5 });
      expect(refused.error?.data?.code).toBe('invalid_params');
    } finally {
      client.close();
    }
  });
});

describe('flow capture = { var, answer = true }', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await new TestServer({ scripting: true }).start();
  });
  afterAll(async () => {
    await server.stop();
  });

  it("hands the writer's answer, not its banner or input box, to the next step", async () => {
    const dir = server.home;
    const flow = join(dir, 'handoff.toml');
    const sink = join(dir, 'received.txt');
    writeFileSync(
      flow,
      [
        'name = "handoff"',
        '[defaults]',
        // Below the test's own 30 s: a step that hangs is named in the flow's report.
        'timeout_secs = 20',
        '[[step]]',
        'id = "writer"',
        `pane = { name = "writer", cwd = ".", command = "node ${PROGRAM}" }`,
        'ready = { pattern = "shortcuts" }',
        '[[step]]',
        'id = "write"',
        'needs = ["writer"]',
        'send = { target = "writer", text = "Write two lines", submit = true }',
        'ready = { idle = true }',
        'capture = { var = "said", answer = true }',
        '[[step]]',
        'id = "sink"',
        'needs = ["write"]',
        // Ready once the shell has run the line (it printed SINK-UP): sent earlier, while bash
        // still read its command line with bracketed paste on, the text went to cat framed.
        `pane = { name = "sink", cwd = ".", command = "echo SINK-UP; cat > ${sink}" }`,
        'ready = { pattern = "^SINK-UP$" }',
        '[[step]]',
        'id = "hand"',
        'needs = ["sink"]',
        'send = { target = "sink", text = "${said}", submit = true }',
        'ready = { pattern = "second line" }',
      ].join('\n'),
    );
    const run = await server.cli(['flow', 'run', flow, '--json']);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    // cat writes each line as the pane's line discipline hands it over, as it echoes it.
    let received = '';
    for (let i = 0; i < 100 && !received.includes('second line'); i++) {
      received = existsSync(sink) ? readFileSync(sink, 'utf8') : '';
      if (!received.includes('second line')) await new Promise((r) => setTimeout(r, 50));
    }
    expect(received.trimEnd()).toBe('Answer to: Write two lines\nIt has a second line.');
  });
});
