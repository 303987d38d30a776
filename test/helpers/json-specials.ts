/**
 * Values JSON treats specially (left out, written as null, or converted): for property tests that
 * hold a JSON shortcut equal to what JSON.stringify / JSON.parse give.
 */
export const jsonSpecials = (): unknown[] => [
  undefined,
  () => 1,
  Symbol('s'),
  -0,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  new Date(0),
  new Map([[1, 2]]),
];
