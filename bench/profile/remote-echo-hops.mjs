#!/usr/bin/env node
/**
 * Where a remote pane's echo spends its time over loopback ssh (issue 45), hop by hop, beside a
 * local pane of the same TUI: the TUI's server runs with `CORRAL_ECHO_TRACE`
 * (src/screen/echo-trace.ts). For a remote pane its pty hops are the link's: `ptyWritten` when
 * the key was handed to the link (`pane.input`), `ptyRead` when the batch with its echo came off
 * it; `predicted` marks the compositor's own early write of that echo, as for a local pane.
 * `[machines] predict = "never"`: the remote echo as it comes back.
 *
 *   node bench/profile/remote-echo-hops.mjs [--keys 100]
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monotonicOffset, readTrace } from './echo-trace-file.mjs';
import { importBundled, median, round, waitUntil } from '../lib.mjs';
import { CorralTui, LETTERS, clearLine, clickRow, keyGap, makeSandbox, typeAndStamp } from '../tui-lib.mjs';

const args = process.argv.slice(2);
const KEYS = Number(args.includes('--keys') ? args[args.indexOf('--keys') + 1] : 100);
const HOPS = ['arrived', 'input', 'routed', 'ptyWritten', 'ptyRead', 'predicted', 'sent', 'parsed', 'frameStart', 'frameEnd'];

const OFFSET = monotonicOffset();

const { mod, dispose } = await importBundled('test/integration/ssh-harness.ts');
const sshd = await mod.TestSshd.start();
const traceDir = mkdtempSync(join(tmpdir(), 'remote-echo-trace-'));
const sandbox = makeSandbox();
writeFileSync(join(sandbox.env.XDG_CONFIG_HOME, 'corral', 'config.toml'), '[machines]\npredict = "never"\n');
const words = sshd.sshWords.filter((word, i, all) => word !== '-p' && all[i - 1] !== '-p');
const side = new CorralTui({ cols: 160, rows: 48, sandbox, extraEnv: { CORRAL_SSH: words.join(' '), CORRAL_ECHO_TRACE: traceDir } });
const keys = { local: [], remote: [] };
try {
  await side.ready();
  await side.cli(['workspace', 'rename', 'w1', 'local-ws']);
  await side.cli(['machine', 'add', 'build', `ssh://${sshd.user}@127.0.0.1:${sshd.port}`, '--corral', join(import.meta.dirname, '..', '..', 'bin', 'corral.cjs')]);
  await waitUntil(async () => (await side.json(['machine', 'list', '--json'])).machines.find((m) => m.name === 'build')?.state === 'connected', { timeoutMs: 30_000, intervalMs: 100 });
  await side.json(['--machine', 'build', 'workspace', 'create', '--cwd', '/tmp', '--label', 'remote-ws']);
  await side.term.waitForText('remote-ws', 20_000);
  for (let round_ = 0; round_ < KEYS / 20; round_++) {
    for (const place of round_ % 2 ? ['local', 'remote'] : ['remote', 'local']) {
      await clickRow(side, `${place}-ws`);
      await side.term.settle(300, 5000);
      for (let i = 0; i < 20; i++) {
        const [t0, t1] = await typeAndStamp(side, LETTERS[i], 5000);
        keys[place].push([t0 + OFFSET, t1 + OFFSET]);
        await keyGap();
      }
      await clearLine(side);
    }
  }
} finally {
  await side.close();
  await sshd.stop();
  dispose();
}
const records = readTrace(traceDir);
for (const place of ['local', 'remote']) {
  const rows = keys[place].flatMap(([t0, t1]) => {
    const record = records.find((r) => r.arrived >= t0 && r.arrived <= t1);
    return record ? [{ ...record, written: t0, seen: t1 }] : [];
  });
  const path = ['written', ...HOPS, 'seen'];
  const parts = [];
  for (let i = 1; i < path.length; i++) {
    const deltas = rows.flatMap((r) => {
      const to = r[path[i]];
      if (to === undefined) return [];
      let j = i - 1;
      while (j >= 0 && r[path[j]] === undefined) j--;
      return j >= 0 ? [to - r[path[j]]] : [];
    });
    if (deltas.length > 0) parts.push(`${path[i]} +${round(median(deltas), 3)} (${deltas.length})`);
  }
  process.stdout.write(`${place}: total p50 ${round(median(rows.map((r) => r.seen - r.written)), 3)} ms over ${rows.length} keys\n  ${parts.join('\n  ')}\n`);
}
