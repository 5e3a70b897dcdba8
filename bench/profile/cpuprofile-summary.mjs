#!/usr/bin/env node
/**
 * Summarises V8 .cpuprofile files (from `node --cpu-prof`): self time by file / package,
 * self time by function, and inclusive time by function. Several files are added together.
 *
 *   npm run profile -- cpuprofile-summary PROFILE.cpuprofile [MORE…] [--top 25]
 *
 * Not a benchmark (bench/run.mjs does not run it); used by bench/profile/throughput.mjs.
 */
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Source maps of bundled files (dist/ is minified), loaded once per file; null if none. */
const maps = new Map();
function sourceMapFor(url) {
  if (!maps.has(url)) {
    let map = null;
    try {
      const file = url.startsWith('file://') ? fileURLToPath(url) : url;
      if (file.startsWith('/') && existsSync(`${file}.map`)) map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
    } catch {
      map = null;
    }
    maps.set(url, map);
  }
  return maps.get(url);
}

/** Maps a minified frame back to its source: { file, line, column, name } or null. */
export function original(frame) {
  const map = frame.url ? sourceMapFor(frame.url) : null;
  if (!map || frame.lineNumber < 0) return null;
  const entry = map.findEntry(frame.lineNumber, frame.columnNumber);
  if (!entry || !entry.originalSource) return null;
  const source = entry.originalSource.replace(/^file:\/\//, '');
  const rel = source.startsWith('/') ? relative(ROOT, source) : source.replace(/^(\.\.\/)+/, '');
  return { file: rel, line: entry.originalLine + 1, column: entry.originalColumn + 1, name: entry.name };
}

export function label(url) {
  return url
    .replace(/^node_modules\//, '/node_modules/')
    .replace(/^file:\/\//, '')
    .replace(/.*\/node_modules\/((@[^/]+\/)?[^/]+)\/.*/, 'npm:$1')
    .replace(/.*\/(dist\/.*)$/, '$1');
}

/** Returns { totalMs, byFile, selfByFn, inclByFn } as sorted [name, ms] arrays. */
export function summarise(paths) {
  const byFile = new Map();
  const selfByFn = new Map();
  const inclByFn = new Map();
  let total = 0;
  const add = (map, key, us) => map.set(key, (map.get(key) ?? 0) + us);
  for (const path of paths) {
    const profile = JSON.parse(readFileSync(path, 'utf8'));
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const parent = new Map();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const self = new Map();
    profile.samples.forEach((id, i) => add(self, id, profile.timeDeltas[i] ?? 0));
    const mapped = new Map(profile.nodes.map((n) => [n.id, original(n.callFrame)]));
    const fileOf = (n) => {
      const o = mapped.get(n.id);
      if (o) return label(o.file);
      return n.callFrame.url ? label(n.callFrame.url) : n.callFrame.functionName || '(native)';
    };
    const fnKey = (n) => {
      const f = n.callFrame;
      const o = mapped.get(n.id);
      if (o) return `${o.name && o.name !== f.functionName ? o.name : f.functionName || '(anonymous)'} ${o.file}:${o.line}`;
      const where = f.url ? ` ${label(f.url)}:${f.lineNumber + 1}:${f.columnNumber + 1}` : '';
      return `${f.functionName || '(anonymous)'}${where}`;
    };
    for (const [id, us] of self) {
      total += us;
      const n = byId.get(id);
      add(byFile, fileOf(n), us);
      add(selfByFn, fnKey(n), us);
      const seen = new Set();
      for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
        const key = fnKey(byId.get(cur));
        if (seen.has(key)) continue; // recursion counts once
        seen.add(key);
        add(inclByFn, key, us);
      }
    }
  }
  const sorted = (m) => [...m].map(([k, us]) => [k, us / 1000]).sort((a, b) => b[1] - a[1]);
  return { totalMs: total / 1000, byFile: sorted(byFile), selfByFn: sorted(selfByFn), inclByFn: sorted(inclByFn) };
}

export function format(summary, top = 25) {
  const out = [];
  const section = (title, rows) => {
    out.push(`\n${title} (of ${summary.totalMs.toFixed(0)} ms sampled)`);
    for (const [k, ms] of rows.slice(0, top)) {
      out.push(`${ms.toFixed(1).padStart(9)} ms ${((100 * ms) / summary.totalMs).toFixed(1).padStart(5)}%  ${k}`);
    }
  };
  section('self time by file / package', summary.byFile);
  section('self time by function', summary.selfByFn);
  section('inclusive time by function', summary.inclByFn.filter(([k]) => !/^\((root|program|idle)\)/.test(k)));
  return out.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const topAt = args.indexOf('--top');
  const top = topAt === -1 ? 25 : Number(args.splice(topAt, 2)[1]);
  if (args.length === 0) {
    process.stderr.write('usage: npm run profile -- cpuprofile-summary PROFILE.cpuprofile [MORE…] [--top N]\n');
    process.exit(2);
  }
  process.stdout.write(format(summarise(args), top) + '\n');
}
