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
 */
import { setFlagsFromString } from 'node:v8';

const GROWING_PERCENT = 30;
let holders = 0;

const userChose = (): boolean =>
  [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((a) =>
    /^--heap-growing-percent\b/.test(a.replace(/_/g, '-')),
  );

/** Tightens heap growth until the returned function is called. */
export function tightHeapGrowth(): () => void {
  if (userChose()) return () => {};
  if (holders++ === 0) setFlagsFromString(`--heap-growing-percent=${GROWING_PERCENT}`);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    // 0 is V8's default: its own heuristics again.
    if (--holders === 0) setFlagsFromString('--heap-growing-percent=0');
  };
}
