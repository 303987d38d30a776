/**
 * A count and its noun, singular for exactly one: `1 scenario`, `2 scenarios`, `0 runs`,
 * `1 property`/`3 properties` (`many` for a plural that is not the noun plus s).
 *
 * @example
 * plural(1, 'scenario') // '1 scenario'
 * plural(2, 'lint error') // '2 lint errors'
 */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
