/**
 * Sorting the few keys of an object, the calls of a batch or the batches of a run. V8's
 * Array.prototype.sort allocates over a kilobyte of sort state per call, however short the array,
 * and the engine sorts such short arrays for every call it records and scores: short arrays are
 * sorted here by insertion instead, with the same result (both are stable; strings compare by UTF-16
 * code units, as the default order does).
 *
 * @example
 * sortStrings(['b', 'a']) // ['a', 'b'] (in place)
 * sortBy([3, 1, 2], (a, b) => a - b) // [1, 2, 3] (in place)
 */

/** Above this length the built-in sort is used. */
const SMALL = 24;

/** Sorts strings in place in the default order (as `a.sort()`), and returns the array. */
export function sortStrings(a: string[]): string[] {
  if (a.length > SMALL) return a.sort();
  for (let i = 1; i < a.length; i++) {
    const x = a[i] as string;
    let j = i - 1;
    for (; j >= 0 && (a[j] as string) > x; j--) a[j + 1] = a[j] as string;
    a[j + 1] = x;
  }
  return a;
}

/** Sorts in place with a comparator (as `a.sort(cmp)`), and returns the array. */
export function sortBy<T>(a: T[], cmp: (x: T, y: T) => number): T[] {
  if (a.length > SMALL) return a.sort(cmp);
  for (let i = 1; i < a.length; i++) {
    const x = a[i] as T;
    let j = i - 1;
    for (; j >= 0 && cmp(a[j] as T, x) > 0; j--) a[j + 1] = a[j] as T;
    a[j + 1] = x;
  }
  return a;
}
