/**
 * Seeded randomness. Every random choice in oneway (faults, ids, approvals,
 * trial seeds, random planners) comes from here, so the same seed gives the
 * same results. Streams are derived by name so that adding a draw in one
 * place does not shift the draws of another.
 *
 * @example
 * const rng = createRng(deriveSeed(42, 'faults'));
 * rng.next(); // a float in [0, 1)
 */
export interface Rng {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  int(n: number): number;
  pick<T>(items: readonly T[]): T;
}

/** FNV-1a over the text, folded to 32 bits. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A seed derived from a parent seed and a label: stable, independent streams. */
export function deriveSeed(seed: number, ...labels: (string | number)[]): number {
  return hash32(`${seed >>> 0}/${labels.join('/')}`);
}

/** mulberry32: small, fast, and good enough for simulation choices. */
export function createRng(seed: number): Rng {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n) => Math.floor(next() * n),
    pick: (items) => {
      if (items.length === 0) throw new Error('internal: pick from an empty list');
      return items[Math.floor(next() * items.length)] as (typeof items)[number];
    },
  };
}
