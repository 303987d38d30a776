/**
 * A duration in milliseconds as console text: `840 ms` below ten seconds, `12.5 s` from there. One
 * format for every place that prints a duration (the reporters' figures, recovery's timings).
 */
export const ms = (x: number): string => (x >= 10_000 ? `${(x / 1000).toFixed(1)} s` : `${Math.round(x)} ms`);
