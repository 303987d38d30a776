/**
 * Facts are ground atoms `name(key=value, ...)`. Preconditions, effects and goals
 * speak in facts; a pattern matches a fact when the names are equal and every
 * argument of the pattern is present in the fact with the same value (or `*`).
 *
 * @example
 * parseFact('email_sent(to=bob@acme.example)') // { ok: true, value: { fact: { name: 'email_sent', args: { to: 'bob@acme.example' } }, wild: [] } }
 */
import type { Result } from '../errors.ts';
import { sortStrings } from '../../util/sort.ts';

export interface Fact {
  name: string;
  args: Record<string, string>;
}

/**
 * `wild`: the keys whose value was written as a bare `*` (a wildcard in a pattern, an unknown value
 * in a declared fact). A quoted `"*"` is the literal text `*`.
 */
export type FactParse = Result<{ fact: Fact; wild: string[] }, { message: string; offset: number }>;

const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*/;

export function parseFact(text: string): FactParse {
  const src = text.trim();
  const name = NAME.exec(src)?.[0];
  if (!name) return { ok: false, message: 'a fact starts with a name: letters, digits, _ . -', offset: 0 };
  let i = name.length;
  const args: Record<string, string> = {};
  const wild: string[] = [];
  const skipSpace = () => {
    while (src[i] === ' ' || src[i] === '\t') i++;
  };
  skipSpace();
  if (i === src.length) return { ok: true, value: { fact: { name, args }, wild } };
  if (src[i] !== '(') return { ok: false, message: `expected "(" after the name "${name}"`, offset: i };
  i++;
  skipSpace();
  if (src[i] === ')') {
    i++;
    skipSpace();
    return i === src.length
      ? { ok: true, value: { fact: { name, args }, wild } }
      : { ok: false, message: 'text after ")"', offset: i };
  }
  for (;;) {
    skipSpace();
    const key = NAME.exec(src.slice(i))?.[0];
    if (!key) return { ok: false, message: 'expected an argument name (key=value)', offset: i };
    i += key.length;
    skipSpace();
    if (src[i] !== '=') return { ok: false, message: `expected "=" after "${key}"`, offset: i };
    i++;
    skipSpace();
    let value: string;
    if (src[i] === '"') {
      const end = findClosingQuote(src, i);
      if (end < 0) return { ok: false, message: 'unterminated quoted value', offset: i };
      // Quoted values use JSON string escapes; point at the first one JSON does not know (`"C:\tmp"`).
      const quoted = src.slice(i, end + 1);
      const bad = [...quoted.matchAll(/\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})?/g)].find((m) => m[0] === '\\');
      if (bad) {
        return {
          ok: false,
          message: `a quoted value has an invalid escape "${quoted.slice(bad.index, bad.index + 2)}" (write \\\\ for a backslash)`,
          offset: i + bad.index,
        };
      }
      // A raw control character (U+0000-U+001F) is not a JSON string character either: `\u001f` is.
      const control = /[\u0000-\u001f]/.exec(quoted);
      if (control) {
        const code = `\\u${control[0].charCodeAt(0).toString(16).padStart(4, '0')}`;
        return {
          ok: false,
          message: `a quoted value holds a control character (write it as ${code})`,
          offset: i + control.index,
        };
      }
      value = JSON.parse(quoted) as string;
      i = end + 1;
    } else {
      const start = i;
      // A bare value runs to the next top-level "," or ")"; template braces may not nest either.
      let depth = 0;
      while (i < src.length) {
        const c = src[i];
        if (c === '{') depth++;
        else if (c === '}') depth--;
        else if (depth === 0 && (c === ',' || c === ')')) break;
        i++;
      }
      value = src.slice(start, i).trim();
      if (value === '') return { ok: false, message: `the value of "${key}" is empty`, offset: start };
      if (value === '*') wild.push(key);
    }
    if (key in args) return { ok: false, message: `argument "${key}" is given twice`, offset: i };
    args[key] = value;
    skipSpace();
    if (src[i] === ',') {
      i++;
      continue;
    }
    if (src[i] === ')') {
      i++;
      skipSpace();
      if (i !== src.length) return { ok: false, message: 'text after ")"', offset: i };
      return { ok: true, value: { fact: { name, args }, wild } };
    }
    return { ok: false, message: 'expected "," or ")"', offset: i };
  }
}

function findClosingQuote(src: string, start: number): number {
  for (let j = start + 1; j < src.length; j++) {
    if (src[j] === '\\') j++;
    else if (src[j] === '"') return j;
  }
  return -1;
}

/** Parses a fact that is known to be valid (validated at load time); throws otherwise. */
export function mustParseFact(text: string): Fact {
  const r = parseFact(text);
  if (!r.ok) throw new Error(`internal: invalid fact "${text}": ${r.message}`);
  return r.value.fact;
}

/** Parses a fact with its bare-`*` keys, known to be valid (written by formatFact); throws otherwise. */
export function mustParsePattern(text: string): { fact: Fact; wild: ReadonlySet<string> } {
  const r = parseFact(text);
  if (!r.ok) throw new Error(`internal: invalid fact "${text}": ${r.message}`);
  return { fact: r.value.fact, wild: new Set(r.value.wild) };
}

/**
 * The canonical text of a fact: arguments sorted by key, values quoted (as JSON strings) when they
 * could not be read back bare. A `*` value is written bare only for the keys in `wild` (a wildcard,
 * or an unknown value); anywhere else it is the literal text and written `"*"`. Reading the text
 * back with parseFact gives the same fact, for every value: `parseFact(formatFact(f)).value.fact` equals `f`.
 *
 * @example
 * formatFact({ name: 'sent', args: { to: 'a@b', note: 'Thanks :-}' } }) // 'sent(note="Thanks :-}", to=a@b)'
 * formatFact({ name: 'sent', args: { to: '*' } })                      // 'sent(to="*")'
 * formatPattern({ name: 'sent', args: { to: '*' } }, new Set(['to']))  // 'sent(to=*)'
 */
export function formatFact(fact: Fact): string {
  return formatPattern(fact);
}

/** formatFact, with the keys in `wild` written as a bare `*` (a wildcard or an unknown value). */
export function formatPattern(fact: Fact, wild?: ReadonlySet<string>): string {
  return formatSorted(fact, sortStrings(Object.keys(fact.args)), wild);
}

/** formatPattern, given the fact's keys already sorted (a fact rendered from a template has the template's keys). */
export function formatSorted(fact: Fact, keys: readonly string[], wild?: ReadonlySet<string>): string {
  if (keys.length === 0) return fact.name;
  const parts = keys.map((k) => {
    const v = fact.args[k] ?? '';
    return `${k}=${v === '*' && wild?.has(k) ? '*' : formatValue(v)}`;
  });
  return `${fact.name}(${parts.join(', ')})`;
}

/** For a planner's belief, where every `*` stands for a value not known yet: all written bare. */
export function formatBelief(fact: Fact): string {
  return formatPattern(fact, new Set(Object.keys(fact.args).filter((k) => fact.args[k] === '*')));
}

/** Bare values run to the next top-level `,` or `)`, and braces nest: these, quotes and edge spaces need quotes. */
const NEEDS_QUOTES = /[,()"]|^\s|\s$/;

function formatValue(v: string): string {
  return v === '' || v === '*' || NEEDS_QUOTES.test(v) || !balancedBraces(v) ? JSON.stringify(v) : v;
}

/** Whether every `}` closes an earlier `{` and none is left open: `{{args.to}}` may stay bare, `x{` may not. */
function balancedBraces(v: string): boolean {
  let depth = 0;
  for (const c of v) {
    if (c === '{') depth++;
    else if (c === '}' && --depth < 0) return false;
  }
  return depth === 0;
}

export interface MatchOptions {
  /**
   * Treat a fact value `*` as an unknown value that may be anything: for a planner's belief and
   * for the facts a call declares it establishes before its result is known. In the world, a `*`
   * is the literal text a call wrote there, and matches only a wildcard or itself.
   */
  unknownInFact?: boolean;
  /**
   * The keys whose pattern value `*` is a wildcard (default: every key). A `*` substituted from a
   * call's arguments is a literal: `send(to="*")` does not pass a `verified(email={{args.to}})` check.
   */
  wildcardKeys?: ReadonlySet<string>;
  /** The keys of the fact whose value is unknown (may be anything): a declared fact's unseen result. */
  unknownKeys?: ReadonlySet<string>;
}

/** Matching against facts whose `*` values stand for unknowns (a belief, declared establishes). */
export const UNKNOWN: MatchOptions = { unknownInFact: true };

/** True when `pattern` matches `fact`: same name, and each pattern argument equal (or a wildcard `*`). */
export function matchesFact(pattern: Fact, fact: Fact, opts: MatchOptions = {}): boolean {
  if (pattern.name !== fact.name) return false;
  for (const k of Object.keys(pattern.args)) {
    const v = pattern.args[k] as string;
    const fv = fact.args[k];
    if (fv === undefined) return false;
    if (v === '*' && (opts.wildcardKeys?.has(k) ?? true)) continue;
    if (fv !== v && !(opts.unknownInFact && fv === '*') && !(fv === '*' && opts.unknownKeys?.has(k))) return false;
  }
  return true;
}

export function holdsIn(pattern: Fact, facts: Iterable<Fact>, opts: MatchOptions = {}): boolean {
  for (const f of facts) if (matchesFact(pattern, f, opts)) return true;
  return false;
}
