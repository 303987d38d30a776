/**
 * Schema patterns run on RE2 (harness/util/linear-regexp.ts): for every pattern here and any
 * string, the linear-time engine must answer exactly what ECMAScript's engine answers in Unicode
 * mode (the strings mix the characters where the two differ: Unicode whitespace, line terminators,
 * astral code points, brackets). Patterns that cannot run in linear time are refused, and a
 * catastrophic one answers at once. The property runs through test/helpers/prop.ts (fc.assert, a
 * fixed seed).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { linearRegExp, UnsupportedPattern } from '../../harness/util/linear-regexp.ts';
import { itProp } from '../helpers/prop.ts';

const PATTERNS = [
  '^[a-z]+$',
  '^\\S+@\\S+\\.\\S+$',
  '\\s',
  '^\\s*$',
  '[\\s,]+',
  '^a.b$',
  '.',
  '^.{2,4}$',
  '[]',
  '[^]',
  '^[^]*$',
  'a[]b',
  '^\\d{3}-\\d{4}$',
  '\\bword\\b',
  '^\\w+$',
  '^(?<year>\\d{4})-(?<month>\\d{2})$',
  '^\\u00e9',
  '\\u{1F600}',
  '\\uD83D\\uDE00',
  '^\\p{Lu}',
  '\\p{Script=Greek}',
  '\\p{sc=Latin}+',
  '\\p{gc=Nd}',
  '[[]',
  '[[:a]+',
  '^(a|ab)(c|bcd)(d*)$',
  '^(?:https?|ftp)://[^\\s/$.?#].[^\\s]*$',
  '^[A-Z]{2}[0-9]{2}[A-Z0-9]{4}[0-9]{7}([A-Z0-9]?){0,16}$',
  '\\cJ',
  '\\0',
  'x*?y',
  '^(a+)+$',
  '[\\u2028-\\u2029]',
  '^[^\\s]+$',
];

const tricky = fc.constantFrom(
  'a',
  'b',
  'c',
  'd',
  'x',
  'y',
  'A',
  'Z',
  '0',
  '9',
  '-',
  '.',
  '@',
  '/',
  ':',
  '[',
  ']',
  ' ',
  '\t',
  '\n',
  '\r',
  '\u000b',
  '\u00a0',
  '\u2028',
  '\u2029',
  '\u3000',
  '\ufeff',
  '\u00e9',
  'É',
  'α',
  '😀',
  '\u0000',
  'word',
  'http',
  '2024',
);
const input = fc.oneof(
  fc.array(tricky, { maxLength: 12 }).map((xs) => xs.join('')),
  fc.string({ unit: 'binary' }),
);

describe('linear-time schema patterns', () => {
  itProp(
    'answer exactly what ECMAScript answers (seed 30)',
    [fc.constantFrom(...PATTERNS), input],
    (pattern, s) => {
      expect(linearRegExp(pattern).test(s)).toBe(new RegExp(pattern, 'u').test(s));
    },
    { numRuns: 3000, seed: 30 },
  );

  it.each([
    ['(?=a)b', 'lookahead'],
    ['a(?!b)', 'lookahead'],
    ['(?<=a)b', 'lookbehind'],
    ['(?<!a)b', 'lookbehind'],
    ['(a)\\1', 'a backreference'],
    ['(?<n>a)\\k<n>', 'a backreference'],
  ])('refuses %s (%s cannot run in linear time)', (pattern, what) => {
    expect(() => linearRegExp(pattern)).toThrow(UnsupportedPattern);
    expect(() => linearRegExp(pattern)).toThrow(`${what} cannot run in linear time`);
  });

  it('answers a catastrophic pattern on a 29-character argument at once (no backtracking)', () => {
    // On a backtracking engine this is 2^29 steps; RE2 never backtracks. No timing is asserted: a
    // hang would fail the test by its timeout.
    expect(linearRegExp('^(a+)+$').test(`${'a'.repeat(29)}!`)).toBe(false);
    expect(linearRegExp('^(a|a)*$').test(`${'a'.repeat(5000)}!`)).toBe(false);
  });
});
