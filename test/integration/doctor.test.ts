/**
 * `corral doctor` (SPEC §17) on this checkout, as a user runs it: each thing missing is named
 * with what it costs and how to get it, and the exit code is 0 only when all is well.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from './harness.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh HOME and runtime dir; `path` holds only what the test links into its bin/. */
function sandbox(tools: string[]): { env: NodeJS.ProcessEnv; home: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'corral-doctor-'));
  dirs.push(dir);
  const bin = path.join(dir, 'bin');
  mkdirSync(bin);
  for (const tool of tools) {
    const found = (process.env.PATH ?? '').split(':').map((d) => path.join(d, tool)).find((p) => {
      try {
        return statSync(p).isFile();
      } catch {
        return false;
      }
    });
    if (found) symlinkSync(found, path.join(bin, tool));
  }
  const home = path.join(dir, 'home');
  mkdirSync(path.join(home, '.config', 'corral'), { recursive: true });
  return { home, env: { PATH: bin, HOME: home, XDG_RUNTIME_DIR: path.join(dir, 'run'), LANG: 'C.UTF-8' } };
}

interface Report {
  ok: boolean;
  checks: { name: string; ok: boolean; detail: string; fix?: string }[];
}

describe('corral doctor', () => {
  it('all is well where git and ssh are on PATH and the config is sound: exit 0', async () => {
    const { env } = sandbox(['git', 'ssh']);
    const result = await runCli(['doctor', '--json'], env);
    const report = JSON.parse(result.stdout) as Report;
    expect(report.checks.filter((check) => !check.ok)).toEqual([]);
    expect(result.code).toBe(0);
    expect(report.checks.map((check) => check.name)).toEqual(expect.arrayContaining(['node', 'node-pty', 're2', 'addon', 'git', 'ssh', 'socket dir', 'config']));
  });

  it('a machine without git: git is named with what needs it and how to get it, exit 1', async () => {
    const { env } = sandbox(['ssh']);
    const result = await runCli(['doctor'], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^FAIL\s+git\s+not found on PATH$/m);
    expect(result.stdout).toMatch(/→ worktrees .* need git: install it/);
    expect(result.stdout).toMatch(/^ok\s+ssh\s+OpenSSH/m);
    expect(result.stdout).toMatch(/1 problem found\.$/m);
  });

  it('a broken config file: named with its line and key, exit 1', async () => {
    const { env, home } = sandbox(['git', 'ssh']);
    writeFileSync(path.join(home, '.config', 'corral', 'config.toml'), '# mine\nscrollback_lines = 1000\n[ui]\nsidebar_width = "wide"\n');
    const result = await runCli(['doctor', '--json'], env);
    expect(result.code).toBe(1);
    const config = (JSON.parse(result.stdout) as Report).checks.find((check) => check.name === 'config')!;
    expect(config.ok).toBe(false);
    expect(config.detail).toMatch(/config\.toml:4: .*ui\.sidebar_width/);
  });

  it('a socket directory others can use is named with the fix', async () => {
    const { env } = sandbox(['git', 'ssh']);
    mkdirSync(path.join(env.XDG_RUNTIME_DIR!, 'corral'), { recursive: true, mode: 0o777 });
    chmodSync(path.join(env.XDG_RUNTIME_DIR!, 'corral'), 0o777);
    const result = await runCli(['doctor'], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^FAIL\s+socket dir\s+refusing the socket directory .*mode 0777.*chmod 700/m);
  });
});
