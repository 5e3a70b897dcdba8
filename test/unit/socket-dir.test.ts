import { afterAll, describe, expect, it } from 'vitest';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertPrivateDir, ensurePrivateDir } from '../../src/socket-dir.js';

const root = mkdtempSync(join(tmpdir(), 'corral-socket-dir-'));
const uid = process.getuid!();
afterAll(() => rmSync(root, { recursive: true, force: true }));

function dir(name: string, mode: number): string {
  const path = join(root, name);
  mkdirSync(path);
  chmodSync(path, mode);
  return path;
}

describe('the private-directory check', () => {
  it('passes a 0700 directory of ours, and a missing one (nothing to trust yet)', () => {
    expect(() => assertPrivateDir(dir('ok', 0o700), uid)).not.toThrow();
    expect(() => assertPrivateDir(join(root, 'missing'), uid)).not.toThrow();
  });

  it.each([0o750, 0o705, 0o710, 0o1777])('refuses mode %o and says how to fix it', (mode) => {
    const path = dir(`mode-${mode.toString(8)}`, mode);
    expect(() => assertPrivateDir(path, uid)).toThrow(expect.objectContaining({ code: 'unsafe_socket_dir', data: { path } }));
    expect(() => assertPrivateDir(path, uid)).toThrow(`chmod 700 ${path}`);
    // Never fixed behind the user's back.
    expect(lstatSync(path).mode & 0o7777).toBe(mode);
  });

  it('refuses a directory owned by another uid', () => {
    expect(() => assertPrivateDir(dir('theirs', 0o700), uid + 1)).toThrow(`is owned by uid ${uid}, not by you (uid ${uid + 1})`);
  });

  it('refuses a symlink to a good directory, and a file', () => {
    const link = join(root, 'link');
    symlinkSync(dir('target', 0o700), link);
    expect(() => assertPrivateDir(link, uid)).toThrow('is a symbolic link');
    const file = join(root, 'file');
    writeFileSync(file, '');
    expect(() => assertPrivateDir(file, uid)).toThrow('is not a directory');
  });

  it('quotes a path with spaces or quotes as one shell word in the fix', () => {
    const path = dir("it's here", 0o755);
    expect(() => assertPrivateDir(path, uid)).toThrow(`chmod 700 '${path.replace(/'/g, `'\\''`)}'`);
  });

  it('ensurePrivateDir creates a missing directory (and parents) 0700, and refuses what it finds unsafe', () => {
    const path = join(root, 'a', 'b', 'corral');
    ensurePrivateDir(path, uid);
    expect(lstatSync(path).isDirectory()).toBe(true);
    expect(lstatSync(path).mode & 0o777).toBe(0o700);
    const open = dir('open', 0o777);
    expect(() => ensurePrivateDir(open, uid)).toThrow('mode 0777');
    expect(lstatSync(open).mode & 0o777).toBe(0o777);
  });
});
