/**
 * How far V8 lets the heap grow past what is live before a full collection, while an evaluation runs.
 *
 * Every tool call over MSW goes through `fetch`, whose responses Node registers for finalization:
 * V8's young-generation collector keeps such objects, so they reach the old generation and die
 * there. With V8's default growing factor (up to 4× the live heap) a long evaluation's heap then
 * swelled to several times what it held (peak RSS 1.4 GiB at 6,200 runs before round 2 of the
 * performance work; npm run bench). Growing by 30% past the live heap keeps the peak near the live
 * size for a few per cent of throughput.
 *
 * Set for the duration of an evaluation (reference-counted) and reset after, unless the process was
 * started with a heap-growing flag of its own, which is left alone.
 *
 * V8 applies the factor only when a full collection ends (it then sets the next limit), so until
 * one has ended the limit is the one left by the last collection before the evaluation (loading
 * scenarios and planners): up to 4× what was live then. That first stretch was the peak of every
 * evaluation past a few hundred runs (185 MiB of RSS at 800 and at 8,000 runs against 125 at 80;
 * the heap then held 93 MiB, 30 of them live). So the heap is looked at every 100 ms, and once it
 * has grown past where the factor lets it grow from where it started, a full collection is run,
 * once: a short evaluation never needs it (a forced collection at the start cost one of 800 runs
 * 3% of its CPU time).
 */
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const GROWING_PERCENT = 30;
/** V8 lets the old generation grow by at least this much whatever the factor. */
const MIN_GROWTH = 8 * 2 ** 20;
const WATCH_MS = 100;
let holders = 0;
let unwatch: (() => void) | undefined;

const userChose = (): boolean =>
  [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((a) =>
    /^--heap-growing-percent\b/.test(a.replace(/_/g, '-')),
  );

/** Tightens heap growth until the returned function is called. */
export function tightHeapGrowth(): () => void {
  if (userChose()) return () => {};
  if (holders++ === 0) {
    setFlagsFromString(`--heap-growing-percent=${GROWING_PERCENT}`);
    unwatch = collectOnceGrown();
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    // 0 is V8's default: its own heuristics again.
    if (--holders === 0) {
      unwatch?.();
      setFlagsFromString('--heap-growing-percent=0');
    }
  };
}

/** What the old generation holds (the young one comes and goes between scavenges). */
const oldGeneration = (): number =>
  getHeapSpaceStatistics().reduce((sum, s) => (s.space_name.startsWith('new_') ? sum : sum + s.space_used_size), 0);

/**
 * Runs one full collection once the old generation has grown past what the factor allows from its
 * size now; the returned function stops looking.
 */
function collectOnceGrown(): () => void {
  const limit = oldGeneration() * (1 + GROWING_PERCENT / 100) + MIN_GROWTH;
  const timer = setInterval(() => {
    if (oldGeneration() < limit) return;
    clearInterval(timer);
    collectNow();
  }, WATCH_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** A full collection, now (15 ms with 25 MiB live): gc() as --expose-gc gives it. */
function collectNow(): void {
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return void exposed();
  try {
    setFlagsFromString('--expose-gc');
    try {
      (runInNewContext('gc') as () => void)();
    } finally {
      setFlagsFromString('--no-expose-gc');
    }
  } catch {
    // Best effort: without it the limit is V8's own until its next full collection.
  }
}
