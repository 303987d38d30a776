/** The bench's arithmetic on measurements, shared by its cases. */

/** `x` rounded to `digits` decimals. */
export const round = (x: number, digits = 1): number => Math.round(x * 10 ** digits) / 10 ** digits;

/** The middle value (the upper of the two middles for an even count). */
export const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;
