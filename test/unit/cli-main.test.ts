import path from 'node:path';
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkDashArguments, main } from '../../src/cli/main.js';

/** Runs the CLI in-process and returns what it wrote and the exit code it set. */
async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  process.exitCode = undefined;
  try {
    await main(args);
    return { code: Number(process.exitCode ?? 0), stdout, stderr };
  } finally {
    vi.restoreAllMocks();
    process.exitCode = undefined;
  }
}

const noServer = ['--socket', path.join(tmpdir(), `corral-none-${process.pid}.sock`)];

afterEach(() => {
  vi.restoreAllMocks();
});

describe('usage errors exit 2 and run nothing', () => {
  it('an unknown verb does not fall through to the TUI', async () => {
    const r = await run(['bogus']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Unknown argument: bogus');
  });

  it('an unknown option does not reach the server', async () => {
    const r = await run(['ps', '--bogus', ...noServer]);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain('server_not_running');
  });

  it('names the verb in the help hint', async () => {
    const r = await run(['pane', 'split', '--direction', 'up', 'w1:p1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Run 'corral pane split --help'");
  });

  it('a group without a subcommand is a usage error', async () => {
    expect((await run(['pane'])).code).toBe(2);
    expect((await run(['wait'])).code).toBe(2);
  });

  it('--current outside a pane is a usage error, found before connecting', async () => {
    const saved = process.env.CORRAL_PANE_ID;
    delete process.env.CORRAL_PANE_ID;
    try {
      const r = await run(['pane', 'read', '--current', ...noServer]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('CORRAL_PANE_ID');
    } finally {
      if (saved !== undefined) process.env.CORRAL_PANE_ID = saved;
    }
  });
});

describe('no server', () => {
  it('is exit 1 with server_not_running on stderr', async () => {
    const r = await run(['ps', '--json', ...noServer]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: 'server_not_running' } });
  });
});

describe('text that starts with -', () => {
  it('is refused before --, where yargs would take it apart', async () => {
    const r = await run(['send', '1', '- fix the tests', ...noServer]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('put it after --');
  });

  it('is accepted after --', async () => {
    const r = await run(['send', '1', ...noServer, '--', '- fix the tests']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('server_not_running');
  });

  it('options, attached values and negative numbers pass the check', () => {
    expect(() => checkDashArguments(['read', '1', '--lines', '-5', '--raw', '-h'])).not.toThrow();
    expect(() => checkDashArguments(['wait', '--pattern=- done', '--match', 'x'])).not.toThrow();
    expect(() => checkDashArguments(['send', '1', '--', '- x'])).not.toThrow();
    expect(() => checkDashArguments(['wait', '--pattern', '- done'])).toThrow(/--pattern=/);
  });
});
