/**
 * Foreground and agent detection (src/pty/foreground.ts, src/agents/process-detect.ts) over a
 * made-up /proc: the cases that are hard to stage with real processes — a pipeline whose
 * leader already exited, a kernel without children files, a zombie, a wrapper whose agent
 * has not started or already left. agent-process-live.test.ts covers the real /proc.
 */
import { describe, expect, it } from 'vitest';
import { foregroundProcess, isShellAtPrompt, processArgv, type ProcessTable } from '../../src/pty/foreground.js';
import { detectForeground } from '../../src/agents/process-detect.js';
import { FakeClock, FakeProcessTable, fakePaneHost } from './support/fakes.js';

const SHELL = 100;

describe('foregroundProcess over a process table', () => {
  it('is the shell itself at its prompt, and the job leader otherwise', () => {
    const table = new FakeProcessTable();
    table.session(SHELL, null);
    expect(foregroundProcess(SHELL, table)).toMatchObject({ pid: SHELL, isShell: true, cwd: '/home/user' });
    expect(isShellAtPrompt(SHELL, table)).toBe(true);
    table.session(SHELL, { pid: 200, argv: ['vim', 'notes.md'] });
    expect(foregroundProcess(SHELL, table)).toMatchObject({ pid: 200, pgid: 200, argv: ['vim', 'notes.md'], isShell: false, cwd: '/home/user/project' });
    expect(isShellAtPrompt(SHELL, table)).toBe(false);
  });

  it('finds the oldest live member when the group leader already exited (a pipeline)', () => {
    const table = new FakeProcessTable();
    table.session(SHELL, { pid: 200, argv: ['cat', 'big.log'] });
    table.set({ pid: 202, ppid: SHELL, pgrp: 200, session: SHELL, tpgid: 200, argv: ['less'] });
    table.set({ pid: 201, ppid: SHELL, pgrp: 200, session: SHELL, tpgid: 200, argv: ['grep', 'x'], state: 'Z' });
    table.remove(200);
    expect(foregroundProcess(SHELL, table)).toMatchObject({ pid: 202, argv: ['less'] });
  });

  it('is null when the shell is gone or has no terminal', () => {
    const table = new FakeProcessTable();
    expect(foregroundProcess(SHELL, table)).toBeNull();
    table.set({ pid: SHELL, ppid: 1, pgrp: SHELL, session: SHELL, tpgid: -1, argv: ['bash'] });
    expect(foregroundProcess(SHELL, table)).toBeNull();
  });

  it('names a process with an empty command line (a kernel thread) by its comm', () => {
    const table = new FakeProcessTable();
    table.set({ pid: 300, ppid: 2, pgrp: 0, session: 0, tpgid: -1, argv: [], comm: 'kworker/0:1' });
    expect(processArgv(300, table)).toEqual(['kworker/0:1']);
    expect(processArgv(301, table)).toBeNull();
  });

  it('names a job caught inside execve by its new comm and says it is mid-exec; a zombie is not', () => {
    const table = new FakeProcessTable();
    table.session(SHELL, { pid: 200, argv: [] });
    table.processes.get(200)!.comm = 'sleep';
    expect(foregroundProcess(SHELL, table)).toMatchObject({ pid: 200, argv: ['sleep'], execing: true });
    table.processes.get(200)!.state = 'Z';
    expect(foregroundProcess(SHELL, table)).not.toHaveProperty('execing');
    table.session(SHELL, { pid: 200, argv: ['sleep', '5'] });
    expect(foregroundProcess(SHELL, table)).not.toHaveProperty('execing');
  });

  it('a pane does not remember a job read mid-exec: the next reading has its arguments', () => {
    const table = new FakeProcessTable();
    const clock = new FakeClock();
    const { host, child } = fakePaneHost(SHELL, { processes: table, clock });
    try {
      child.output('$ ');
      table.session(SHELL, { pid: 200, argv: [] });
      table.processes.get(200)!.comm = 'sleep';
      expect(host.commandLine(0)).toBe('sleep');
      table.session(SHELL, { pid: 200, argv: ['sleep', '5'] });
      // Same instant, default cache age: a cached mid-exec reading would still say 'sleep'.
      expect(host.commandLine()).toBe('sleep 5');
      table.session(SHELL, { pid: 201, argv: ['vim'] });
      expect(host.commandLine()).toBe('sleep 5');
    } finally {
      host.dispose();
    }
  });
});

describe('detectForeground over a process table', () => {
  it('is null at the prompt and for a program that is no agent', () => {
    const table = new FakeProcessTable();
    table.session(SHELL, null);
    expect(detectForeground(SHELL, table)).toBeNull();
    table.session(SHELL, { pid: 200, argv: ['htop'] });
    expect(detectForeground(SHELL, table)).toBeNull();
  });

  it('waits out an agent caught inside execve until its whole command line is there', () => {
    const table = new FakeProcessTable();
    table.session(SHELL, { pid: 200, argv: [] });
    table.processes.get(200)!.comm = 'codex';
    table.processes.get(200)!.exe = '/opt/codex/vendor/x86_64-unknown-linux-musl/bin/codex';
    expect(detectForeground(SHELL, table)).toBeNull();
    table.processes.get(200)!.argv = ['codex', '--model', 'o3'];
    expect(detectForeground(SHELL, table)).toMatchObject({ kind: 'codex', pid: 200, argv: ['codex', '--model', 'o3'] });
  });

  it('recognises a native binary by its exe when argv[0] says nothing', () => {
    const table = new FakeProcessTable();
    table.session(SHELL, { pid: 200, argv: ['./run'] });
    table.processes.get(200)!.exe = '/home/user/.local/share/claude/versions/2.1/claude';
    expect(detectForeground(SHELL, table)).toMatchObject({ kind: 'claude', pid: 200 });
  });

  it('a recognised leader wins; below a wrapper (sh -c) the agent child is found', () => {
    const table = new FakeProcessTable();
    table.session(SHELL, { pid: 200, argv: ['node', '/usr/lib/node_modules/@openai/codex/bin/codex.js'] });
    table.set({ pid: 201, ppid: 200, pgrp: 200, session: SHELL, tpgid: 200, argv: ['/opt/codex/vendor/x86_64-unknown-linux-musl/bin/codex'] });
    expect(detectForeground(SHELL, table)).toMatchObject({ kind: 'codex', pid: 200 });
    table.session(SHELL, { pid: 300, argv: ['bash', '-c', 'gemini'] });
    table.set({ pid: 301, ppid: 300, pgrp: 300, session: SHELL, tpgid: 300, argv: ['node', '/usr/lib/node_modules/@google/gemini-cli/dist/index.js'] });
    expect(detectForeground(SHELL, table)).toMatchObject({ kind: 'gemini', pid: 301 });
  });

  it('scans the session instead when the kernel keeps no children files', () => {
    const table = new FakeProcessTable();
    table.session(SHELL, { pid: 300, argv: ['sh', '-c', 'claude'] });
    table.set({ pid: 301, ppid: 300, pgrp: 300, session: SHELL, tpgid: 300, argv: ['claude'] });
    const noChildrenFiles: ProcessTable = {
      stat: (pid) => table.stat(pid),
      cmdline: (pid) => table.cmdline(pid),
      cwd: (pid) => table.cwd(pid),
      exe: (pid) => table.exe(pid),
      children: () => null,
      pids: () => table.pids(),
      realpath: (pid, file) => table.realpath(pid, file),
    };
    expect(detectForeground(SHELL, noChildrenFiles)).toMatchObject({ kind: 'claude', pid: 301 });
  });

  it('trusts neither a launcher script whose agent left nor one that has not started it yet', () => {
    const table = new FakeProcessTable();
    table.session(SHELL, { pid: 300, argv: ['sh', '-c', 'claude; echo done'] });
    expect(detectForeground(SHELL, table)).toBeNull();
  });

  it('trusts a package runner still fetching its package', () => {
    const table = new FakeProcessTable();
    table.session(SHELL, { pid: 300, argv: ['npx', '@anthropic-ai/claude-code'] });
    expect(detectForeground(SHELL, table)).toMatchObject({ kind: 'claude', pid: 300 });
  });
});
