/**
 * Text sent right after corral typed a command line into a shell (`pane run`, an up file's or
 * a flow's `command`): the shell still at its prompt has bracketed paste on, but the text is
 * read by the command the line starts. The pane's shell here is a stand-in slow to take its
 * line (test/fixtures/programs/slowshell.mjs), so the text always arrives while the line is
 * unread: it waits for the shell to take the line and goes in unframed. Seen in a loaded run:
 * a flow's answer reached `cat` inside paste markers.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT, TestServer, type RawClient } from './harness.js';

const SLOWSHELL = join(ROOT, 'test', 'fixtures', 'programs', 'slowshell.mjs');

describe('text sent after a typed command line', () => {
  let server: TestServer | null = null;
  let client: RawClient | null = null;
  afterEach(async () => {
    client?.close();
    await server?.stop();
  });

  /** A server whose panes run the slow shell (taking its line after `slowMs`), one pane at its prompt. */
  async function slowShellPane(slowMs: number): Promise<{ pane: string; received: () => string }> {
    const probe = new TestServer({ scripting: true, config: `shell = ${JSON.stringify(SLOWSHELL)}\n` });
    const out = join(probe.dir, 'received.txt');
    probe.env.SLOWSHELL_OUT = out;
    probe.env.SLOWSHELL_MS = String(slowMs);
    server = await probe.start();
    const pane = (await server.json(['workspace', 'create', '--cwd', server.home])).result.root_pane.pane_id as string;
    await server.json(['pane', 'wait-output', pane, '--match', 'slow$', '--timeout', '20000']);
    client = await server.connect();
    return { pane, received: () => (existsSync(out) ? readFileSync(out, 'utf8') : '') };
  }

  it('waits for the shell to take the line, then reaches the command unframed', async () => {
    const { pane, received } = await slowShellPane(800);
    // Both on one connection, back to back: the text goes out while the line is still unread.
    const [ran, sent] = await Promise.all([
      client!.request('pane.run', { pane_id: pane, command: 'cat' }),
      client!.request('surface.send_text', { target: pane, text: 'one\ntwo' }),
    ]);
    expect(ran.error).toBeUndefined();
    expect(sent.result).toMatchObject({ sent: true, paste: false });
    await server!.json(['pane', 'wait-output', pane, '--match', 'running', '--timeout', '20000']);
    let got = received();
    for (let i = 0; i < 100 && got.length < 'one\ntwo'.length; i++) {
      await new Promise((r) => setTimeout(r, 50));
      got = received();
    }
    expect(got).toBe('one\ntwo');
  });

  it('at the prompt with no line typed ahead, text is a paste for the shell, at once', async () => {
    const { pane } = await slowShellPane(0);
    const sent = await client!.call('surface.send_text', { target: pane, text: 'one\ntwo' });
    expect(sent.paste).toBe(true);
  });

  it('a shell that never takes the line holds the text only for a bounded while, then frames it as it shows', async () => {
    const { pane } = await slowShellPane(600_000);
    await client!.call('pane.run', { pane_id: pane, command: 'cat' });
    const sent = await client!.call('surface.send_text', { target: pane, text: 'one\ntwo' });
    expect(sent.paste).toBe(true);
  });
});
