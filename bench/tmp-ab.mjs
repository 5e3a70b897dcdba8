import { OuterTerminal, makeSandbox, TmuxTui, stripEscapes } from './tui-lib.mjs';
const names = process.argv.slice(2);
const N = Number(process.env.N ?? 150);
class Side {
  constructor(name) {
    this.name = name;
    this.sandbox = makeSandbox('corral-ab-');
    this.term = new OuterTerminal(process.execPath, [`/tmp/tp/${name}/bin/corral.cjs`], { cols: 120, rows: 40, env: { ...this.sandbox.env, CORRAL_SCRIPTING: '1' }, cwd: this.sandbox.home, screen: false });
  }
  async ready() { await this.term.waitFor(() => /\$ /.test(stripEscapes(this.term.tail)), 'prompt', 20000); }
  async close() { await this.term.close(); }
}
const sides = [...names.map((n) => new Side(n)), Object.assign(new TmuxTui({ cols: 120, rows: 40 }), {})];
await Promise.all(sides.map((s) => s.ready()));
await Promise.all(sides.map((s) => s.term.settle(500)));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const res = new Map(sides.map((s) => [s.name, []]));
function type(side, ch) {
  return new Promise((resolve) => { let t0; const stop = side.term.listen((now, d) => { if (d && stripEscapes(d).includes(ch)) { stop(); resolve(now - t0); } }); t0 = performance.now(); side.term.write(ch); });
}
for (let i = 0; i < N + 10; i++) {
  const ch = 'abcdefghijklmnopqrstuvwxyz'[i % 26];
  const order = i % 2 ? sides : [...sides].reverse();
  for (const s of order) { const ms = await type(s, ch); if (i >= 10) res.get(s.name).push(ms); await sleep(20 + Math.random() * 20); }
  if (i % 40 === 39) for (const s of sides) { s.term.write('\x15'); await s.term.settle(60, 2000); }
}
const med = (a) => { const x = [...a].sort((p, q) => p - q); return x[x.length >> 1]; };
const tm = med(res.get('tmux'));
for (const [n, a] of res) console.log(n.padEnd(8), med(a).toFixed(3), (med(a) / tm).toFixed(2) + '×');
await Promise.all(sides.map((s) => s.close().catch(() => {})));
process.exit(0);
