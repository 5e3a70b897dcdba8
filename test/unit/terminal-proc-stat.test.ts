import { describe, expect, it } from 'vitest';
import { foregroundProcess, parseStat, processArgv, processCwd, readStat } from '../../src/pty/foreground.js';

// Lives next to the terminal tests: /proc parsing feeds the pane's foreground/cwd readout.
describe('parseStat', () => {
  it('parses the fields after the last parenthesis', () => {
    const text = '4242 (weird) name (x)) S 100 4242 4242 34816 5000 4194560 0 0 0 0 0 0 0 0 20 0 1 0';
    expect(parseStat(text)).toEqual({
      pid: 4242,
      comm: 'weird) name (x)',
      state: 'S',
      ppid: 100,
      pgrp: 4242,
      session: 4242,
      ttyNr: 34816,
      tpgid: 5000,
    });
  });

  it('rejects malformed text', () => {
    expect(parseStat('garbage')).toBeNull();
    expect(parseStat('12 (x) S')).toBeNull();
  });
});

describe('/proc readers', () => {
  it('read this process', () => {
    const me = readStat(process.pid);
    expect(me?.pid).toBe(process.pid);
    expect(processArgv(process.pid)?.[0]).toMatch(/node/);
    expect(processCwd(process.pid)).toBe(process.cwd());
  });

  it('return null for a process that does not exist', () => {
    const gone = 2 ** 22 + 1; // above the kernel's pid_max limit, never a live pid
    expect(readStat(gone)).toBeNull();
    expect(processArgv(gone)).toBeNull();
    expect(processCwd(gone)).toBeNull();
    expect(foregroundProcess(gone)).toBeNull();
  });
});
