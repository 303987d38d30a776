/** Small number formats shared by reporters. */
export const pct = (x: number | null | undefined): string => (x === null || x === undefined ? '—' : `${Math.round(x * 100)}%`);
export const ci = (c: readonly [number, number]): string => `[${pct(c[0])}, ${pct(c[1])}]`;
export const num = (x: number, digits = 1): string => (Number.isInteger(x) ? String(x) : x.toFixed(digits));
export const ms = (x: number): string => (x >= 10_000 ? `${(x / 1000).toFixed(1)} s` : `${Math.round(x)} ms`);
