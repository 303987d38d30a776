import { sortStrings } from './sort.ts';

/**
 * JSON with object keys sorted at every level: equal values give equal text
 * whatever their key order.
 *
 * @example
 * stableJson({ b: 2, a: 1 }) === stableJson({ a: 1, b: 2 }) // true
 */
export function stableJson(value: unknown): string {
  return writeStable(value, false) ?? 'undefined';
}

/** What JSON.stringify must escape in a string: quotes, backslashes, control characters, surrogates (a lone one is escaped). */
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/** JSON.stringify of a string, without the call for the common string that needs no escapes. */
const quote = (s: string): string => (ESCAPED.test(s) ? JSON.stringify(s) : `"${s}"`);

/** An array index as a property key: JavaScript objects list these first, in numeric order. */
const isIndex = (k: string): boolean => /^(?:0|[1-9]\d{0,9})$/.test(k) && Number(k) < 4294967295;

/** The keys in the order the sorted copy sortKeys makes would list them: indices first (numerically), then the rest sorted. */
function sortedKeys(o: object): string[] {
  const keys = sortStrings(Object.keys(o));
  if (!keys.some(isIndex)) return keys;
  return [...keys.filter(isIndex).sort((a, b) => Number(a) - Number(b)), ...keys.filter((k) => !isIndex(k))];
}

/**
 * `JSON.stringify(sortKeys(value))` written directly, without the sorted copy (call keys are made for
 * every call a run scores): `undefined`, functions and symbols are left out of objects and are `null`
 * in arrays; numbers, strings and the rest are as JSON.stringify writes them.
 */
function writeStable(value: unknown, inArray: boolean): string | undefined {
  if (typeof value === 'string') return quote(value);
  if (value === null || typeof value !== 'object') {
    const t = JSON.stringify(value);
    return t === undefined && inArray ? 'null' : t;
  }
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += `${i > 0 ? ',' : ''}${writeStable(value[i], true) as string}`;
    return `${out}]`;
  }
  const o = value as Record<string, unknown>;
  let out = '{';
  let first = true;
  for (const k of sortedKeys(o)) {
    // The sorted copy assigned `__proto__` as a property set, which JSON then never saw: it is left out, as before.
    if (k === '__proto__') continue;
    const v = writeStable(o[k], false);
    if (v === undefined) continue;
    out += `${first ? '' : ','}${quote(k)}:${v}`;
    first = false;
  }
  return `${out}}`;
}

/** Deep equality of two JSON-like values (key order ignored). */
export function sameValue(a: unknown, b: unknown): boolean {
  return stableJson(a) === stableJson(b);
}
