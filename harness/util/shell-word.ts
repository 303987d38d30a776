/**
 * A word of a command line as a POSIX shell reads it back: as it is when it needs no quoting,
 * else in single quotes. Free of Node, so the HTML report's browser script uses it too.
 *
 * @example
 * shellWord('--out=reports/x') // --out=reports/x
 * shellWord("it's here")       // 'it'\''s here'
 */
export function shellWord(s: string): string {
  return /^[A-Za-z0-9_./:=,@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
