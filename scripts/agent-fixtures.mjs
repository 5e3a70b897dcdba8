#!/usr/bin/env node
/**
 * Turns one capture of a real agent (run in tmux against corral's scripted model,
 * test/agents/model, with the environment of test/agents/lab.ts) into rule fixtures:
 * test/fixtures/agents/<kind>/<state>.txt + .json, session.raw.gz, capture-notes.txt.
 * The capture directory holds <state>.txt per state (tmux capture-pane -p), states.tsv
 * (`name<TAB>alt=on|off<TAB>title=…`), offsets.tsv (`name<TAB>length of raw.log at that
 * capture`), raw.log (the whole pty stream), and optionally notes.txt and version.txt.
 *
 *   node scripts/agent-fixtures.mjs <capture dir> <kind>
 *
 * `expected` is derived from the capture's name (what the driver waited for on screen); check
 * each screen by eye before committing: it must be what a person sees, not what rules say.
 */
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const [captureDir, kind] = process.argv.slice(2);
if (!captureDir || !kind) {
  process.stderr.write('usage: agent-fixtures.mjs <capture dir> <kind>\n');
  process.exit(2);
}
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'test', 'fixtures', 'agents', kind);
mkdirSync(out, { recursive: true });

/** The capture driver's state names (01-startup-idle …) → fixture state names and what a person sees there. */
const STATES = [
  [/^01-startup-idle$/, 'idle-startup', 'idle'],
  [/^02a-working-before-first-token$/, 'working-before-first-token', 'working'],
  [/^02b-working-midstream$/, 'working-midstream', 'working'],
  [/^03-done-text-turn$/, 'done-text-turn', 'idle'],
  [/^04-permission-prompt$/, 'permission-prompt', 'blocked'],
  [/^04a-permission-prompt-external-dir$/, 'permission-external-dir', 'blocked'],
  [/^04b-permission-prompt-bash$/, 'permission-prompt', 'blocked'],
  [/^05-done-after-tool$/, 'done-after-tool', 'idle'],
  [/^06-question-prompt$/, 'question-prompt', 'blocked'],
  [/^06b-question-after-first-enter$/, 'question-confirm', 'blocked'],
  [/^07-done-after-question$/, 'done-after-question', 'idle'],
  [/^08a-working-before-interrupt$/, 'working-before-interrupt', 'working'],
  [/^08b-after-interrupt$/, 'interrupted', 'idle'],
];

const titles = new Map();
for (const line of readFileSync(path.join(captureDir, 'states.tsv'), 'utf8').split('\n')) {
  const [name, alt, title] = line.split('\t');
  if (name) titles.set(name, { alternate: alt === 'alt=1', title: (title ?? '').replace(/^title=/, '') });
}
const offsets = new Map();
for (const line of readFileSync(path.join(captureDir, 'offsets.tsv'), 'utf8').split('\n')) {
  const [name, offset] = line.split('\t');
  if (name) offsets.set(name, Number(offset));
}

for (let [name, meta] of titles) {
  // The driver renames a first "external directory" permission capture to 04a-… afterwards.
  if (!existsSync(path.join(captureDir, `${name}.txt`)) && existsSync(path.join(captureDir, `04a-${name.slice(3)}-external-dir.txt`))) {
    offsets.set(`04a-${name.slice(3)}-external-dir`, offsets.get(name));
    name = `04a-${name.slice(3)}-external-dir`;
  }
  const state = STATES.find(([re]) => re.test(name));
  if (!state) continue;
  const [, fixture, expected] = state;
  writeFileSync(path.join(out, `${fixture}.txt`), readFileSync(path.join(captureDir, `${name}.txt`)));
  const json = { title: meta.title, alternate: meta.alternate, progress: '', expected, capture: name, offset: offsets.get(name) };
  writeFileSync(path.join(out, `${fixture}.json`), `${JSON.stringify(json).replace(/,"/g, ', "').replace(/":/g, '": ')}\n`);
  process.stdout.write(`${fixture}: ${expected}\n`);
}
writeFileSync(path.join(out, 'session.raw.gz'), gzipSync(readFileSync(path.join(captureDir, 'raw.log')), { level: 9 }));
const notes = existsSync(path.join(captureDir, 'notes.txt')) ? readFileSync(path.join(captureDir, 'notes.txt'), 'utf8') : '';
const version = existsSync(path.join(captureDir, 'version.txt')) ? readFileSync(path.join(captureDir, 'version.txt'), 'utf8').trim() : '?';
// Temp paths of the capture run say nothing useful and differ per run.
writeFileSync(path.join(out, 'capture-notes.txt'), `version: ${version}\n${notes.replace(/\/tmp\/agentrun\.[A-Za-z0-9]+/g, '/tmp/agentrun.X')}`);
