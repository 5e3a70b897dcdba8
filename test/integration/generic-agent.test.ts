/**
 * The generic rules (assets/agents/generic.toml) on a program corral has never heard of: a
 * stand-in "new agent CLI" using only the common idioms (spinner title, "esc to interrupt",
 * "Do you want to proceed?", BEL at turn end). It becomes an agent once it works, is read as
 * working / blocked / idle, and says everywhere that the rules were generic.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { ROOT, TestServer } from './harness.js';

const PROGRAM = join(ROOT, 'test', 'fixtures', 'programs', 'newagent.mjs');

describe('an unknown agent CLI read with the generic rules', () => {
  let server: TestServer;
  let pane: string;
  const ps = async () => JSON.parse((await server.cli(['ps', '--json'])).stdout).agents as any[];
  const waitFor = (until: string) => server.json(['agent', 'wait', pane, '--until', until, '--timeout', '20000']).then((r) => r.result.agent);

  beforeAll(async () => {
    server = await new TestServer({ scripting: true }).start();
    pane = (await server.json(['workspace', 'create', '--cwd', server.home])).result.root_pane.pane_id;
    await server.json(['pane', 'run', pane, `node ${PROGRAM}`]);
    await server.json(['pane', 'wait-output', pane, '--match', 'type a task', '--timeout', '20000']);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('is not an agent while it only sits at its prompt', async () => {
    expect(await ps()).toEqual([]);
  });

  it('becomes an agent named after its program when it starts working, marked generic', async () => {
    await server.json(['pane', 'send-text', pane, 'hello']);
    await server.json(['pane', 'send-keys', pane, 'enter']);
    let rows: any[] = [];
    for (let i = 0; i < 200 && rows.length === 0; i++) rows = await ps();
    expect(rows).toHaveLength(1);
    // Found by its working idiom: thinking from the first row on (the turn lasts 4 s).
    expect(rows[0]).toMatchObject({ tool: 'newagent', pane_id: pane, state: 'thinking', reason: 'screen', rules: 'generic' });
    const agent = (await server.json(['agent', 'get', pane])).result.agent;
    expect(agent).toMatchObject({ kind: 'newagent', rules: 'generic' });
    const table = (await server.cli(['ps'])).stdout;
    expect(table).toMatch(/newagent\s+thinking \(generic\)/);
  });

  it('is idle again after the turn, and explain names the generic rules', async () => {
    const done = await waitFor('done');
    expect(done.completion_seq).toBe(done.state_change_seq);
    const explained = (await server.cli(['agent', 'explain', pane])).stdout;
    expect(explained).toContain("screen read with generic rules: common agent idioms, not this agent's own");
    expect(explained).toContain('kind: generic (assets/agents/generic.toml');
  });

  it('is blocked on a "Do you want to proceed?" prompt, with the question as message', async () => {
    await server.json(['pane', 'send-text', pane, 'tool']);
    await server.json(['pane', 'send-keys', pane, 'enter']);
    const blocked = await waitFor('blocked');
    expect(blocked.message).toContain('Do you want to proceed?');
    await server.json(['pane', 'send-keys', pane, 'enter']);
    const after = await waitFor('done');
    expect(after.agent_status).toBe('done');
  });

  it('is gone when the program exits', async () => {
    await server.json(['pane', 'send-keys', pane, 'ctrl+c']);
    let rows = await ps();
    for (let i = 0; i < 200 && rows.length > 0; i++) rows = await ps();
    expect(rows).toEqual([]);
  });

  it('agent start --kind generic runs the named command and adopts it at once, before it shows any idiom', async () => {
    const started = (await server.json(['agent', 'start', 'fresh', '--kind', 'generic', '--pane', pane, '--', 'node', PROGRAM])).result;
    expect(started.argv).toEqual(['node', PROGRAM]);
    expect(started.agent).toMatchObject({ name: 'fresh', kind: 'newagent', agent_status: 'idle', resume: 'unsupported' });
    // Read with the generic rules: the prompt submits and the turn is seen through.
    const done = (await server.json(['agent', 'prompt', 'fresh', 'hello', '--wait', '--timeout', '30000'])).result.agent;
    expect(done.agent_status).toBe('done');
    expect((await server.cli(['agent', 'explain', 'fresh'])).stdout).toContain('kind: generic (assets/agents/generic.toml');
    await server.json(['pane', 'send-keys', pane, 'ctrl+c']);
    let rows = await ps();
    for (let i = 0; i < 200 && rows.length > 0; i++) rows = await ps();
    expect(rows).toEqual([]);
  });

  it('agent start --kind generic needs the command, and a forgotten kind is refused with the way round', async () => {
    const bare = await server.cli(['agent', 'start', '--kind', 'generic', '--pane', pane]);
    expect(JSON.parse(bare.stderr).error.code).toBe('invalid_params');
    const unknown = await server.cli(['agent', 'start', '--kind', 'nosuchagent', '--pane', pane]);
    expect(JSON.parse(unknown.stderr).error.code).toBe('unsupported_agent_kind');
  });
});

describe('a server told to forget a kind (CORRAL_FORGET_KINDS)', () => {
  let server: TestServer;
  let pane: string;
  beforeAll(async () => {
    const probe = new TestServer({ scripting: true });
    probe.env.CORRAL_FORGET_KINDS = 'claude';
    server = await probe.start();
    pane = (await server.json(['workspace', 'create', '--cwd', server.home])).result.root_pane.pane_id;
  });
  afterAll(async () => {
    await server.stop();
  });

  it('refuses agent start --kind for it and names the generic start instead', async () => {
    const refused = await server.cli(['agent', 'start', '--kind', 'claude', '--pane', pane]);
    const error = JSON.parse(refused.stderr).error;
    expect(error.code).toBe('unsupported_agent_kind');
    expect(error.message).toContain('--kind generic -- claude');
  });
});

describe('agent start --kind generic with the gate closed', () => {
  let server: TestServer;
  let pane: string;
  beforeAll(async () => {
    server = await new TestServer().start();
    pane = (await server.json(['workspace', 'create', '--cwd', server.home])).result.root_pane.pane_id;
  });
  afterAll(async () => {
    await server.stop();
  });

  it('is refused: the caller names the command, and nothing is typed', async () => {
    const refused = await server.cli(['agent', 'start', '--kind', 'generic', '--pane', pane, '--', 'touch', 'pwned']);
    expect(JSON.parse(refused.stderr).error.code).toBe('scripting_disabled');
    const screen = (await server.cli(['pane', 'read', pane, '--source', 'visible'])).stdout;
    expect(screen).not.toContain('pwned');
  });
});

describe('a turn no rule sees (agent prompt --wait)', () => {
  let server: TestServer;
  const start = async (idiom: string) => {
    const probe = new TestServer({ scripting: true });
    probe.env.NEWAGENT_IDIOM = idiom;
    server = await probe.start();
    const pane = (await server.json(['workspace', 'create', '--cwd', server.home])).result.root_pane.pane_id;
    await server.json(['agent', 'start', 'q', '--kind', 'generic', '--pane', pane, '--', 'node', PROGRAM]);
  };
  afterEach(async () => {
    await server?.stop();
  });

  it('an answer drawn with no busy idiom counts as the turn: working → done, not stalled', async () => {
    await start('none');
    const done = (await server.json(['agent', 'prompt', 'q', 'what is it', '--wait', '--timeout', '30000'])).result.agent;
    expect(done.agent_status).toBe('done');
    expect(done.completion_seq).toBe(done.state_change_seq);
    expect((await server.cli(['agent', 'read', 'q'])).stdout).toContain('forty-two');
  });

  it('a prompt that left nothing on screen is still agent_prompt_stalled', async () => {
    await start('deaf');
    const stalled = await server.cli(['agent', 'prompt', 'q', 'what is it', '--wait', '--timeout', '30000']);
    expect(JSON.parse(stalled.stderr).error.code).toBe('agent_prompt_stalled');
  });
});
