import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { PaneHost, type PaneHostOptions } from '../../src/pty/pane-host.js';
import { readStat, isShellAtPrompt as shellAtPrompt } from '../../src/pty/foreground.js';
import { encodeKey } from '../../src/terminal/keys.js';
import type { ReadSource } from '../../src/contract/protocol.js';

const workDir = realpathSync(mkdtempSync(join(tmpdir(), 'corral-pane-host-')));
const hosts: PaneHost[] = [];

/** How long a marker may take to show up before the test fails (a safety net, not a sleep). */
const MARKER_TIMEOUT_MS = 20_000;
/** Poll interval for /proc state, which has no event to wait on. */
const PROC_POLL_MS = 20;

function startBash(cols = 80, rows = 24, extra: Partial<PaneHostOptions> = {}): PaneHost {
  const env: Record<string, string | undefined> = { ...process.env, PS1: '$ ', HISTFILE: '/dev/null' };
  delete env.PROMPT_COMMAND;
  const host = new PaneHost({
    shell: '/bin/bash',
    shellArgs: ['--norc', '--noprofile'],
    cwd: workDir,
    env,
    cols,
    rows,
    scrollback: 1000,
    ...extra,
  });
  hosts.push(host);
  return host;
}

/** Resolve with the first regex match in the chosen read, checking now and after each output batch. */
function waitForText(host: PaneHost, pattern: RegExp, source: ReadSource = 'recent', lines = 200): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const check = (): boolean => {
      const m = host.terminal.read({ source, lines }).text.match(pattern);
      if (!m) return false;
      cleanup();
      resolve(m);
      return true;
    };
    const sub = host.onOutput(() => check());
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`timed out waiting for ${pattern}; screen:\n${host.terminal.read({ source: 'recent' }).text}`));
    }, MARKER_TIMEOUT_MS);
    const cleanup = (): void => {
      sub.dispose();
      clearTimeout(timer);
    };
    check();
  });
}

/** Poll a /proc-backed condition until it holds. */
async function waitFor(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + MARKER_TIMEOUT_MS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, PROC_POLL_MS));
  }
}

/** A zombie has ended; only its parent's reaping (not ours to control) removes it. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return readStat(pid)?.state !== 'Z';
}

async function atPrompt(host: PaneHost): Promise<void> {
  // Reads trim trailing blanks, so the prompt "$ " on the last row reads as a final "$".
  await waitForText(host, /(?:^|\n)\$$/, 'visible');
}

afterEach(async () => {
  for (const h of hosts.splice(0)) {
    await h.kill();
    h.dispose();
  }
});

afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
});

describe('PaneHost with a real bash', () => {
  it('runs a command and reads its output', async () => {
    const host = startBash();
    await atPrompt(host);
    const before = host.outputGeneration;
    await host.write('echo hello\r');
    await waitForText(host, /^hello$/m);
    expect(host.outputGeneration).toBeGreaterThan(before);
    expect(host.lastOutputAt).not.toBeNull();
    const recent = host.terminal.read({ source: 'recent' });
    expect(recent.text).toContain('$ echo hello\nhello');
    expect(recent.truncated).toBe(false);
    expect(host.terminal.read({ source: 'detection' }).text.split('\n')[0]).toBe('$ echo hello');
  });

  /** Run `seq 1 200000` and check every line arrived once and in order. */
  async function flood(host: PaneHost, during?: () => Promise<void>): Promise<{ everPaused: boolean }> {
    await atPrompt(host);
    let everPaused = false;
    const chunks: string[] = [];
    const decoder = new TextDecoder();
    host.process.onData((d) => {
      chunks.push(typeof d === 'string' ? d : decoder.decode(d, { stream: true }));
      everPaused ||= host.paused;
    });
    await host.write('seq 1 200000; echo FLOOD-$((1+1))\r');
    await during?.();
    await waitForText(host, /^FLOOD-2$/m, 'visible');
    expect(host.terminal.read({ source: 'visible' }).text.split('\n')).toContain('200000');
    const numbers = chunks
      .join('')
      // readline turns bracketed paste off (CSI ? 2004 l, CR) just before the command's output.
      .replace(/\x1b\[[?0-9;]*[a-zA-Z]/g, '')
      .split(/\r\n|\r/)
      .filter((l) => /^\d+$/.test(l))
      .map(Number);
    expect(numbers).toHaveLength(200000);
    expect(numbers.every((n, i) => n === i + 1)).toBe(true);
    const tail = host.terminal
      .read({ source: 'recent', lines: 500 })
      .text.split('\n')
      .filter((l) => /^\d+$/.test(l))
      .map(Number);
    expect(tail.length).toBeGreaterThan(400);
    expect(tail.every((n, i) => i === 0 || n === tail[i - 1]! + 1)).toBe(true);
    expect(host.paused).toBe(false);
    // Still responsive after the flood: reading resumed.
    await host.write('echo after-$((2+3))\r');
    await waitForText(host, /^after-5$/m, 'visible');
    return { everPaused };
  }

  it('delivers a fast flood completely and in order', async () => {
    await flood(startBash());
  });

  it('delivers a flood completely while keys typed into another pane hold it for their echoes', async () => {
    const typing = startBash();
    await atPrompt(typing);
    const flooding = startBash();
    await flood(flooding, async () => {
      // Each key makes the flooding pane stop reading until this pane's echo (ReadTurn):
      // the flood must still arrive whole, in order, and end.
      for (let i = 0; i < 30; i++) {
        const seen = waitForText(typing, new RegExp(`\\$ ${'k'.repeat(i + 1)}$`, 'm'), 'visible');
        await typing.write('k');
        await seen;
      }
    });
  });

  it('parses each batch as it arrives, so a flood never pauses reading', async () => {
    const host = startBash();
    const { everPaused } = await flood(host);
    expect(everPaused).toBe(false);
  });

  it('pauses the pty while xterm holds queued output and resumes once it is parsed', async () => {
    const host = startBash();
    await atPrompt(host);
    // An async parser handler suspends xterm mid-write (as addons may): the flood's later
    // batches queue behind it, and reading must pause until xterm has caught up.
    let release!: () => void;
    const released = new Promise<boolean>((resolve) => (release = () => resolve(true)));
    let suspended!: () => void;
    const reached = new Promise<void>((resolve) => (suspended = resolve));
    const suspend = (): Promise<boolean> => {
      suspended();
      return released;
    };
    // The headless typings omit it, but xterm's parser takes async handlers (as @xterm/xterm's declare).
    host.terminal.xterm.parser.registerOscHandler(7777, suspend as unknown as (data: string) => boolean);
    await host.write("printf '\\033]7777;x\\007'; seq 1 50000; echo QUEUED-$((1+1))\r");
    await reached;
    await waitFor(() => host.paused, 'reading paused behind the suspended parser');
    release();
    await waitForText(host, /^QUEUED-2$/m, 'visible');
    expect(host.paused).toBe(false);
    expect(host.terminal.read({ source: 'visible' }).text.split('\n')).toContain('50000');
  });

  it('keeps a pane alive after output xterm throws on', async () => {
    const host = startBash();
    await atPrompt(host);
    // CSI 1 J in the bottom-right corner of a screen that has not scrolled yet throws inside
    // xterm 6.0; unguarded, the pane's output stopped for good.
    await host.write("printf '\\033[24;80H\\033[1J'; sleep 0.1; echo; echo SURV$((1+1))\r");
    await waitForText(host, /^SURV2$/m, 'visible');
    expect(host.terminal.parseErrors).toBe(1);
    expect(host.paused).toBe(false);
  });

  it('delivers every byte of a process that floods and exits at once, before the exit event', async () => {
    // Repeated: the lost-tail race (libuv#4992) showed up in about half of single runs.
    for (let run = 0; run < 4; run++) {
      const host = startBash(80, 24, { shellArgs: ['-c', 'seq 1 300000; exit 4'] });
      let all = '';
      const decoder = new TextDecoder();
      host.process.onData((d) => (all += typeof d === 'string' ? d : decoder.decode(d, { stream: true })));
      const info = await host.waitForExit();
      expect(info.exitCode).toBe(4);
      const lines = all.split('\r\n').filter(Boolean);
      expect(lines).toHaveLength(300000);
      expect(lines.at(-1)).toBe('300000');
      expect(host.terminal.read({ source: 'visible' }).text.split('\n').at(-1)).toBe('300000');
    }
  });

  it('kill() ends the whole session, background jobs included', async () => {
    const host = startBash();
    await atPrompt(host);
    await host.write('sleep 1000 & echo BG-PID=$!\r');
    const m = await waitForText(host, /BG-PID=(\d+)/);
    const bgPid = Number(m[1]);
    expect(isAlive(bgPid)).toBe(true);
    const shellPid = host.pid;
    await host.kill();
    expect(host.process.exited).toBe(true);
    expect(isAlive(bgPid)).toBe(false);
    expect(isAlive(shellPid)).toBe(false);
  });

  it('kill() also ends a foreground job that ignores SIGTERM and SIGHUP', async () => {
    const host = startBash();
    await atPrompt(host);
    await host.write("trap '' TERM HUP; echo TRAPPED-$((6*7)); sleep 1000\r");
    await waitForText(host, /^TRAPPED-42$/m);
    await waitFor(() => host.foreground(0)?.argv[0] === 'sleep', 'sleep in the foreground');
    const sleepPid = host.foreground(0)!.pid;
    const started = Date.now();
    await host.kill();
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(isAlive(sleepPid)).toBe(false);
    expect(host.process.exited).toBe(true);
  });

  it('starts the program with exactly its environment, through the fd-closing step', async () => {
    // What bash would rewrite or drop had the closing step imported them.
    const odd = { IFS: ':', OPTIND: '5', PS4: '+x ', PS2: '>> ', 'NOT-A-NAME': '1', 'BASH_FUNC_f%%': '() { echo hi; }' };
    const host = startBash(80, 24, { env: { ...process.env, PS1: '$ ', HISTFILE: '/dev/null', PROMPT_COMMAND: undefined, ...odd } });
    await atPrompt(host);
    const environ = readFileSync(`/proc/${host.pid}/environ`, 'utf8').split('\0').filter(Boolean);
    const expected = Object.entries({ ...process.env, PS1: '$ ', HISTFILE: '/dev/null', ...odd, PWD: workDir, TERM: 'xterm-256color' })
      .filter(([key, value]) => key !== 'PROMPT_COMMAND' && value !== undefined)
      .map(([key, value]) => `${key}=${value}`);
    expect(environ.sort()).toEqual(expected.sort());
    expect(readFileSync(`/proc/${host.pid}/cmdline`, 'utf8').split('\0')[0]).toBe('/bin/bash');
  });

  it('reports a signal death as the signal, not as exit code 0', async () => {
    const host = startBash();
    await atPrompt(host);
    await host.write('kill -KILL $$\r');
    const info = await host.waitForExit();
    expect(info).toEqual({ exitCode: null, signal: 'SIGKILL' });
  });

  it('reports the exit code after all output was parsed', async () => {
    const host = startBash();
    await atPrompt(host);
    const events: Array<number | null> = [];
    host.onExit((info) => events.push(info.exitCode));
    await host.write('echo bye-$((4+4)); exit 3\r');
    const info = await host.waitForExit();
    expect(info.exitCode).toBe(3);
    expect(events).toEqual([3]);
    expect(host.exited).toBe(true);
    expect(host.terminal.read({ source: 'recent' }).text).toMatch(/^bye-8$/m);
    // Calls after exit are harmless.
    host.resize(100, 30);
    await host.write('ignored');
    await host.kill();
    expect(host.foreground()).toBeNull();
  });

  it('tracks the foreground process and whether the shell is at its prompt', async () => {
    const host = startBash();
    await atPrompt(host);
    await waitFor(() => host.isShellAtPrompt(0), 'shell at prompt');
    expect(shellAtPrompt(host.pid)).toBe(true);
    const fg = host.foreground(0)!;
    expect(fg.isShell).toBe(true);
    expect(fg.pid).toBe(host.pid);
    expect(fg.argv[0]).toMatch(/bash$/);
    expect(host.cwd()).toBe(workDir);

    await host.write('sleep 5\r');
    // Polling can catch sleep inside execve, named but without its arguments (`execing`).
    await waitFor(() => {
      const fg = host.foreground(0);
      return fg?.argv[0] === 'sleep' && fg.execing === undefined;
    }, 'sleep in the foreground');
    expect(host.commandLine()).toBe('sleep 5');
    expect(host.foreground()!.isShell).toBe(false);
    expect(host.isShellAtPrompt()).toBe(false);
    expect(shellAtPrompt(host.pid)).toBe(false);
    expect(host.cwd()).toBe(workDir);

    await host.write(encodeKey('ctrl+c'));
    await waitFor(() => host.isShellAtPrompt(0), 'shell back at its prompt');
    expect(host.commandLine(0)).toMatch(/bash/);
  });

  it('resizes the pty and the terminal together', async () => {
    const host = startBash(80, 24);
    await atPrompt(host);
    host.resize(100, 30);
    expect(host.terminal.cols).toBe(100);
    expect(host.terminal.rows).toBe(30);
    await host.write('stty size\r');
    await waitForText(host, /^30 100$/m);
  });

  it('keeps every keystroke, in order, when the pty stops taking input (writes past EAGAIN go to the queue)', async () => {
    const host = startBash();
    await atPrompt(host);
    // The program reads nothing for a while: the pty's input buffer fills, keystroke-sized writes
    // made in one go meet a short write or EAGAIN, and what the kernel did not take must follow
    // in order, ahead of every later write.
    await host.write('stty raw -echo; echo READY-$((6*7)); sleep 0.3; head -c 200000 > keys.txt; stty sane; echo DONE-$((6*7))\r');
    await waitForText(host, /^READY-42/m);
    const pieces = Array.from({ length: 2000 }, (_, i) => `${String(i).padStart(5, '0')}:${'k'.repeat(94)}`);
    for (const piece of pieces) void host.write(piece);
    // Raw mode until `stty sane`: the newline before DONE came without a carriage return.
    await waitForText(host, /DONE-42$/m);
    expect(readFileSync(join(workDir, 'keys.txt'), 'utf8')).toBe(pieces.join(''));
  });

  it('writes a large paste in pieces without losing any of it', async () => {
    const host = startBash();
    await atPrompt(host);
    await host.write('cat > paste.txt\r');
    const line = 'x'.repeat(99);
    const paste = Array.from({ length: 200 }, () => line).join('\r') + '\r';
    await host.write(paste);
    await host.write(encodeKey('ctrl+d'));
    await atPrompt(host);
    await host.write('wc -c < paste.txt\r');
    await waitForText(host, /^20000$/m);
  });

  it('types keys now (typeKeys) with the echo seen first by its hook, and never ahead of queued input', async () => {
    const host = startBash();
    await atPrompt(host);
    const firstOutputs: string[] = [];
    const hook = (data: string | Uint8Array) => firstOutputs.push(Buffer.from(data).toString('utf8'));
    expect(host.typeKeys(Buffer.from('echo TY'), hook)).toBe(true);
    await waitForText(host, /echo TY/);
    // The hook saw the shell's first output after the keys (their echo), before the terminal did.
    expect(firstOutputs.join('')).toMatch(/^e/);
    expect(host.typeKeys(Buffer.from('PED-$((6*7))\r'), hook)).toBe(true);
    await waitForText(host, /^TYPED-42$/m);
    expect(firstOutputs).toHaveLength(2);

    // The program reads nothing for a second, then everything: a paste larger than the pty's
    // buffers waits in the pane's queue meanwhile, and keys typed then must go behind it.
    // (Lines, as the tty's line editing holds at most 4095 characters of one line.)
    host.write('stty -echo; echo GO-$((6*7)); sleep 1; cat > order.txt; stty echo\r');
    await waitForText(host, /^GO-42$/m);
    const lines = Array.from({ length: 2000 }, (_, i) => `${i}`.padEnd(99, 'p'));
    expect(host.write(lines.join('\r') + '\r')).toBe(true);
    expect(host.input.queuedBytes).toBeGreaterThan(0);
    expect(host.typeKeys(Buffer.from('Z'), hook)).toBe(false);
    host.write('Z');
    host.write('\r');
    host.write(encodeKey('ctrl+d'));
    await host.input.whenIdle();
    await atPrompt(host);
    expect(readFileSync(join(workDir, 'order.txt'), 'utf8')).toBe(`${lines.join('\n')}\nZ\n`);
  });
});
