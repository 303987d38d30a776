import type { Fact } from '../../core/facts/fact.ts';
import { templateMatches, templatePaths } from '../../core/templates/render.ts';
import { DERIVED, derivedValue } from '../../core/templates/condition.ts';

/** Argument bindings found by unification: parameter name → fact value (text). */
export type Bindings = Record<string, string>;

/** The parameter a template path binds (`args.p` → `p`), or undefined for any other root. */
function argOf(path: string): string | undefined {
  const parts = path.split('.');
  return parts.length === 2 && parts[0] === 'args' ? parts[1] : undefined;
}

/** The parameters a fact template mentions as `{{args.p}}`, in order of appearance. */
export function argsMentioned(template: Fact): string[] {
  const out: string[] = [];
  for (const v of Object.values(template.args))
    for (const p of templatePaths(v)) {
      const a = argOf(p);
      if (a !== undefined && !out.includes(a)) out.push(a);
    }
  return out;
}

/** A hole in a template value: any text (`{{result.x}}`, `{{id}}`), a parameter's first mention, or a repeat of it. */
type Hole = { kind: 'any' } | { kind: 'bind'; param: string } | { kind: 'same'; param: string };

/**
 * Work allowed for one match, in positions looked at. Without repeated parameters a match takes
 * one pass per hole (linear); a parameter mentioned twice in one value may need a search, which
 * stops here and answers "no match" rather than run on.
 */
const MATCH_BUDGET = 4_000_000;

/** Every position where `pat` occurs in `text` (KMP: linear in both, whatever the text). */
function occurrences(text: string, pat: string): Uint8Array {
  const n = text.length;
  const m = pat.length;
  const at = new Uint8Array(n + 1);
  if (m === 0) return at.fill(1);
  const fail = new Int32Array(m);
  for (let i = 1, k = 0; i < m; i++) {
    while (k > 0 && pat[i] !== pat[k]) k = fail[k - 1] as number;
    if (pat[i] === pat[k]) k++;
    fail[i] = k;
  }
  for (let i = 0, k = 0; i < n; i++) {
    while (k > 0 && text[i] !== pat[k]) k = fail[k - 1] as number;
    if (text[i] === pat[k]) k++;
    if (k === m) {
      at[i - m + 1] = 1;
      k = fail[k - 1] as number;
    }
  }
  return at;
}

/**
 * Matches one template value against a concrete fact value. `{{args.p}}` binds
 * `p` (or must equal its binding), `{{result.x}}`, `{{id}}` and other roots match
 * anything, literals must be equal; a `*` on either side matches anything. When
 * a value can be split several ways, earlier holes take the shortest text that
 * lets the rest match.
 *
 * No regular expression: a template of lazy `[\s\S]*?` groups backtracked
 * polynomially (one power per hole) over a long value. Each hole is placed at
 * the first end from which the rest can still match, known from one pass per
 * hole from the right.
 *
 * @example
 * matchValue('{{args.to}}', 'bob@acme.example', {}) // { to: 'bob@acme.example' }
 * matchValue('inv-{{args.n}}', 'inv-7', {})       // { n: '7' }
 * matchValue('acme', 'globex', {})                // null
 */
export function matchValue(template: string, value: string, bound: Bindings): Bindings | null {
  if (value === '*' || template === '*') return bound;
  if (DERIVED.test(template)) return matchDerived(template, value, bound);
  const found = templateMatches(template);
  if (found.length === 0) return template === value ? bound : null;
  // The template as literals around holes: lits[0] hole[0] lits[1] ... hole[k-1] lits[k]. A bound parameter is a literal.
  const lits: string[] = [''];
  const holes: Hole[] = [];
  const seen = new Set<string>();
  let last = 0;
  for (const m of found) {
    lits[lits.length - 1] += template.slice(last, m.index);
    last = m.index + m.length;
    const p = argOf(m.path);
    if (p !== undefined && bound[p] !== undefined) {
      lits[lits.length - 1] += bound[p];
      continue;
    }
    holes.push(
      p === undefined ? { kind: 'any' } : seen.has(p) ? { kind: 'same', param: p } : { kind: 'bind', param: p },
    );
    if (p !== undefined) seen.add(p);
    lits.push('');
  }
  lits[lits.length - 1] += template.slice(last);
  const k = holes.length;
  const n = value.length;
  const head = lits[0] as string;
  const tail = lits[k] as string;
  if (k === 0) return head === value ? bound : null;
  if (!value.startsWith(head) || n - tail.length < head.length || !value.endsWith(tail)) return null;
  if ((k + 1) * (n + 2) > MATCH_BUDGET) return null;

  // ends[i][p]: hole i may end at p (literal i+1 follows at p) and the holes after it can still be
  // placed, reading repeats as "any text" (so this never rules out a real match). From the right.
  const ends: Uint8Array[] = new Array<Uint8Array>(k);
  let next: (q: number) => boolean = (q) => q === n;
  for (let i = k - 1; i >= 0; i--) {
    const lit = lits[i + 1] as string;
    const occ = i === k - 1 ? new Uint8Array(n + 1) : occurrences(value, lit);
    if (i === k - 1) occ[n - tail.length] = 1;
    const feasible = new Uint8Array(n + 2); // feasible[pos]: hole i starting at pos can be placed
    const ok = new Uint8Array(n + 1);
    for (let p = n; p >= 0; p--) {
      ok[p] = occ[p] && next(p + lit.length) ? 1 : 0;
      feasible[p] = ok[p] || feasible[p + 1] ? 1 : 0;
    }
    ends[i] = ok;
    const f = feasible;
    next = (q) => q <= n && f[q] === 1;
  }
  if (!next(head.length)) return null;

  // Place the holes left to right, each at its first possible end. Only a repeated parameter can
  // make that choice fail later; then the search goes back (iteratively), within the budget.
  const caps: Record<string, string> = {};
  const starts = new Int32Array(k + 1);
  const tried = new Int32Array(k); // the last end tried for each hole
  starts[0] = head.length;
  tried[0] = head.length - 1;
  let work = 0;
  let i = 0;
  while (i < k) {
    const hole = holes[i] as Hole;
    const ok = ends[i] as Uint8Array;
    const from = starts[i] as number;
    let end = -1;
    if (hole.kind === 'same') {
      const text = caps[hole.param] as string;
      work += text.length + 1;
      const at = from + text.length;
      if ((tried[i] as number) < from && at <= n && ok[at] === 1 && value.startsWith(text, from)) end = at;
    } else {
      for (let p = (tried[i] as number) + 1; p <= n; p++) {
        if (++work > MATCH_BUDGET) return null;
        if (ok[p] === 1) {
          end = p;
          break;
        }
      }
    }
    if (work > MATCH_BUDGET) return null;
    if (end < 0) {
      if (i === 0) return null;
      i--; // back to the previous hole's next end
      continue;
    }
    tried[i] = end;
    if (hole.kind === 'bind') caps[hole.param] = value.slice(from, end);
    starts[i + 1] = end + (lits[i + 1] as string).length;
    i++;
    if (i < k) tried[i] = (starts[i] as number) - 1;
  }
  if (starts[k] !== n) return null;
  return { ...bound, ...caps };
}

/** `= sorted({{args.p}})`: a derived value that is one parameter's list, sorted. */
const SORTED_ARG = /^=\s+sorted\(\s*\{\{\s*args\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}\s*\)\s*$/;

/** A list sorted as a derived value sorts it, as JSON text. */
function sortedJson(list: unknown[]): string | undefined {
  const r = derivedValue('sorted({{args.l}})', { args: { l: list } });
  return r.ok ? JSON.stringify(r.value) : undefined;
}

/**
 * Matches a derived template value (`"= EXPR"`). `= sorted({{args.p}})` matches a list in sorted
 * order and binds `p` to it (any order of its items gives that value, the sorted one among them),
 * or, with `p` bound, matches when the bound list sorted is the value. Any other expression cannot
 * be inverted: it matches any value and binds nothing, as `{{result.x}}` does.
 *
 * @example
 * matchDerived('= sorted({{args.ids}})', '["a","b"]', {}) // { ids: '["a","b"]' }
 * matchDerived('= sorted({{args.ids}})', '["b","a"]', {}) // null: no order of a list sorts to that
 */
function matchDerived(template: string, value: string, bound: Bindings): Bindings | null {
  const m = SORTED_ARG.exec(template);
  if (!m) return bound;
  const p = m[1] as string;
  let list: unknown;
  try {
    list = JSON.parse(value);
  } catch {
    return null;
  }
  if (!Array.isArray(list) || sortedJson(list) !== JSON.stringify(list)) return null;
  const had = bound[p];
  if (had === undefined) return { ...bound, [p]: value };
  let given: unknown;
  try {
    given = JSON.parse(had);
  } catch {
    return null;
  }
  return Array.isArray(given) && sortedJson(given) === JSON.stringify(list) ? bound : null;
}

/**
 * Bindings made through `= sorted({{args.p}})` fix `p`'s items, not their order. Where the task's
 * inputs hold every such list of the fact, each with the same items, their order is taken (the
 * task's own lists, whose order may matter to the tool: the i-th new item replaces the i-th old
 * one); else all stay sorted, never one reordered alone (that would break the pairs).
 *
 * @example
 * inInputOrder(parse('x(items="= sorted({{args.ids}})")'), { ids: '["a","b"]' }, { ids: ['b', 'a'] }) // { ids: '["b","a"]' }
 */
export function inInputOrder(template: Fact, b: Bindings, inputs: Readonly<Record<string, unknown>>): Bindings {
  const reordered: Bindings = {};
  for (const v of Object.values(template.args)) {
    const p = SORTED_ARG.exec(v)?.[1];
    if (p === undefined || b[p] === undefined) continue;
    const input = inputs[p];
    if (!Array.isArray(input) || sortedJson(input) !== JSON.stringify(parseJson(b[p]))) return b;
    reordered[p] = JSON.stringify(input);
  }
  return { ...b, ...reordered };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Binds a tool's args so that one of its `establishes` templates matches a target
 * fact: every argument of the target must be produced by the template.
 *
 * @example
 * unifyEstablish(parse('email_sent(to={{args.to}})'), parse('email_sent(to=bob@acme.example)')) // { to: 'bob@acme.example' }
 */
export function unifyEstablish(template: Fact, target: Fact, bound: Bindings = {}): Bindings | null {
  if (template.name !== target.name) return null;
  let b: Bindings | null = bound;
  for (const [k, v] of Object.entries(target.args)) {
    const tv = template.args[k];
    if (tv === undefined) return null;
    b = matchValue(tv, v, b);
    if (!b) return null;
  }
  return b;
}

/**
 * Binds a tool's args so that a precondition template matches a believed fact:
 * every argument of the template must be in the fact.
 *
 * @example
 * unifyPattern(parse('invoice_exists(id={{args.invoice_id}}, customer={{args.customer}})'),
 *   parse('invoice_exists(id=inv_1, customer=acme)'), { customer: 'acme' }) // { customer: 'acme', invoice_id: 'inv_1' }
 */
export function unifyPattern(template: Fact, fact: Fact, bound: Bindings = {}): Bindings | null {
  if (template.name !== fact.name) return null;
  let b: Bindings | null = bound;
  for (const [k, tv] of Object.entries(template.args)) {
    const fv = fact.args[k];
    if (fv === undefined) return null;
    b = matchValue(tv, fv, b);
    if (!b) return null;
  }
  return b;
}
