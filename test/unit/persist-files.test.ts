/** The saved session's files (src/persist/state-files.ts): where, how written, how forgotten. */
import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensurePrivateStateDir, forgetSavedSession, readPrivateFile, resolveStateDir, stateSessionName, writeFileAtomic } from '../../src/persist/state-files.js';

describe('where the session is saved', () => {
  it('$XDG_STATE_HOME/corral when absolute, else ~/.local/state/corral', () => {
    expect(resolveStateDir({ XDG_STATE_HOME: '/s', HOME: '/h' })).toBe('/s/corral');
    expect(resolveStateDir({ XDG_STATE_HOME: 'rel', HOME: '/h' })).toBe('/h/.local/state/corral');
    expect(resolveStateDir({ HOME: '/h' })).toBe('/h/.local/state/corral');
  });
  it('under the session name, or a --socket file name', () => {
    expect(stateSessionName({}, {})).toBe('default');
    expect(stateSessionName({ session: 'work' }, {})).toBe('work');
    expect(stateSessionName({}, { CORRAL_SESSION: 'env' })).toBe('env');
    expect(stateSessionName({ socket: '/tmp/x/dev.sock' }, {})).toBe('dev');
    expect(stateSessionName({}, { CORRAL_SOCKET: '/tmp/x/a b.sock' })).toBe('a_b');
  });
});

describe('writing and reading', () => {
  it('writes atomically, owner-only, replacing a planted link instead of writing through it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'corral-persist-'));
    const state = join(dir, 'state');
    ensurePrivateStateDir(state);
    expect(statSync(state).mode & 0o777).toBe(0o700);
    const target = join(dir, 'victim');
    writeFileSync(target, 'keep');
    symlinkSync(target, join(state, 'default.json'));
    await expect(readPrivateFile(join(state, 'default.json'))).rejects.toThrow(/symbolic link/);
    expect(await writeFileAtomic(join(state, 'default.json'), '{"version":1}')).toBe(13);
    expect(readFileSync(target, 'utf8')).toBe('keep');
    expect(statSync(join(state, 'default.json')).mode & 0o777).toBe(0o600);
    expect(readdirSync(state)).toEqual(['default.json']);
    expect((await readPrivateFile(join(state, 'default.json')))!.toString()).toBe('{"version":1}');
  });
  it('refuses a state directory others can use', () => {
    const dir = mkdtempSync(join(tmpdir(), 'corral-persist-'));
    chmodSync(dir, 0o755);
    expect(() => ensurePrivateStateDir(dir)).toThrow(/group or others/);
  });
  it('forgets a session without a server: state and scrollback gone, other sessions kept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'corral-persist-'));
    const state = join(dir, 'corral');
    mkdirSync(join(state, 'default.scrollback'), { recursive: true });
    writeFileSync(join(state, 'default.json'), '{}');
    writeFileSync(join(state, 'default.scrollback', '1.z'), 'x');
    writeFileSync(join(state, 'other.json'), '{}');
    expect(await forgetSavedSession({}, { XDG_STATE_HOME: dir })).toEqual({ path: join(state, 'default.json'), forgotten: true });
    expect(readdirSync(state)).toEqual(['other.json']);
    expect((await forgetSavedSession({}, { XDG_STATE_HOME: dir })).forgotten).toBe(false);
  });
});
