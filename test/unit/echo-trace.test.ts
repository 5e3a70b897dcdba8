/**
 * The echo trace (src/screen/echo-trace.ts): off unless CORRAL_ECHO_TRACE is set; per keystroke
 * the first time of each hop; written once to a new owner-only file that is never a symlink.
 */
import { lstatSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ECHO_TRACE, EchoTrace, HOP, HOP_NAMES } from '../../src/screen/echo-trace.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'corral-echo-trace-test-'));
  dirs.push(dir);
  return dir;
}

const rows = (tsv: string) => tsv.replace(/\n$/, '').split('\n').map((line) => line.split('\t'));

describe('EchoTrace', () => {
  it('is off (null) in a server started without CORRAL_ECHO_TRACE', () => {
    expect(process.env.CORRAL_ECHO_TRACE).toBeUndefined();
    expect(ECHO_TRACE).toBeNull();
  });

  it('keeps each hop’s first time per keystroke, ignores hops before any key, and stops at its capacity', () => {
    const trace = new EchoTrace(tempDir(), 2);
    trace.mark(HOP.ptyRead); // output before any keystroke belongs to none
    trace.mark(HOP.arrived);
    trace.mark(HOP.routed);
    const [, first] = rows(trace.toTsv());
    trace.mark(HOP.routed); // a second write to the pane in the same key: the first one counts
    trace.mark(HOP.arrived);
    trace.mark(HOP.input);
    trace.mark(HOP.arrived); // beyond capacity: dropped, and its hops with it
    trace.mark(HOP.sent);
    const [header, one, two, ...rest] = rows(trace.toTsv());
    expect(header).toEqual(HOP_NAMES);
    expect(rest).toEqual([]);
    expect(one![HOP.routed]).toBe(first![HOP.routed]);
    expect(Number(one![HOP.routed])).toBeGreaterThanOrEqual(Number(one![HOP.arrived]));
    expect(one![HOP.ptyRead]).toBe('');
    expect(one![HOP.input]).toBe(''); // hops a key did not pass stay empty
    expect(two![HOP.input]).not.toBe('');
    expect(two![HOP.sent]).toBe('');
  });

  it('writes a new owner-only file, and never through a file or symlink already there', () => {
    const dir = tempDir();
    const trace = new EchoTrace(dir);
    trace.mark(HOP.arrived);
    const path = trace.save();
    expect(path).toBe(join(dir, `echo-trace-${process.pid}.tsv`));
    expect(lstatSync(path).mode & 0o777).toBe(0o600);
    expect(rows(readFileSync(path, 'utf8'))).toHaveLength(2);
    expect(() => trace.save()).toThrow(/EEXIST/);

    const other = tempDir();
    const target = join(other, 'target');
    writeFileSync(target, 'untouched');
    symlinkSync(target, join(other, `echo-trace-${process.pid}.tsv`));
    expect(() => new EchoTrace(other).save()).toThrow();
    expect(readFileSync(target, 'utf8')).toBe('untouched');
  });
});
