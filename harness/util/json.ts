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

/** Deeper than this, a value takes the real JSON round trip (which also reports a cycle as JSON does). */
const COPY_DEPTH = 64;
const FAIL: unique symbol = Symbol('not plain JSON');

/**
 * `JSON.parse(JSON.stringify(value))` for plain JSON data (plain objects and arrays, strings, finite
 * numbers, booleans, null; `undefined`, functions and symbols left out of objects and `null` in
 * arrays, as JSON does), copied without writing and parsing the text: every call of every run
 * crosses such a round trip (a decision's arguments, an in-process reply), and it was a good part
 * of a short run's cost. Answers `undefined` when the value is anything else (a `toJSON`, a Date or
 * Map, a bigint, NaN, a cycle, deeper than 64) or when its JSON text could be longer than
 * `maxChars`: the caller then takes the real round trip, so the answer is always what JSON gives.
 *
 * @example
 * plainJsonCopy({ to: 'a@b', n: -0, f: () => 1 }) // { to: 'a@b', n: 0 }
 * plainJsonCopy(new Date(0)) // undefined
 */
export function plainJsonCopy<T>(value: T, maxChars = Number.POSITIVE_INFINITY): T | undefined {
  // An upper bound of the JSON text's length: a string's characters may each take 6 (\uXXXX).
  let budget = maxChars;
  const copy = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') {
      budget -= 2 + 6 * v.length;
      return v;
    }
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return FAIL;
      budget -= 24;
      return v === 0 ? 0 : v; // -0 is written "0"
    }
    if (typeof v === 'boolean' || v === null) {
      budget -= 5;
      return v;
    }
    if (typeof v !== 'object' || depth > COPY_DEPTH || typeof (v as { toJSON?: unknown }).toJSON === 'function')
      return FAIL;
    budget -= 2;
    if (Array.isArray(v)) {
      if (Object.getPrototypeOf(v) !== Array.prototype) return FAIL;
      const out = new Array<unknown>(v.length);
      for (let i = 0; i < v.length; i++) {
        const x = v[i] as unknown;
        const c =
          x === undefined || typeof x === 'function' || typeof x === 'symbol'
            ? ((budget -= 5), null)
            : copy(x, depth + 1);
        if (c === FAIL || budget < 0) return FAIL;
        out[i] = c;
        budget -= 1;
      }
      return out;
    }
    const proto = Object.getPrototypeOf(v) as unknown;
    if (proto !== Object.prototype && proto !== null) return FAIL;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) {
      const x = (v as Record<string, unknown>)[k];
      if (x === undefined || typeof x === 'function' || typeof x === 'symbol') continue;
      budget -= 4 + 6 * k.length;
      const c = copy(x, depth + 1);
      if (c === FAIL || budget < 0) return FAIL;
      // An own `__proto__` key stays a key, as JSON.parse makes it.
      if (k === '__proto__')
        Object.defineProperty(out, k, { value: c, enumerable: true, writable: true, configurable: true });
      else out[k] = c;
    }
    return out;
  };
  let c: unknown;
  try {
    c = copy(value, 0);
  } catch {
    return undefined; // a getter that throws: the round trip throws it again, as JSON reports it
  }
  return c === FAIL || budget < 0 ? undefined : (c as T);
}

/**
 * About how long a JSON value's text is, without writing it: each string counted by its characters
 * and quotes (escapes add nothing), each number, boolean or null as a few characters. What a
 * parsed value holds in memory, measured cheaply (the runner's per-run limit, runner/decision.ts).
 * Iterative: a value nested as deep as JSON.parse allows is measured too.
 *
 * @example
 * jsonLength({ to: 'bob' }) // 13 ({"to":"bob"} is 12 characters)
 */
export function jsonLength(value: unknown): number {
  let n = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') n += v.length + 2;
    else if (v === null || typeof v !== 'object') n += 8;
    else if (Array.isArray(v)) {
      n += 2 + v.length;
      for (const x of v) stack.push(x);
    } else {
      n += 2;
      for (const k of Object.keys(v)) {
        n += k.length + 4;
        stack.push((v as Record<string, unknown>)[k]);
      }
    }
  }
  return n;
}

/**
 * A copy of a JSON-like value (plain objects and arrays of JSON values: rows, arguments, replies,
 * what planners are shown), as structuredClone would make it, in one pass and faster. With `freeze`,
 * every object and array of the copy is frozen as it is made (what a planner may read, not change):
 * copying and then freezing was a good part of a short run's cost.
 *
 * @example
 * copyJson({ a: [1] }, true) // a deep-frozen { a: [1] }
 */
export function copyJson<T>(value: T, freeze = false): T {
  if (value === null || typeof value !== 'object') return value;
  let out: object;
  if (Array.isArray(value)) out = value.map((x: unknown) => copyJson(x, freeze));
  else {
    const o: Record<string, unknown> = {};
    for (const k of Object.keys(value)) {
      const x = copyJson((value as Record<string, unknown>)[k], freeze);
      // An own `__proto__` key (JSON can have one) stays a key, as structuredClone keeps it, not the prototype.
      if (k === '__proto__')
        Object.defineProperty(o, k, { value: x, enumerable: true, writable: true, configurable: true });
      else o[k] = x;
    }
    out = o;
  }
  return (freeze ? Object.freeze(out) : out) as T;
}

/** Freezes a JSON-like value all the way down, in place (a part already frozen is taken as frozen throughout). */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** prettyJsonPieces writes no deeper than this in parts (a cycle then throws as JSON.stringify throws it). */
const PARTS_DEPTH = 16;

/** An array, or an object of Object's (or no) prototype, that JSON writes entry by entry (it has no toJSON). */
function partsOf(v: unknown): unknown[] | Record<string, unknown> | undefined {
  if (v === null || typeof v !== 'object' || typeof (v as { toJSON?: unknown }).toJSON === 'function') return undefined;
  if (Array.isArray(v)) return v as unknown[];
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null ? (v as Record<string, unknown>) : undefined;
}

/** `budget` less the number of values in `v` (at any depth), counted only until it is below zero. */
function countDown(v: unknown, budget: number, depth: number): number {
  const c = partsOf(v);
  if (c === undefined || depth > PARTS_DEPTH) return budget;
  let left = budget;
  if (Array.isArray(c)) for (let i = 0; i < c.length && left >= 0; i++) left = countDown(c[i], left - 1, depth + 1);
  else
    for (const k in c) {
      if (left < 0) break;
      left = countDown(c[k], left - 1, depth + 1);
    }
  return left;
}

/** What JSON.stringify(value, null, 2) writes for a property `key` of value `value`, lines after the first indented by `indent`; undefined when it leaves it out. */
function wholeText(key: string, value: unknown, indent: string): string | undefined {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    // toJSON is called with the key, once: as JSON.stringify calls it for a property of a holder like this one.
    const wrapped = JSON.stringify({ [key]: value }, null, 2);
    if (wrapped === '{}') return undefined;
    return wrapped.slice(`{\n  ${JSON.stringify(key)}: `.length, -2).replace(/\n {2}/g, `\n${indent}`);
  }
  const text = JSON.stringify(value, null, 2) as string | undefined;
  return text === undefined ? undefined : indent === '' ? text : text.replace(/\n/g, `\n${indent}`);
}

/**
 * `JSON.stringify(value, null, 2)` in pieces of about `pieceChars` characters: an array or object
 * that holds more than `pieceChars / 256` values (at any depth: a large evaluation's runs, its
 * scenarios, each planner's per-scenario outcomes) is written entry by entry, the rest whole.
 * Joined, the pieces are exactly JSON's text; a large results file (15 MB at 8,000 runs) is then
 * never one string. Yields nothing for a value JSON writes as undefined. `textOf` gives the text of
 * an object held elsewhere (its `JSON.stringify(object, null, 2)`, e.g. a run read back from disk),
 * or undefined to write the object itself.
 *
 * @example
 * [...prettyJsonPieces(results)].join('') === JSON.stringify(results, null, 2) // true
 */
export function* prettyJsonPieces(
  value: unknown,
  pieceChars = 65_536,
  textOf?: (value: object) => string | undefined,
): Generator<string> {
  // Counting stops there: a run's few dozen values are counted, a list of thousands is not.
  const many = pieceChars >> 8;
  let piece = '';
  // Adds `v`, the value of property `key`, to the piece: true, or a frame to write its entries
  // from when it is written in parts; false when JSON leaves it out.
  const add = (key: string | number, v: unknown, indent: string, depth: number): Frame | boolean => {
    const held = textOf && v !== null && typeof v === 'object' ? textOf(v) : undefined;
    if (held !== undefined) {
      piece += indent === '' ? held : held.replace(/\n/g, `\n${indent}`);
      return true;
    }
    const c = countDown(v, many, depth) < 0 ? partsOf(v) : undefined;
    if (c === undefined) {
      const text = wholeText(String(key), v, indent);
      if (text === undefined) return false;
      piece += text;
      return true;
    }
    const keys = Array.isArray(c) ? undefined : Object.keys(c);
    piece += keys ? '{' : '[';
    return { c, keys, n: keys ? keys.length : (c as unknown[]).length, i: 0, indent, depth, first: true };
  };
  // The containers being written in parts, innermost last: no generator or call stack per entry.
  const open: Frame[] = [];
  const top = add('', value, '', 0);
  if (typeof top === 'object') open.push(top);
  while (open.length > 0) {
    const f = open[open.length - 1] as Frame;
    if (f.i === f.n) {
      piece += f.first ? (f.keys ? '}' : ']') : `\n${f.indent}${f.keys ? '}' : ']'}`;
      open.pop();
      continue;
    }
    const i = f.i++;
    const inner = `${f.indent}  `;
    const at = piece.length;
    let added: Frame | boolean;
    if (f.keys) {
      const k = f.keys[i] as string;
      piece += `${f.first ? '' : ','}\n${inner}${JSON.stringify(k)}: `;
      added = add(k, (f.c as Record<string, unknown>)[k], inner, f.depth + 1);
      if (added === false) piece = piece.slice(0, at); // left out of an object, as JSON leaves it
    } else {
      piece += `${f.first ? '' : ','}\n${inner}`;
      added = add(i, (f.c as unknown[])[i], inner, f.depth + 1);
      if (added === false) piece += 'null'; // null in an array, as JSON writes it
    }
    if (added !== false || !f.keys) f.first = false;
    if (typeof added === 'object') open.push(added);
    if (piece.length >= pieceChars) {
      yield piece;
      piece = '';
    }
  }
  if (piece !== '') yield piece;
}

/** A container prettyJsonPieces writes in parts: its entries, the next one, its indentation. */
interface Frame {
  c: unknown[] | Record<string, unknown>;
  keys: string[] | undefined;
  n: number;
  i: number;
  indent: string;
  depth: number;
  /** No entry written yet. */
  first: boolean;
}
