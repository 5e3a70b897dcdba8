/**
 * Gives a flood's memory back to the system once it is no longer needed. A pane's raw row
 * ring (raw-rows.ts) grows to xterm's size while a flood lasts — ~19 MB for 10,000 rows of
 * 160 columns — and is dropped once its rows are encoded. But an idle server allocates too
 * little for V8 to collect anything: measured, 8 panes after 20,000 lines each kept 270 MB
 * resident for as long as they stayed quiet (the rows themselves needed ~12 MB). So after a
 * large ring is dropped, one full collection runs — debounced across panes, at most every
 * `minIntervalMs`, 20–60 ms on a server this size.
 *
 * The collector is reached through V8's `--expose-gc` flag, set at run time (node:v8) and
 * fetched from a fresh context (node:vm), the documented way to get `gc` without starting
 * node with the flag. If that ever fails, memory is simply released whenever V8 next collects.
 */
import v8 from 'node:v8';
import vm from 'node:vm';

export const MEMORY_RELEASE = {
  /** Rings smaller than this are not worth a collection. */
  minBytes: 4 * 1024 * 1024,
  /** Wait for other panes' floods to end too. */
  delayMs: 1000,
  minIntervalMs: 10_000,
} as const;

let collect: (() => void) | null | undefined;
let timer: NodeJS.Timeout | undefined;
let lastRun = 0;

function collector(): (() => void) | null {
  if (collect !== undefined) return collect;
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as unknown;
    collect = typeof gc === 'function' ? (gc as () => void) : null;
  } catch {
    collect = null;
  }
  return collect;
}

/** `bytes` of memory just became garbage; collect soon if that is a lot. */
export function released(bytes: number): void {
  if (bytes < MEMORY_RELEASE.minBytes || timer) return;
  const wait = Math.max(MEMORY_RELEASE.delayMs, lastRun + MEMORY_RELEASE.minIntervalMs - Date.now());
  timer = setTimeout(() => {
    timer = undefined;
    lastRun = Date.now();
    collector()?.();
  }, wait);
  timer.unref();
}
