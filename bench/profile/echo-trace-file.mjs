/**
 * Reading the server's echo trace (CORRAL_ECHO_TRACE, src/screen/echo-trace.ts) for the echo
 * profilers (echo-hops, remote-echo-hops): its clock and its file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** performance.now() → CLOCK_MONOTONIC ms (the trace's clock): the tightest of a few paired reads. */
export function monotonicOffset() {
  let best = { gap: Infinity, offset: 0 };
  for (let i = 0; i < 20; i++) {
    const a = performance.now();
    const ns = process.hrtime.bigint();
    const b = performance.now();
    if (b - a < best.gap) best = { gap: b - a, offset: Number(ns) / 1e6 - (a + b) / 2 };
  }
  return best.offset;
}

/** The one trace file a server wrote in `dir`: a record per key, each hop's time in ms. */
export function readTrace(dir) {
  const files = readdirSync(dir).filter((f) => f.startsWith('echo-trace-'));
  if (files.length !== 1) throw new Error(`expected one trace file in ${dir}, found ${files.length}`);
  const [header, ...lines] = readFileSync(join(dir, files[0]), 'utf8').trim().split('\n');
  const names = header.split('\t');
  return lines.map((line) => {
    const record = {};
    line.split('\t').forEach((v, i) => {
      if (v !== '') record[names[i]] = Number(v) / 1e6;
    });
    return record;
  });
}
