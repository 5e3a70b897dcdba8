/**
 * The words a machine link's `last_error` (and `machine test`) uses for a failed ssh (SPEC §14),
 * from what ssh and the far side really print. A "Permission denied" after the login (the remote
 * shell or node refused a file) is not a refused login, and says which file.
 */
import { describe, expect, it } from 'vitest';
import { explainFailure } from '../../src/machines/machine-link.js';
import type { MachineEntry } from '../../src/machines/machine-config.js';

const entry: MachineEntry = { name: 'build', target: 'dev@box', label: '', session: 'default', enabled: true, corral: '/srv/private/corral/bin/corral.cjs' };

describe('explainFailure', () => {
  it("ssh's own refusal is a login that needs a key", () => {
    const words = explainFailure(entry, 255, 'dev@box: Permission denied (publickey).\n');
    expect(words).toMatch(/^ssh could not log in to dev@box without a prompt \(BatchMode\): add your key there/);
    expect(words).toContain('StrictModes');
  });

  it('a key ssh could not read is named', () => {
    const stderr = 'Load key "/home/me/.ssh/id_ed25519": Permission denied\ndev@box: Permission denied (publickey).\n';
    expect(explainFailure(entry, 255, stderr)).toContain('ssh could not use the key /home/me/.ssh/id_ed25519 (Permission denied)');
  });

  it.each([
    ['bash', 'bash: line 1: /srv/private/corral/bin/corral.cjs: Permission denied\n'],
    ['dash', 'sh: 1: /srv/private/corral/bin/corral.cjs: Permission denied\n'],
    ['zsh', 'zsh:1: permission denied: /srv/private/corral/bin/corral.cjs\n'],
  ])('a remote corral the remote user cannot read or run (%s, status 126) names that path, not the login', (_shell, stderr) => {
    const words = explainFailure(entry, 126, stderr);
    expect(words).toContain('the remote user on dev@box cannot read or run `/srv/private/corral/bin/corral.cjs`');
    expect(words).toContain('corral machine install build');
    expect(words).not.toContain('log in');
  });

  it('status 126 with nothing printed names the configured path', () => {
    expect(explainFailure(entry, 126, '')).toContain('cannot read or run `/srv/private/corral/bin/corral.cjs`');
  });

  it('a file of the remote corral that node cannot open is named', () => {
    const stderr = [
      'node:fs:448',
      "Error: EACCES: permission denied, open '/srv/private/corral/dist/boot.cjs'",
      '    at Object.readFileSync (node:fs:448:20)',
      "  path: '/srv/private/corral/dist/boot.cjs'",
      '}',
      '',
      'Node.js v20.20.2',
    ].join('\n');
    const words = explainFailure(entry, 1, stderr);
    expect(words).toContain('cannot open `/srv/private/corral/dist/boot.cjs` (permission denied for the remote user)');
    expect(words).not.toContain('log in');
  });

  it('a module the remote corral cannot find (missing or in a folder it may not enter) is named', () => {
    const stderr = "Error: Cannot find module '../dist/boot.cjs'\nRequire stack:\n- /srv/private/corral/bin/corral.cjs\n\nNode.js v20.20.2\n";
    expect(explainFailure(entry, 1, stderr)).toContain('cannot load ../dist/boot.cjs (missing, or not readable by the remote user)');
  });

  it('corral not on the PATH is still "not installed"', () => {
    expect(explainFailure({ ...entry, corral: 'corral' }, 127, 'bash: line 1: corral: command not found\n')).toContain('corral is not installed on dev@box');
  });
});
