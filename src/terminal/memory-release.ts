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
import { performance } from 'node:perf_hooks';
import type { Disposable } from '../contract/disposable.js';
import { loadAddon } from '../native-addon.js';

export const MEMORY_RELEASE = {
  /** Rings smaller than this are not worth a collection. */
  minBytes: 4 * 1024 * 1024,
  /** Wait for other panes' floods to end too. */
  delayMs: 1000,
  minIntervalMs: 10_000,
  /**
   * How often the idle trim looks at the young generation. V8 judges allocation over the time
   * since its previous collection and at least 5 s back, so a retry must come later than that.
   */
  idleCheckMs: 6_000,
  /** The event loop busy at most this share of the last check's interval: the server is idle. */
  idleUtilization: 0.05,
  /** A young generation (V8's new space) larger than this after a busy spell is trimmed. */
  youngTrimBytes: 4 * 1024 * 1024,
  /** Trims that did not shrink it: after the first retry, each waits twice as long, up to this. */
  maxBackoffMs: 5 * 60_000,
} as const;

let collect: (() => void) | null | undefined;
let timer: NodeJS.Timeout | undefined;
let lastRun = 0;
/** The garbage waiting for the next collection is many small objects, not one large ring. */
let scatteredPending = false;

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

/**
 * `bytes` of memory just became garbage; collect soon if that is a lot.
 *
 * `scattered`: the garbage is many small objects among live ones — the terminals of idle panes
 * put to sleep (hibernation.ts) — rather than one large ring. Freed, they leave V8's pages
 * part-used and holes in the C heap, and the process keeps both resident (measured: 101
 * terminals given back, heap in use 27 → 12 MB, RSS unchanged). So that collection compacts
 * every page it can (`--compact-on-every-full-gc`, for that collection only) and then gives
 * the C heap's free pages back (malloc_trim through corral's addon).
 */
export function released(bytes: number, scattered = false): void {
  if (bytes < MEMORY_RELEASE.minBytes) return;
  scatteredPending ||= scattered;
  if (timer) return;
  const wait = Math.max(MEMORY_RELEASE.delayMs, lastRun + MEMORY_RELEASE.minIntervalMs - Date.now());
  timer = setTimeout(() => {
    timer = undefined;
    lastRun = Date.now();
    const compact = scatteredPending;
    scatteredPending = false;
    if (compact) compactingCollection();
    else collector()?.();
  }, wait);
  timer.unref();
}

/** One full collection that compacts, then the C heap's free pages back to the system. */
function compactingCollection(): void {
  const gc = collector();
  if (!gc) return;
  v8.setFlagsFromString('--compact-on-every-full-gc');
  try {
    gc();
  } finally {
    v8.setFlagsFromString('--no-compact-on-every-full-gc');
  }
  loadAddon()?.mallocTrim();
}

/** The size of V8's young generation (both semi-spaces), in bytes. */
function youngGenerationBytes(): number {
  return v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
}

/** What the idle trim reads and does; a test replaces them. */
export interface TrimProbe {
  /** The event loop's busy share since the previous call (0–1). */
  busy(): number;
  youngBytes(): number;
  /** One full collection; null when the collector cannot be reached. */
  collect: (() => void) | null;
}

/**
 * V8's memory reducer, started by the first full collection of a grown heap, waits 8 s after
 * the last full collection and then runs full collections until one gives back under 1 MB:
 * never fewer than two. After a busy spell the trim has just run one, so the reducer's
 * second finds nothing (measured, 10 idle panes after start-up: heap 21.3 → 21.2 → 21.2 MB,
 * committed 27.4 → 23.9 → 23.4 MB, ~40 ms of CPU each, most of it on V8's helper threads).
 * One is kept: the reducer still runs, once.
 */
function oneReducerCollection(): void {
  try {
    v8.setFlagsFromString('--memory-reducer-single-gc');
  } catch {
    // An unknown flag in some other V8: its reducer runs as it always did.
  }
}

function liveProbe(): TrimProbe {
  oneReducerCollection();
  let since = performance.eventLoopUtilization();
  return {
    busy() {
      const now = performance.eventLoopUtilization();
      const busy = performance.eventLoopUtilization(now, since).utilization;
      since = now;
      return busy;
    },
    youngBytes: youngGenerationBytes,
    get collect() {
      const gc = collector();
      return gc
        ? () => {
            lastRun = Date.now();
            gc();
          }
        : null;
    },
  };
}

export interface IdleTrim extends Disposable {
  /** Something happened (output, a request): look again once the server is idle. */
  kick(): void;
}

/**
 * V8 grows its young generation under load — creating panes, a flood — from 1 MB to 32 MB,
 * and shrinks it only in a full collection that finds allocation slow, which an idle server
 * never runs by itself (measured: 4 panes × 20,000 lines left 47 MB of heap reserved for
 * 11 MB in use; the first collection after a flood comes too soon, while allocation still
 * looks fast). So every `idleCheckMs`, if the event loop was idle since the last look and the
 * young generation is large, one full collection (20–140 ms, once per busy spell). One that
 * came too soon after another collection (the flood release's) does not shrink it: the next
 * check retries, and further failures back off, so an idle server does not collect forever.
 *
 * The checks run only after activity (`kick`: the server's events and requests): once a
 * check finds the server idle with a small young generation there is nothing left to give
 * back, and no timer runs until something happens again — an idle server is not woken every
 * `idleCheckMs` to find that out.
 */
export function trimWhenIdle(checkMs: number = MEMORY_RELEASE.idleCheckMs, probe: TrimProbe = liveProbe()): IdleTrim {
  let failures = 0;
  let nextTry = 0;
  let timer: NodeJS.Timeout | undefined;
  let disposed = false;
  const arm = (ms: number) => {
    timer = setTimeout(check, ms);
    timer.unref();
  };
  const check = () => {
    timer = undefined;
    const busy = probe.busy();
    if (busy > MEMORY_RELEASE.idleUtilization) return arm(checkMs);
    if (Date.now() < nextTry) return arm(Math.max(checkMs, nextTry - Date.now()));
    if (probe.youngBytes() <= MEMORY_RELEASE.youngTrimBytes) {
      failures = 0;
      return;
    }
    const collect = probe.collect;
    if (!collect) return;
    collect();
    failures = probe.youngBytes() <= MEMORY_RELEASE.youngTrimBytes ? 0 : failures + 1;
    if (failures === 0) return;
    nextTry = failures <= 1 ? 0 : Date.now() + Math.min(MEMORY_RELEASE.maxBackoffMs, checkMs * 2 ** (failures - 1));
    arm(Math.max(checkMs, nextTry - Date.now()));
  };
  return {
    kick() {
      if (timer || disposed) return;
      // The busy share is measured from here: the quiet time before the kick does not count.
      probe.busy();
      arm(checkMs);
    },
    dispose() {
      disposed = true;
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
