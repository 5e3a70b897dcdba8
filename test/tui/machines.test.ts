/**
 * A remote machine in the TUI (SPEC §14), against a real sshd (test/integration/ssh-harness.ts):
 * the sidebar lists the machine with its state and its workspaces under it; a remote pane is
 * drawn from its mirror, named by its machine in its frame, typed into as a person types (the
 * remote gate stays closed) and scrolled back like a local one; when the link drops, the pane
 * stays on screen marked as reconnecting and a key is refused visibly, never sent late.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { closedAfterEach, openRemoteWorkspace, TuiSession } from './tui-harness.js';
import { sshUnavailable, TestSshd } from '../integration/ssh-harness.js';

const CTRL_B = '\x02';
const close = closedAfterEach();

describe.skipIf(sshUnavailable())('a remote machine in the TUI', () => {
  it('shows the machine and its workspaces, draws and types into a remote pane, and refuses keys while it reconnects', async () => {
    const sshd = await TestSshd.start();
    try {
      const owner = close(new TuiSession(150, 40, { CORRAL_SSH: sshd.sshWords.join(' ') }));
      const remotePane = await openRemoteWorkspace(owner, sshd.target, sshd.remoteCorral);

      // A person typing: runs there, as the remote user, with the remote gate closed.
      owner.type('echo ON-$(id -un)-$((40+2))\r');
      await owner.waitForText(`ON-${sshd.user}-42`);
      const remoteRead = sshd.corral(['pane', 'read', remotePane, '--lines', '10']);
      expect(remoteRead).toContain(`ON-${sshd.user}-42`);

      // The link drops (sshd stopped, its sessions killed): the pane stays, says so, and a key
      // typed meanwhile is refused visibly — never queued and sent late.
      await sshd.stopDaemon();
      execFileSync('pkill', ['-u', sshd.user, '-x', 'sshd']);
      await owner.waitForText(/· (reconnecting|connecting)/);
      expect(owner.text()).toContain(`ON-${sshd.user}-42`);
      owner.type('echo LATE-$((3+3))\r');
      await owner.waitForText('keys are not sent');
      await sshd.restartDaemon();
      await owner.waitForText(/buildbox · connected/, 40_000);

      // Back: keys go through again, and what was refused never arrives.
      owner.type('echo AGAIN-$((1+1))\r');
      await owner.waitForText('AGAIN-2');
      expect(sshd.corral(['pane', 'read', remotePane, '--lines', '30'])).not.toContain('LATE-6');
      // The local pane is one click away, and the remote one kept its place.
      owner.type(`${CTRL_B}w`);
      await owner.waitForText('remote-api');
    } finally {
      await sshd.stop();
    }
  }, 90_000);

  it('a remote agent that blocks while out of view notifies here, and prefix g jumps to its pane', async () => {
    const sshd = await TestSshd.start();
    try {
      // A stand-in claude on the far side: it asks for permission (its hook, from its pane) a moment after it starts.
      const hook = [
        "const ask = () => { const s = require('net').connect(process.env.CORRAL_SOCKET, () => s.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ai.notification', params: { pane_id: process.env.CORRAL_PANE_ID, kind: 'claude', message: 'may I run the tests?' } }) + '\\n')); s.on('data', () => s.end()); s.on('error', () => {}); };",
        'setTimeout(ask, 1500);',
        'process.stdin.resume();',
      ].join('\n');
      sshd.writeRemoteFile('bin/claude', `#!/usr/bin/env node\n${hook}\n`);
      sshd.exec('chmod +x ~/bin/claude');
      const owner = close(new TuiSession(150, 40, { CORRAL_SSH: sshd.sshWords.join(' ') }));
      const remotePane = await openRemoteWorkspace(owner, sshd.target, sshd.remoteCorral);
      // Start it by typing into the remote pane, then go back to the local workspace before it asks.
      owner.type('~/bin/claude\r');
      await owner.waitForText(/claude/);
      // The sidebar's first workspace row is this machine's w1.
      owner.mouse(0, 3, 1);
      owner.mouse(0, 3, 1, 'm');
      await owner.waitFor((text) => !text.includes(`build/${remotePane}`), 'the local workspace in view');
      await owner.until(() => owner.osc9.length > 0, 'a notification for the remote agent', 20_000);
      expect(owner.osc9.join('\n')).toContain('blocked');
      // prefix g: to the agent that needs attention, on the other machine.
      owner.type(`${CTRL_B}g`);
      await owner.waitForText(`build/${remotePane}`);
    } finally {
      await sshd.stop();
    }
  }, 90_000);
});
