/**
 * Predicted echo on remote panes (issue 45, docs/machines.md "Predicted echo"): a key typed
 * into a remote pane through the TUI, from the key to the first frame that shows it, over
 * loopback ssh and over a 50 ms and a 150 ms round trip, with `[machines] predict = "never"`,
 * the default ("adaptive") and "always", beside a local pane of the same TUI. A real sshd on 127.0.0.1 (the tests'
 * harness) behind a proxy that holds every byte half the round trip each way (this kernel has
 * no netem: test/fixtures/link-proxy.mjs). Each configuration is its own TUI and server; within
 * one, the local and remote panes take turns, a round of keys each, several rounds.
 *
 * Targets (issue 45): at a 50 ms round trip a key visible in ≤ 5 ms with prediction; over
 * loopback, ≤ local + 2 ms.
 * Every round ends with Ctrl-U: a key that is no printable character starts a new epoch, so the
 * first key of each round is drawn only when its echo arrives (1 key in `ECHO_KEYS`).
 */
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { importBundled, median, percentile, round, waitUntil } from './lib.mjs';
import { CorralTui, clickRow, echoes, makeSandbox } from './tui-lib.mjs';

export const description = 'predicted echo on remote panes: 50 and 150 ms links, with and without prediction';

/** Round trips of the links: 0 is loopback ssh with no delay (issue 28's row). */
const RTTS = [0, 50, 150];
/** 'always' shows what prediction would do over loopback, where 'adaptive' stays off. */
const MODES = ['never', 'adaptive', 'always'];
const ROUNDS = 4;
const ECHO_KEYS = 20;

/** One TUI with `predict`, a local pane and one remote pane per link; echo times per place. */
async function measure(mod, sshd, proxies, predict, rounds) {
  const sandbox = makeSandbox();
  writeFileSync(join(sandbox.env.XDG_CONFIG_HOME, 'corral', 'config.toml'), `[machines]\npredict = "${predict}"\n`);
  const words = sshd.sshWords.filter((word, i, all) => word !== '-p' && all[i - 1] !== '-p');
  const side = new CorralTui({ cols: 160, rows: 48, sandbox, extraEnv: { CORRAL_SSH: words.join(' ') } });
  const remoteCorral = join(import.meta.dirname, '..', 'bin', 'corral.cjs');
  try {
    await side.ready();
    await side.cli(['workspace', 'rename', 'w1', 'local-ws']);
    const places = ['local'];
    for (const [rtt, proxy] of proxies) {
      const name = `rtt${rtt}`;
      await side.cli(['machine', 'add', name, `ssh://${sshd.user}@127.0.0.1:${proxy.port}`, '--session', name, '--corral', remoteCorral]);
      await waitUntil(async () => (await side.json(['machine', 'list', '--json'])).machines.find((m) => m.name === name)?.state === 'connected', { timeoutMs: 30_000, intervalMs: 100 });
      await side.json(['--machine', name, 'workspace', 'create', '--cwd', '/tmp', '--label', `${name}-ws`]);
      await side.term.waitForText(`${name}-ws`, 20_000);
      places.push(name);
    }
    const times = Object.fromEntries(places.map((p) => [p, []]));
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? places : [...places].reverse();
      for (const place of order) {
        await clickRow(side, place === 'local' ? 'local-ws' : `${place}-ws`);
        await side.term.settle(300, 5000);
        times[place].push(...(await echoes(side, ECHO_KEYS)));
      }
    }
    const links = {};
    for (const [rtt] of proxies) links[rtt] = (await side.json(['machine', 'test', `rtt${rtt}`])).result.rtt_ms;
    return { times, links };
  } finally {
    await side.close();
  }
}

const stat = (xs) => ({ p50: round(median(xs)), p10: round(percentile(xs, 10)), p90: round(percentile(xs, 90)), n: xs.length });

export async function run({ quick = false } = {}) {
  const { mod, dispose } = await importBundled('test/integration/ssh-harness.ts');
  const why = mod.sshUnavailable();
  if (why) {
    dispose();
    return [{ name: 'machines (predicted echo): skipped', value: 0, unit: '', baseline: why, baselineValue: 0, ratio: 0, target: 'root and sshd', pass: true }];
  }
  const sshd = await mod.TestSshd.start();
  const proxies = [];
  for (const rtt of RTTS) {
    const proxy = await mod.TestLinkProxy.start(sshd.port, rtt / 2);
    sshd.trustPort(proxy.port);
    proxies.push([rtt, proxy]);
  }
  const rows = [];
  try {
    const rounds = quick ? 1 : ROUNDS;
    const results = {};
    for (const predict of MODES) results[predict] = await measure(mod, sshd, proxies, predict, rounds);
    for (const predict of MODES) {
      const { times, links } = results[predict];
      const local = stat(times.local);
      process.stderr.write(`  predict=${predict}: local p50 ${local.p50} (p10 ${local.p10}, p90 ${local.p90}) ms\n`);
      for (const [rtt] of proxies) {
        const s = stat(times[`rtt${rtt}`]);
        process.stderr.write(`  predict=${predict}: ${rtt} ms link (measured ${links[rtt]} ms) p50 ${s.p50} (p10 ${s.p10}, p90 ${s.p90}) ms, ${s.n} keys\n`);
        process.stderr.write(`    sorted: ${[...times[`rtt${rtt}`]].sort((a, b) => a - b).map((t) => round(t, 1)).join(' ')}\n`);
        const target = rtt === 0 ? '≤ local + 2 ms' : predict === 'never' ? '—' : rtt === 50 ? '≤ 5 ms' : '≤ local + 5 ms';
        const pass = rtt === 0 ? s.p50 <= local.p50 + 2 : predict === 'never' ? undefined : rtt === 50 ? s.p50 <= 5 : s.p50 <= local.p50 + 5;
        rows.push({ name: `machines: echo p50 over ${rtt === 0 ? 'loopback ssh' : `a ${rtt} ms link`}, predict = ${predict} (p10–p90 ${s.p10}–${s.p90})`, value: s.p50, unit: 'ms', baseline: `local pane (link measured ${links[rtt]} ms)`, baselineValue: local.p50, ratio: round(s.p50 / local.p50), target, pass });
      }
    }
  } finally {
    for (const [, proxy] of proxies) proxy.close();
    await sshd.stop();
    dispose();
  }
  return rows;
}
