/**
 * Predicted echo on a remote pane (issue 45, docs/machines.md "Predicted echo"), end to end: a
 * real sshd (test/integration/ssh-harness.ts) behind a proxy that holds every byte 100 ms each
 * way (this kernel has no netem). A key typed into the remote pane shows at once, underlined
 * (the remote's echo never is), and the underline goes when the echo confirms it; a key the
 * remote program echoes otherwise (capitals) is drawn as the remote drew it once it answers;
 * a password typed where the program turned echo off is never drawn.
 */
import { describe, expect, it } from 'vitest';
import { closedAfterEach, openRemoteWorkspace, TuiSession } from './tui-harness.js';
import { sshUnavailable, TestLinkProxy, TestSshd } from '../integration/ssh-harness.js';

const close = closedAfterEach();
/** Each way: a 200 ms round trip, well past the 80 ms above which predictions are underlined. */
const DELAY_MS = 100;

/** A remote program that echoes letters in capitals and anything else as typed; Enter ends it. */
const UPPER = [
  "process.stdin.setRawMode(true); process.stdout.write('ready> ');",
  "process.stdin.on('data', (d) => { for (const c of d.toString()) { if (c === '\\r') { process.stdout.write('\\r\\n'); process.exit(0); } process.stdout.write(/[a-z]/.test(c) ? c.toUpperCase() : c); } });",
].join('\n');

/** The cell after `prefix` on the row that shows it: its character and whether it is underlined. */
function after(tui: TuiSession, prefix: string): { char: string; underline: boolean } | null {
  const buffer = tui.screen.buffer.active;
  for (let y = 0; y < tui.screen.rows; y++) {
    const line = buffer.getLine(buffer.viewportY + y);
    const text = line?.translateToString(true) ?? '';
    const x = text.lastIndexOf(prefix);
    if (x < 0 || !line) continue;
    const cell = line.getCell(x + prefix.length);
    return cell ? { char: cell.getChars(), underline: cell.isUnderline() !== 0 } : null;
  }
  return null;
}

describe.skipIf(sshUnavailable())('predicted echo in a remote pane', () => {
  it('draws a key before its echo, underlined on a slow link, takes the remote answer when it differs, and never draws a password', async () => {
    const sshd = await TestSshd.start();
    const proxy = await TestLinkProxy.start(sshd.port, DELAY_MS);
    try {
      sshd.trustPort(proxy.port);
      sshd.writeRemoteFile('upper.js', `${UPPER}\n`);
      // The target carries the proxy's port (ssh://user@host:port): the harness's -p goes.
      const words = sshd.sshWords.filter((word, i, all) => word !== '-p' && all[i - 1] !== '-p');
      const owner = close(new TuiSession(150, 40, { CORRAL_SSH: words.join(' ') }));
      await openRemoteWorkspace(owner, `ssh://${sshd.user}@127.0.0.1:${proxy.port}`, sshd.remoteCorral);

      owner.type(`${process.execPath} ~/upper.js\r`);
      await owner.waitForText('ready> ');
      // The first key after Enter is drawn when echoed (its epoch is not trusted yet)…
      owner.type('1');
      await owner.waitFor(() => after(owner, 'ready> ')?.char === '1', 'the echo of 1');
      // …the next at once, underlined: a prediction, since the remote's echo is plain.
      owner.type('2');
      await owner.waitFor(() => {
        const cell = after(owner, 'ready> 1');
        return cell?.char === '2' && cell.underline;
      }, '2 predicted, underlined');
      await owner.waitFor(() => {
        const cell = after(owner, 'ready> 1');
        return cell?.char === '2' && !cell.underline;
      }, '2 confirmed by its echo');
      // A letter is predicted as typed; the program echoes it in capitals, and that is what stays.
      owner.type('a');
      await owner.waitFor(() => {
        const cell = after(owner, 'ready> 12');
        return cell?.char === 'a' && cell.underline;
      }, 'a predicted');
      await owner.waitFor(() => after(owner, 'ready> 12')?.char === 'A', 'the remote answer A in place of the prediction');
      expect(after(owner, 'ready> 12')?.underline).toBe(false);

      // A password prompt (echo off): nothing typed there is ever drawn, before or after.
      owner.type('\r');
      await owner.waitFor((screen) => /ready> 12A[^\n]*\n[^\n]*\$/.test(screen), "the shell's prompt again");
      owner.type("read -s -p 'pw: ' X; echo; echo got-$X\r");
      await owner.waitForText('pw: ');
      let drawn = false;
      const done = owner.waitFor((screen) => {
        if (/│pw: \S/.test(screen)) drawn = true;
        return screen.includes('got-hunter');
      }, 'the password read');
      owner.type('hunter');
      owner.type('\r');
      await done;
      expect(drawn).toBe(false);
    } finally {
      proxy.close();
      await sshd.stop();
    }
  }, 60_000);
});
