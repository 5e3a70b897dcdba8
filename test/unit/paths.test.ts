import { describe, expect, it } from 'vitest';
import {
  displayPath,
  resolveConfigPath,
  resolveSessionName,
  resolveSocketPath,
  validateSessionName,
} from '../../src/paths.js';
import { CorralError } from '../../src/contract/protocol.js';

describe('resolveSocketPath', () => {
  const env = { XDG_RUNTIME_DIR: '/run/user/1000', CORRAL_SOCKET: '/env/sock', CORRAL_SESSION: 'envsess' };

  it('takes --socket first', () => {
    expect(resolveSocketPath({ socket: '/a/b.sock', session: 'x' }, env, 1000)).toBe('/a/b.sock');
  });

  it('then CORRAL_SOCKET', () => {
    expect(resolveSocketPath({ session: 'x' }, env, 1000)).toBe('/env/sock');
  });

  it('then the session from --session, CORRAL_SESSION or default under XDG_RUNTIME_DIR', () => {
    const e = { XDG_RUNTIME_DIR: '/run/user/1000', CORRAL_SESSION: 'envsess' };
    expect(resolveSocketPath({ session: 'work' }, e, 1000)).toBe('/run/user/1000/corral/work.sock');
    expect(resolveSocketPath({}, e, 1000)).toBe('/run/user/1000/corral/envsess.sock');
    expect(resolveSocketPath({}, { XDG_RUNTIME_DIR: '/run/user/1000' }, 1000)).toBe('/run/user/1000/corral/default.sock');
  });

  it('falls back to $TMPDIR/corral-<uid>, TMPDIR defaulting to /tmp', () => {
    expect(resolveSocketPath({}, { TMPDIR: '/var/tmp/' }, 501)).toBe('/var/tmp/corral-501/default.sock');
    expect(resolveSocketPath({ session: 's1' }, {}, 0)).toBe('/tmp/corral-0/s1.sock');
  });

  it('treats empty variables as unset and ignores a relative XDG_RUNTIME_DIR', () => {
    expect(resolveSocketPath({ socket: '' }, { CORRAL_SOCKET: '', CORRAL_SESSION: '', XDG_RUNTIME_DIR: '' }, 7)).toBe(
      '/tmp/corral-7/default.sock',
    );
    expect(resolveSocketPath({}, { XDG_RUNTIME_DIR: 'relative/dir' }, 7)).toBe('/tmp/corral-7/default.sock');
  });

  it('rejects invalid session names with invalid_params', () => {
    for (const bad of ['a/b', '../x', 'with space', 'é', 'x'.repeat(65)]) {
      try {
        resolveSocketPath({ session: bad }, {}, 0);
        expect.unreachable(bad);
      } catch (err) {
        expect(err).toBeInstanceOf(CorralError);
        expect((err as CorralError).code).toBe('invalid_params');
      }
    }
    expect(() => resolveSocketPath({}, { CORRAL_SESSION: 'no/slash' }, 0)).toThrow(/invalid session name/);
    expect(validateSessionName('my_sess-1.2')).toBe('my_sess-1.2');
    expect(resolveSessionName({}, {})).toBe('default');
  });

  it('does not validate the session when a socket path is given', () => {
    expect(resolveSocketPath({ socket: '/s.sock', session: 'bad/name' }, {}, 0)).toBe('/s.sock');
  });
});

describe('resolveConfigPath', () => {
  it('prefers CORRAL_CONFIG, then XDG_CONFIG_HOME, then ~/.config', () => {
    expect(resolveConfigPath({ CORRAL_CONFIG: '/etc/c.toml', XDG_CONFIG_HOME: '/x' }, '/home/u')).toBe('/etc/c.toml');
    expect(resolveConfigPath({ XDG_CONFIG_HOME: '/x' }, '/home/u')).toBe('/x/corral/config.toml');
    expect(resolveConfigPath({}, '/home/u')).toBe('/home/u/.config/corral/config.toml');
    expect(resolveConfigPath({ HOME: '/home/v' })).toBe('/home/v/.config/corral/config.toml');
  });
});

describe('displayPath', () => {
  it('shows the home directory as ~', () => {
    expect(displayPath('/home/u/.config/corral/config.toml', '/home/u')).toBe('~/.config/corral/config.toml');
    expect(displayPath('/home/user2/x', '/home/u')).toBe('/home/user2/x');
    expect(displayPath('/etc/x', '/')).toBe('/etc/x');
  });
});
