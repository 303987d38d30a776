import type { Rng } from '../../util/rng.ts';
import type { Scalar } from './values.ts';

/** Local parts a mistyped or wrongly chosen recipient might have. */
const OTHER_LOCAL_PARTS = ['billing', 'accounts', 'info', 'admin', 'finance', 'j.doe', 'noreply'];

const DIGITS = '0123456789';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = LOWER.toUpperCase();

/** Another character of the same kind (digit, lower, upper); anything else becomes a letter. */
function otherChar(c: string, rng: Rng): string {
  const set = DIGITS.includes(c) ? DIGITS : UPPER.includes(c) ? UPPER : LOWER;
  const choices = [...set].filter((x) => x !== c);
  return rng.pick(choices);
}

/** The text with one alphanumeric character replaced (the last one when none is alphanumeric). */
function mutateOneChar(text: string, rng: Rng): string {
  if (text.length === 0) return rng.pick([...LOWER]);
  const positions = [...text].flatMap((c, i) => (/[A-Za-z0-9]/.test(c) ? [i] : []));
  const i = positions.length > 0 ? rng.pick(positions) : text.length - 1;
  return text.slice(0, i) + otherChar(text[i] ?? '', rng) + text.slice(i + 1);
}

/**
 * A plausible wrong value close to a right one, as agents produce them: an
 * email to another mailbox of the same domain, an id with one character off,
 * a number off by one or by a factor of ten, the other boolean. Always differs
 * from the value given, and never introduces a wildcard or fact syntax.
 *
 * @example
 * nearMiss('ap@northwind.example', rng) // 'billing@northwind.example'
 * nearMiss('in_7kq2m9x4ta', rng)        // 'in_7kq2m9x5ta'
 */
export function nearMiss(value: Scalar, rng: Rng): Scalar {
  if (typeof value === 'boolean') return !value;
  if (typeof value === 'number') return rng.pick([value + 1, value - 1, value * 10].filter((v) => v !== value));
  const at = value.lastIndexOf('@');
  if (at > 0) {
    const local = value.slice(0, at);
    const others = OTHER_LOCAL_PARTS.filter((l) => l !== local);
    // Half the time a different mailbox, half the time a typo in this one.
    const next = rng.next() < 0.5 ? rng.pick(others) : mutateOneChar(local, rng);
    return `${next}${value.slice(at)}`;
  }
  return mutateOneChar(value, rng);
}
