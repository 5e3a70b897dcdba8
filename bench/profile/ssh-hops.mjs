/**
 * Where a machine link's loopback round trip goes (issue 45): one byte echoed through
 * `ssh -T TARGET CMD`, 300 times, for ssh's own ways of connecting — no ControlMaster, a mux
 * client of a backgrounded master (ControlPersist=60, what a link runs), and the link's ssh
 * being the master itself (ControlPersist=no) — and for the far side's relay (`cat` vs a node
 * process piping stdin to stdout, as `corral bridge` does). Not part of `run.mjs` (a diagnosis):
 *
 *   npm run profile -- ssh-hops
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importBundled, median, percentile, round, sleep } from '../lib.mjs';

const KEYS = 300;

async function roundTrips(argv) {
  const child = spawn(argv[0], argv.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
  const times = [];
  let waiting = null;
  child.stdout.on('data', () => waiting?.());
  // Warm: the first byte through waits for the connection.
  for (let i = 0; i < KEYS + 20; i++) {
    const t0 = performance.now();
    await new Promise((resolve) => {
      waiting = resolve;
      child.stdin.write('x');
    });
    if (i >= 20) times.push(performance.now() - t0);
    await sleep(2 + Math.random() * 3);
  }
  child.stdin.end();
  child.kill();
  return times;
}

const { mod, dispose } = await importBundled('test/integration/ssh-harness.ts');
const sshd = await mod.TestSshd.start();
try {
  const control = mkdtempSync(join(tmpdir(), 'hops-'));
  const node = process.execPath;
  const relay = `${node} -e "process.stdin.pipe(process.stdout)"`;
  const variants = [
    ['direct, cat', ['-o', 'ControlMaster=no'], 'cat'],
    ['direct, node relay', ['-o', 'ControlMaster=no'], relay],
    ['own master (ControlPersist=no), cat', ['-o', 'ControlMaster=auto', '-o', `ControlPath=${control}/a-%C`, '-o', 'ControlPersist=no'], 'cat'],
    ['mux client of a persisted master (ControlPersist=60), cat', ['-o', 'ControlMaster=auto', '-o', `ControlPath=${control}/b-%C`, '-o', 'ControlPersist=60'], 'cat'],
    ['mux client of a persisted master, node relay', ['-o', 'ControlMaster=auto', '-o', `ControlPath=${control}/b-%C`, '-o', 'ControlPersist=60'], relay],
  ];
  for (let pass = 0; pass < 2; pass++) {
    for (const [name, options, command] of variants) {
      const times = await roundTrips([...sshd.sshWords, '-T', '-o', 'BatchMode=yes', ...options, sshd.target, command]);
      process.stdout.write(`${name}: p50 ${round(median(times), 3)} ms, p10 ${round(percentile(times, 10), 3)}, p90 ${round(percentile(times, 90), 3)}\n`);
    }
  }
  sshd.exec('true');
} finally {
  await sshd.stop();
  dispose();
}
