/**
 * detectForeground against real processes in a real pty: a bash whose foreground job is a
 * stand-in laid out like the npm installs (the real agents' argv shapes are fixtures in
 * agent-process.test.ts; this checks the /proc walking, not the alias table).
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pty from 'node-pty';
import { detectForeground } from '../../src/agents/process-detect.js';

/** How long to wait for a typed command to become the foreground job. */
const WAIT = { timeoutMs: 10_000, pollMs: 25 } as const;

let dir: string;
let term: pty.IPty;

async function until<T>(probe: () => T | null | undefined, what: string): Promise<T> {
  const deadline = Date.now() + WAIT.timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== null && value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, WAIT.pollMs));
  }
}

/** Writes an executable node script. */
function script(file: string, body: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `#!/usr/bin/env node\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'corral-detect-'));
  const nm = path.join(dir, 'node_modules');
  // codex's npm layout: bin/codex.js spawns the per-platform binary as a child.
  const native = script(
    path.join(nm, '@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex'),
    'setInterval(() => {}, 1000);',
  );
  script(
    path.join(nm, '@openai/codex/bin/codex.js'),
    `const c = require('node:child_process').spawn(${JSON.stringify(native)}, [], { stdio: 'inherit' });
     c.on('exit', (code) => process.exit(code ?? 1));`,
  );
  // gemini's layout: a .bin link to the bundle.
  const bundle = script(path.join(nm, '@google/gemini-cli/bundle/gemini.js'), 'setInterval(() => {}, 1000);');
  mkdirSync(path.join(nm, '.bin'), { recursive: true });
  symlinkSync(bundle, path.join(nm, '.bin/gemini-cli-link'));
  term = pty.spawn('/bin/bash', ['--norc', '--noprofile'], {
    name: 'xterm-256color',
    cols: 100,
    rows: 30,
    cwd: dir,
    env: { ...process.env, PS1: '$ ' },
  });
});

afterAll(() => {
  term?.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Interrupts the foreground job and waits for the prompt. */
async function interrupt(): Promise<void> {
  term.write('\x03');
  await until(() => (detectForeground(term.pid) === null ? true : null), 'the shell prompt');
}

describe('detectForeground', () => {
  it('is null while the shell sits at its prompt', () => {
    expect(detectForeground(term.pid)).toBeNull();
  });

  it('recognises a node wrapper leading the group (codex on Node 20)', async () => {
    term.write('node node_modules/@openai/codex/bin/codex.js\r');
    const found = await until(() => detectForeground(term.pid), 'codex');
    expect(found.kind).toBe('codex');
    expect(found.argv).toEqual(['node', 'node_modules/@openai/codex/bin/codex.js']);
    await interrupt();
  });

  it('resolves a script through its symlink', async () => {
    term.write('node node_modules/.bin/gemini-cli-link\r');
    const found = await until(() => detectForeground(term.pid), 'gemini');
    expect(found).toMatchObject({ kind: 'gemini', how: 'node script realpath in package @google/gemini-cli' });
    await interrupt();
  });

  it('finds the agent below a sh -c leader, and forgets it once only the script runs on', async () => {
    term.write(`sh -c 'node node_modules/@openai/codex/bin/codex.js; echo agent-exited; sleep 30'\r`);
    const found = await until(() => {
      const f = detectForeground(term.pid);
      return f && f.argv[0] === 'node' ? f : null;
    }, 'the agent under sh -c');
    expect(found.kind).toBe('codex');
    expect(found.how).toMatch(/child of \d+/);
    // End the agent only: the shell script moves on to `sleep`, which is no agent.
    process.kill(found.pid, 'SIGTERM');
    await until(() => (detectForeground(term.pid) === null ? true : null), 'the agent to be gone');
    await interrupt();
  });
});
