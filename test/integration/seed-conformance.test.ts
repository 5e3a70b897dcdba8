/**
 * Where a script written from the seed documents used to break (issue 17), through the real
 * CLI against a real server with real bash panes: wrapped lines that must match, transcript
 * reads of a full-screen app (a fixture with a fixed header and footer), a reader that closes
 * the pipe early, numbers checked before anything is sent, and the small ones.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { copyFileSync, chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, ROOT, TestServer, type CliResult } from './harness.js';

const FULLSCREEN_APP = join(ROOT, 'test', 'fixtures', 'fullscreen-app', 'app.mjs');

/** Runs the CLI with its stdout closed by the reader before anything is written (`| true`). */
function cliWithClosedStdout(server: TestServer, args: string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: server.env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout: '', stderr }));
  });
}

async function newPane(server: TestServer): Promise<string> {
  const created = await server.json(['workspace', 'create', '--cwd', server.home, '--no-focus']);
  return created.result.root_pane.pane_id;
}

describe('seed conformance (scripting on)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await new TestServer({ scripting: true }).start();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('1: a line the pane wrapped matches pane wait-output whole, and wait --pattern too', async () => {
    const pane = await newPane(server);
    const cols = (await server.json(['pane', 'get', pane])).result.pane.cols as number;
    // The seed's check: width − 4 x's, then WRAP, so the row breaks right between WRAP and the marker.
    const xs = 'x'.repeat(cols - 4);
    // The command line itself reads "WRAP%s", so only the printed, wrapped line can match.
    await server.cli(['pane', 'run', pane, `printf '%sWRAP%s\\n' ${xs} MARKER_END`]);
    const waited = await server.cli(['pane', 'wait-output', pane, '--match', 'WRAPMARKER_END', '--timeout', '10000']);
    expect(waited.code, waited.stderr).toBe(0);
    const result = JSON.parse(waited.stdout).result;
    expect(result.matched_line).toBe(`${xs}WRAPMARKER_END`);
    // The read is still the recent rows as rendered: the wrap is visible there.
    expect(result.read.source).toBe('recent');
    expect(result.read.text).toContain(`${xs}WRAP\nMARKER_END`);
    const regex = await server.cli(['pane', 'wait-output', pane, '--regex', '^x+WRAPMARKER_END$', '--timeout', '10000']);
    expect(regex.code, regex.stderr).toBe(0);

    // wait --pattern: only output after the wait began, and the wrapped line whole.
    const waiting = server.cli(['wait', '--match', pane, '--pattern', 'WRAPLATER_END$', '--timeout', '20', '--json']);
    // The wait's baseline (its first read) is not observable from outside; give it time to
    // take it, or the line would count as old output and the wait would rightly time out.
    await new Promise((r) => setTimeout(r, 700));
    await server.cli(['pane', 'run', pane, `printf '%sWRAP%s\\n' ${xs} LATER_END`]);
    const later = await waiting;
    expect(later.code, later.stderr).toBe(0);
    expect(JSON.parse(later.stdout).matches[0].lines).toEqual([`${xs}WRAPLATER_END`]);
  });

  describe('a full-screen agent with a fixed header and footer (fixture app)', () => {
    let pane: string;
    beforeAll(async () => {
      // Copied under an agent's name so the process scan recognises it (kind maki).
      const bin = join(server.home, 'bin');
      mkdirSync(bin, { recursive: true });
      copyFileSync(FULLSCREEN_APP, join(bin, 'maki'));
      chmodSync(join(bin, 'maki'), 0o755);
      pane = await newPane(server);
      await server.cli(['pane', 'run', pane, `${join(bin, 'maki')} 200`]);
      await server.cli(['pane', 'wait-output', pane, '--source', 'visible', '--match', 'fixed footer', '--timeout', '10000']);
      const deadline = Date.now() + 10_000;
      for (;;) {
        const agent = await server.cli(['agent', 'get', pane]);
        if (agent.code === 0 && JSON.parse(agent.stdout).result.agent.agent_status === 'idle') break;
        if (Date.now() > deadline) throw new Error(`fixture agent not idle: ${agent.stdout}${agent.stderr}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    });

    const lineNumbers = (text: string) =>
      text
        .split('\n')
        .filter((line) => line.startsWith('transcript line'))
        .map((line) => Number(line.slice('transcript line '.length)));

    it('4: agent read --lines 120 is one run of lines with the footer once', async () => {
      const read = await server.cli(['agent', 'read', pane, '--lines', '120']);
      expect(read.code, read.stderr).toBe(0);
      const lines = read.stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(120);
      expect(lines.filter((line) => line.includes('fixed footer'))).toHaveLength(1);
      expect(lines[lines.length - 1]).toContain('fixed footer');
      // 119 transcript lines, consecutive, ending at the last: 082 … 200.
      expect(lineNumbers(read.stdout)).toEqual(Array.from({ length: 119 }, (_, i) => 82 + i));
      // The viewport is back at the bottom.
      const visible = await server.cli(['pane', 'read', pane, '--source', 'visible']);
      expect(visible.stdout).toContain('transcript line 200');
    });

    it('3: pane read gathers the same transcript (no extra option)', async () => {
      const read = await server.cli(['pane', 'read', pane, '--lines', '150']);
      expect(read.code, read.stderr).toBe(0);
      const numbers = lineNumbers(read.stdout);
      expect(numbers).toEqual(Array.from({ length: 149 }, (_, i) => 52 + i));
      expect(read.stdout.match(/fixed footer/g)).toHaveLength(1);
      // recent-unwrapped gathers too.
      const unwrapped = await server.cli(['pane', 'read', pane, '--source', 'recent-unwrapped', '--lines', '100']);
      expect(lineNumbers(unwrapped.stdout)[0]).toBe(102);
    });

    it('3: an agent read and a pane read at the same time both get the whole transcript', async () => {
      const [agentRead, paneRead] = await Promise.all([
        server.cli(['agent', 'read', pane, '--lines', '120']),
        server.cli(['pane', 'read', pane, '--lines', '120']),
      ]);
      for (const read of [agentRead, paneRead]) {
        expect(read.code, read.stderr).toBe(0);
        expect(lineNumbers(read.stdout)).toEqual(Array.from({ length: 119 }, (_, i) => 82 + i));
      }
    });

    it('3: pane read of a full-screen app that is not an agent stays passive (the screen only)', async () => {
      const other = await newPane(server);
      await server.cli(['pane', 'run', other, `node ${FULLSCREEN_APP} 200`]);
      await server.cli(['pane', 'wait-output', other, '--source', 'visible', '--match', 'fixed footer', '--timeout', '10000']);
      const read = await server.cli(['pane', 'read', other, '--lines', '150']);
      expect(read.code, read.stderr).toBe(0);
      const rows = (await server.json(['pane', 'get', other])).result.pane.rows as number;
      // Only what the screen shows: the body rows, no gathered history.
      expect(lineNumbers(read.stdout)).toEqual(Array.from({ length: rows - 2 }, (_, i) => 200 - (rows - 2) + 1 + i));
    });
  });

  it('5: a reader that closes the pipe early ends the CLI quietly, exit 0', async () => {
    await newPane(server);
    // watch streams until its reader goes away: the first write ends it.
    for (const args of [['workspace', 'list'], ['ps', '--json'], ['pane', 'list'], ['ls'], ['watch']]) {
      const result = await cliWithClosedStdout(server, args);
      expect(result.stderr, args.join(' ')).toBe('');
      expect(result.code, args.join(' ')).toBe(0);
    }
  });

  it('6: bad numbers are usage errors (exit 2, the flag named) before anything is sent', async () => {
    const pane = await newPane(server);
    const cases: Array<[string[], string]> = [
      // A missing agent would be exit 3 if the request went out: exit 2 proves it did not.
      [['agent', 'wait', 'nobody', '--timeout', 'abc'], '--timeout'],
      [['agent', 'wait', 'nobody', '--timeout', '1e20'], '--timeout'],
      [['agent', 'prompt', 'nobody', 'hi', '--wait', '--timeout', 'Infinity'], '--timeout'],
      [['pane', 'wait-output', 'w99:p9', '--match', 'x', '--timeout', '-1'], '--timeout'],
      [['pane', 'wait-output', 'w99:p9', '--match', 'x', '--lines', '0'], '--lines'],
      [['pane', 'read', 'w99:p9', '--lines', 'abc'], '--lines'],
      [['agent', 'read', 'nobody', '--lines', '1.5'], '--lines'],
      [['read', 'nobody', '--lines', '0'], '--lines'],
      [['search', 'nobody', 'x', '--max', '0x10'], '--max'],
      [['wait', '--match', 'nobody', '--timeout', 'abc'], '--timeout'],
      [['wait', '--match', 'nobody', '--idle', '--for', '-5'], '--for'],
      [['pane', 'split', 'w99:p9', '--direction', 'right', '--ratio', '2'], '--ratio'],
      [['pane', 'resize', 'w99:p9', '--direction', 'left', '--amount', 'lots'], '--amount'],
      [['agent', 'start', '--kind', 'codex', '--pane', 'w99:p9', '--timeout', '3000'], '--timeout'],
    ];
    for (const [args, flag] of cases) {
      const result = await server.cli(args);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toContain(flag);
      expect(result.stderr).toContain('--help');
    }
    // A valid number still works.
    expect((await server.cli(['pane', 'read', pane, '--lines', '5'])).code).toBe(0);
    // A value the server refuses as invalid_params is exit 2 as well.
    const badCwd = await server.cli(['workspace', 'create', '--cwd', join(server.home, 'no-such-dir')]);
    expect(badCwd.code, badCwd.stderr).toBe(2);
    expect(JSON.parse(badCwd.stderr).error.code).toBe('invalid_params');
    const badType = await server.cli(['watch', '--type', 'no.such.event']);
    expect(badType.code, badType.stderr).toBe(2);
  });

  it('6: the server refuses the same numbers as invalid_params', async () => {
    const pane = await newPane(server);
    const client = await server.connect();
    try {
      const bad: Array<[string, Record<string, unknown>]> = [
        ['pane.read', { pane_id: pane, lines: 'abc' }],
        ['pane.read', { pane_id: pane, lines: 0 }],
        ['pane.read', { pane_id: pane, lines: 1.5 }],
        ['surface.read', { target: pane, lines: 1e20 }],
        ['pane.wait_for_output', { pane_id: pane, match: { type: 'substring', value: 'x' }, timeout_ms: -1 }],
        ['pane.wait_for_output', { pane_id: pane, match: { type: 'substring', value: 'x' }, timeout_ms: 1e20 }],
        ['agent.wait', { target: pane, timeout_ms: 'soon' }],
        ['surface.search', { target: pane, pattern: 'x', max_matches: 0 }],
      ];
      for (const [method, params] of bad) {
        const response = await client.request(method, params);
        expect(response.error?.data?.code, `${method} ${JSON.stringify(params)}`).toBe('invalid_params');
      }
    } finally {
      client.close();
    }
  });

  it('7: pane split answers with the shell as cmd, never "" (even right after the spawn)', async () => {
    const pane = await newPane(server);
    const cmds = new Set<string>();
    for (let i = 0; i < 8; i++) {
      const split = await server.json(['pane', 'split', pane, '--direction', i % 2 ? 'right' : 'down', '--no-focus']);
      cmds.add(split.result.pane.cmd);
    }
    expect([...cmds]).toEqual(['/bin/bash']);
  });

  it('7: --help describes the agent verbs the seed documents', async () => {
    const help = async (...args: string[]) => {
      const result = await server.cli([...args, '--help']);
      expect(result.code).toBe(0);
      return result.stdout.replace(/\s+/g, ' ');
    };
    const start = await help('agent', 'start');
    const kinds = ['pi', 'claude', 'codex', 'gemini', 'cursor', 'devin', 'agy', 'cline', 'omp', 'mastracode', 'opencode', 'copilot'];
    const more = ['kimi', 'kiro', 'droid', 'amp', 'grok', 'hermes', 'kilo', 'qodercli', 'qwen', 'letta', 'maki', 'muse'];
    for (const kind of [...kinds, ...more]) expect(start).toMatch(new RegExp(`\\b${kind}\\b`));
    const list = await help('agent', 'list');
    expect(list).toMatch(/--workspace .*only agents in this workspace/);
    expect(list).toMatch(/--tab .*only agents in this tab/);
    expect(await help('agent', 'rename')).toMatch(/\[a-z\]\[a-z0-9_-\]\{0,31\}/);
    expect(await help('agent', 'read')).toMatch(/--format .*ansi keeps/);
    const keys = await help('agent', 'send-keys');
    for (const key of ['enter', 'esc', 'escape', 'backspace', 'pageup', 'ctrl+<letter>', 'alt+<key>', 'f1…f12']) expect(keys).toContain(key);
    expect(await help('agent', 'wait')).toContain('No default timeout');
    expect(await help('agent', 'prompt')).toContain('No default timeout');
    expect(await help('pane', 'wait-output')).toContain('no timeout');
  });
});

describe('seed conformance (scripting off)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await new TestServer().start();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('7: the gate names the verb that was refused: key, pane send-keys', async () => {
    const pane = await newPane(server);
    const key = await server.cli(['key', pane, 'enter']);
    expect(key.code).toBe(1);
    const keyError = JSON.parse(key.stderr).error;
    expect(keyError.code).toBe('scripting_disabled');
    expect(keyError.message).toMatch(/^key /);
    const paneKeys = await server.cli(['pane', 'send-keys', pane, 'enter']);
    expect(JSON.parse(paneKeys.stderr).error.message).toMatch(/^pane send-keys /);
  });
});
