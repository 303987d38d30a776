/**
 * Conditions and derived values for scenario files: `LEFT OP RIGHT` with OP one of
 * `== != < <= > >=`, `X in [a, b]`, `X in {{list}}` (and `not in`), joined by `and` / `or` (`and`
 * binding tighter) with parentheses; each side a template, a
 * number, a word or a "quoted" text, with arithmetic (`+ - * /`, parentheses, unary minus),
 * `len(X)` for the length of a list or a text, `sum(X)` for the total of a list of numbers and
 * `sorted(X)` for a list sorted (a derived value `"= sorted(X)"` is that list), `last(X)` for
 * its last element (`"= last(X)"` is that element, whatever it is), `min(X)` / `max(X)` for the smallest / largest of a list of numbers,
 * `count(X, V)` for how many items of list X equal V, and `round(X, N)` for X
 * rounded to N decimal places (0 to 9; halves away from zero, as the number is written to 9 places:
 * `round(2.675, 2)` is 2.68). An effect value written `"= EXPR"` is EXPR's number.
 * Over lists: `A within B` (each element of A occurs in B at least as often as in A; `not within`),
 * and `all(a in {{A}}, b in {{B}}: CONDITION)`, the condition at every index of the zipped lists
 * with `{{a}}` and `{{b}}` their elements there.
 *
 * A small parser, no eval: scenario files never execute code. Comparisons are numeric when both
 * sides are numbers (a number, or a text that is a plain decimal number); otherwise they compare
 * as text (the fact rule: `1200` and `"1200"` are equal). Arithmetic results are rounded to 9
 * decimal places, so `0.1 + 0.2 == 0.3`. A value that is missing (a template naming nothing, a
 * lookup that found no row), arithmetic on something that is not a number, or a division by zero
 * makes the condition false.
 *
 * @example
 * conditionHolds('{{order.status}} == pending', { lookups: { order: { status: 'pending' } } }) // true
 * conditionHolds('{{user.balance}} >= {{args.amount}} + 1', { lookups: { user: { balance: 17 } }, args: { amount: 21.1 } }) // false
 * arithmeticValue('{{a.x}} - {{args.y}}', ctx) // { ok: true, value: 3.5 }
 */
import type { Result } from '../errors.ts';
import { lookupTemplate, renderValue, type TemplateContext } from './render.ts';

const COMPARISONS = ['==', '!=', '<=', '>=', '<', '>'] as const;
type Comparison = (typeof COMPARISONS)[number];

/** One operand: a literal, a template path, `len(...)`, negation or a binary arithmetic node. */
export type Expr =
  | { t: 'num'; value: number }
  | { t: 'text'; value: string }
  | { t: 'path'; path: string }
  | { t: 'len'; of: Expr }
  | { t: 'sum'; of: Expr }
  | { t: 'sorted'; of: Expr }
  | { t: 'last'; of: Expr }
  | { t: 'round'; of: Expr; places: number }
  | { t: 'min' | 'max'; of: Expr }
  | { t: 'count'; of: Expr; item: Expr }
  | { t: 'neg'; of: Expr }
  | { t: 'bin'; op: '+' | '-' | '*' | '/'; left: Expr; right: Expr };

/**
 * A parsed condition: a comparison, membership in a written list or a list value, or two joined by
 * `and` / `or`; a list's multiset containment in another (`within`); or a condition over every
 * index of zipped lists (`all(NAME in LIST, ...: CONDITION)`).
 */
export type Condition =
  | { t: 'cmp'; op: Comparison; left: Expr; right: Expr }
  | { t: 'in'; negated: boolean; left: Expr; items: Expr[] | Expr }
  | { t: 'and'; left: Condition; right: Condition }
  | { t: 'or'; left: Condition; right: Condition }
  | { t: 'within'; negated: boolean; left: Expr; right: Expr }
  | { t: 'all'; names: string[]; lists: Expr[]; body: Condition };

export type ExprParse<T> = Result<T, { message: string; offset: number; hint: string }>;

const FORM =
  'write LEFT OP RIGHT with OP one of == != < <= > >= (e.g. "{{order.status}} == pending", "{{user.balance}} >= {{args.amount}}"), or X in [a, b], A within B, all(x in {{list}}: CONDITION); join them with and / or';

type Tok =
  | { k: 'num'; v: number; at: number }
  | { k: 'text'; v: string; at: number }
  | { k: 'word'; v: string; at: number }
  | { k: 'path'; v: string; at: number }
  | { k: 'op'; v: string; at: number }
  | { k: 'end'; at: number };

const WORD_START = /[A-Za-z_#@]/;
/** The most lists one `all(...)` zips (each a name every template inside it may read). */
const MAX_LISTS = 16;
/** A name `all(...)` gives the elements of a list. */
const LOOP_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const WORD_CHAR = /[A-Za-z0-9_.@#:-]/;
const DIGIT = /[0-9]/;
const NUMBER = /^(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

function tokenize(src: string): ExprParse<Tok[]> {
  const out: Tok[] = [];
  let i = 0;
  const fail = (message: string, at: number): ExprParse<Tok[]> => ({ ok: false, message, offset: at, hint: FORM });
  while (i < src.length) {
    const c = src[i] as string;
    if (c === ' ' || c === '\t') {
      i++;
      continue;
    }
    if (c === '\n' || c === '\r') return fail('a condition is one line', i);
    if (src.startsWith('{{', i)) {
      const end = src.indexOf('}}', i + 2);
      if (end < 0) return fail('a template is not closed ("}}")', i);
      const path = src.slice(i + 2, end).trim();
      if (/[{}]/.test(path)) return fail('templates do not nest', i);
      out.push({ k: 'path', v: path, at: i });
      i = end + 2;
      continue;
    }
    if (DIGIT.test(c) || (c === '.' && DIGIT.test(src[i + 1] ?? ''))) {
      // A run of word characters from a digit: a number when it is one, else a word (2024-05-15, 3b7f).
      let j = i;
      while (j < src.length && WORD_CHAR.test(src[j] as string)) j++;
      const run = src.slice(i, j);
      out.push(NUMBER.test(run) ? { k: 'num', v: Number(run), at: i } : { k: 'word', v: run, at: i });
      i = j;
      continue;
    }
    if (c === '"' || c === "'") {
      let j = i + 1;
      let text = '';
      for (; j < src.length && src[j] !== c; j++) {
        if (src[j] === '\\' && j + 1 < src.length) {
          j++;
          const e = src[j] as string;
          text += e === 'n' ? '\n' : e === 't' ? '\t' : e;
        } else text += src[j];
      }
      if (j >= src.length) return fail('an unterminated quoted text', i);
      out.push({ k: 'text', v: text, at: i });
      i = j + 1;
      continue;
    }
    if (WORD_START.test(c)) {
      let j = i;
      while (j < src.length && WORD_CHAR.test(src[j] as string)) j++;
      out.push({ k: 'word', v: src.slice(i, j), at: i });
      i = j;
      continue;
    }
    const two = src.slice(i, i + 2);
    if (two === '==' || two === '!=' || two === '<=' || two === '>=') {
      out.push({ k: 'op', v: two, at: i });
      i += 2;
      continue;
    }
    if ('<>+-*/()[],:'.includes(c)) {
      out.push({ k: 'op', v: c, at: i });
      i++;
      continue;
    }
    if (c === '=') return { ok: false, message: 'a single "="', offset: i, hint: 'compare with "==", not "="' };
    return fail(`unexpected "${c}"`, i);
  }
  out.push({ k: 'end', at: src.length });
  return { ok: true, value: out };
}

/** How deep parentheses, `len(...)` and signs may nest: scenario text is hostile, and the parser recurses per level. */
const MAX_DEPTH = 64;

class Parser {
  private i = 0;
  private depth = 0;
  constructor(private readonly toks: Tok[]) {}

  peek(): Tok {
    return this.toks[this.i] as Tok;
  }
  isOp(v: string): boolean {
    const t = this.peek();
    return t.k === 'op' && t.v === v;
  }
  isOpAt(ahead: number, v: string): boolean {
    const t = this.toks[this.i + ahead];
    return t !== undefined && t.k === 'op' && t.v === v;
  }
  isWord(v: string): boolean {
    const t = this.peek();
    return t.k === 'word' && t.v === v;
  }
  next(): Tok {
    return this.toks[this.i++] as Tok;
  }

  expr(): Expr {
    let left = this.term();
    while (this.isOp('+') || this.isOp('-')) {
      const op = (this.next() as { v: string }).v as '+' | '-';
      left = { t: 'bin', op, left, right: this.term() };
    }
    return left;
  }
  term(): Expr {
    let left = this.unary();
    while (this.isOp('*') || this.isOp('/')) {
      const op = (this.next() as { v: string }).v as '*' | '/';
      left = { t: 'bin', op, left, right: this.unary() };
    }
    return left;
  }
  unary(): Expr {
    if (this.isOp('-')) {
      const t = this.next();
      return { t: 'neg', of: this.nested(t.at, () => this.unary()) };
    }
    return this.atom();
  }
  /** Reads one level deeper, refusing past MAX_DEPTH. */
  nested<T>(at: number, read: () => T): T {
    if (++this.depth > MAX_DEPTH) throw new ParseError(`nested more than ${MAX_DEPTH} levels deep`, at);
    try {
      return read();
    } finally {
      this.depth--;
    }
  }
  atom(): Expr {
    const t = this.next();
    if (t.k === 'num') return { t: 'num', value: t.v };
    if (t.k === 'text') return { t: 'text', value: t.v };
    if (t.k === 'path') return { t: 'path', path: t.v };
    if (t.k === 'word') {
      if (t.v === 'and' || t.v === 'or')
        throw new ParseError(`expected a value, found "${t.v}" (quote the text "${t.v}")`, t.at);
      if (t.v === 'round' && this.isOp('(')) return this.round(t.at);
      if (t.v === 'count' && this.isOp('(')) {
        this.next();
        const of = this.nested(t.at, () => this.expr());
        this.expect(',');
        const item = this.nested(t.at, () => this.expr());
        this.expect(')');
        return { t: 'count', of, item };
      }
      if ((t.v === 'len' || t.v === 'sum' || t.v === 'sorted' || t.v === 'min' || t.v === 'max') && this.isOp('(')) {
        this.next();
        const of = this.nested(t.at, () => this.expr());
        this.expect(')');
        return { t: t.v, of };
      }
      if (t.v === 'last' && this.isOp('(')) {
        this.next();
        const of = this.nested(t.at, () => this.expr());
        this.expect(')');
        return { t: 'last', of };
      }
      return { t: 'text', value: t.v };
    }
    if (t.k === 'op' && t.v === '(') {
      const e = this.nested(t.at, () => this.expr());
      this.expect(')');
      return e;
    }
    throw new ParseError(t.k === 'end' ? 'a value is missing at the end' : `expected a value, found "${t.v}"`, t.at);
  }
  /** `round(X, N)`: N a whole number of decimal places, 0 to 9. */
  round(at: number): Expr {
    this.next();
    const of = this.nested(at, () => this.expr());
    this.expect(',');
    const n = this.next();
    if (n.k !== 'num' || !Number.isInteger(n.v) || n.v > 9)
      throw new ParseError('round(X, N) takes N, the decimal places, as a whole number from 0 to 9', n.at);
    this.expect(')');
    return { t: 'round', of, places: n.v };
  }
  expect(v: string): void {
    const t = this.next();
    if (!(t.k === 'op' && t.v === v))
      throw new ParseError(`expected "${v}"${t.k === 'end' ? ' at the end' : `, found "${String(t.v)}"`}`, t.at);
  }
  /** A condition: the whole token list. */
  condition(): Condition {
    const c = this.disjunction();
    this.end();
    return c;
  }
  /** `A or B or ...`: `and` binds tighter. */
  disjunction(): Condition {
    let left = this.conjunction();
    while (this.isWord('or')) {
      const t = this.next();
      left = { t: 'or', left, right: this.nested(t.at, () => this.conjunction()) };
    }
    return left;
  }
  conjunction(): Condition {
    let left = this.primary();
    while (this.isWord('and')) {
      const t = this.next();
      left = { t: 'and', left, right: this.nested(t.at, () => this.primary()) };
    }
    return left;
  }
  /**
   * A parenthesized condition, or one comparison. `(` opens either a condition or arithmetic
   * (`({{a}} - 7) * 2 == 20`): read as a condition when that parses and a `)` ends it that is
   * followed by `and`, `or`, `)` or the end; else read again as a comparison.
   */
  primary(): Condition {
    if (this.isWord('all') && this.isOpAt(1, '(')) return this.quantified();
    if (this.isOp('(')) {
      const start = this.i;
      const open = this.next();
      let first: ParseError | undefined;
      try {
        const c = this.nested(open.at, () => this.disjunction());
        this.expect(')');
        const after = this.peek();
        if (after.k === 'end' || this.isOp(')') || this.isWord('and') || this.isWord('or')) return c;
      } catch (e) {
        if (!(e instanceof ParseError) || e.message.startsWith('nested more than')) throw e;
        first = e;
      }
      this.i = start;
      try {
        return this.comparison();
      } catch (e) {
        // Of the two readings' errors, the one that read further says what is wrong.
        throw first && e instanceof ParseError && first.offset > e.offset ? first : e;
      }
    }
    return this.comparison();
  }
  /**
   * `all(NAME in LIST, NAME in LIST: CONDITION)`: the condition at every index of the lists, each
   * NAME the element at that index (read like a looked-up row: `{{NAME}}`, `{{NAME.field}}`).
   */
  quantified(): Condition {
    const start = this.next();
    this.next(); // (
    return this.nested(start.at, () => {
      const names: string[] = [];
      const seen = new Set<string>();
      const lists: Expr[] = [];
      for (;;) {
        const n = this.next();
        if (n.k !== 'word' || !LOOP_NAME.test(n.v))
          throw new ParseError(
            n.k === 'end'
              ? 'all( needs NAME in LIST, then ":" and a condition'
              : `expected a name for the elements (letters, digits and _), found "${String(n.v)}"`,
            n.at,
          );
        if (seen.has(n.v)) throw new ParseError(`the name "${n.v}" is given twice`, n.at);
        if (names.length >= MAX_LISTS) throw new ParseError(`all( takes at most ${MAX_LISTS} lists`, n.at);
        seen.add(n.v);
        if (!this.isWord('in')) throw new ParseError(`expected "in" after the name "${n.v}"`, this.peek().at);
        this.next();
        names.push(n.v);
        lists.push(this.expr());
        if (this.isOp(',')) {
          this.next();
          continue;
        }
        if (this.isOp(':')) break;
        const t = this.peek();
        throw new ParseError(
          t.k === 'end'
            ? 'all( is not closed: expected ":" and a condition'
            : `expected "," or ":", found "${String(t.v)}"`,
          t.at,
        );
      }
      this.next(); // :
      const body = this.disjunction();
      this.expect(')');
      return { t: 'all', names, lists, body };
    });
  }
  /** One comparison, membership or containment test. */
  comparison(): Condition {
    const left = this.expr();
    let negated = false;
    if (this.isWord('not')) {
      this.next();
      negated = true;
      if (!this.isWord('in') && !this.isWord('within'))
        throw new ParseError('expected "in" or "within" after "not"', this.peek().at);
    }
    if (this.isWord('within')) {
      this.next();
      return { t: 'within', negated, left, right: this.expr() };
    }
    if (this.isWord('in')) {
      this.next();
      let items: Expr[] | Expr;
      if (this.isOp('[')) {
        this.next();
        items = [];
        if (!this.isOp(']')) {
          items.push(this.expr());
          while (this.isOp(',')) {
            this.next();
            items.push(this.expr());
          }
        }
        this.expect(']');
      } else items = this.expr();
      return { t: 'in', negated, left, items };
    }
    const t = this.next();
    if (t.k !== 'op' || !(COMPARISONS as readonly string[]).includes(t.v))
      throw new ParseError(
        t.k === 'end'
          ? 'a condition needs a comparison (== != < <= > >=) or "in"'
          : `expected a comparison, found "${String(t.v)}"`,
        t.at,
      );
    const right = this.expr();
    return { t: 'cmp', op: t.v as Comparison, left, right };
  }
  end(): void {
    const t = this.peek();
    if (t.k !== 'end')
      throw new ParseError(`unexpected "${String(t.v)}" (quote a text that holds spaces or signs)`, t.at);
  }
}

class ParseError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

function parseWith<T>(text: string, read: (p: Parser) => T): ExprParse<T> {
  const toks = tokenize(text);
  if (!toks.ok) return { ok: false, message: toks.message, offset: toks.offset, hint: toks.hint };
  try {
    return { ok: true, value: read(new Parser(toks.value)) } as ExprParse<T>;
  } catch (e) {
    if (e instanceof ParseError) return { ok: false, message: e.message, offset: e.offset, hint: FORM };
    throw e;
  }
}

const conditions = new Map<string, ExprParse<Condition>>();
const expressions = new Map<string, ExprParse<Expr>>();

/**
 * Parses a condition (cached: conditions come from scenario files).
 *
 * @example
 * parseCondition('{{args.cabin}} in [business, first]').ok // true
 */
export function parseCondition(text: string): ExprParse<Condition> {
  let c = conditions.get(text);
  if (!c) {
    if (conditions.size > 10_000) conditions.clear();
    c = parseWith(text, (p) => p.condition());
    conditions.set(text, c);
  }
  return c;
}

/** Parses an arithmetic expression (the text after "= " of a derived value). */
export function parseExpression(text: string): ExprParse<Expr> {
  let c = expressions.get(text);
  if (!c) {
    if (expressions.size > 10_000) expressions.clear();
    c = parseWith(text, (p) => {
      const e = p.expr();
      p.end();
      return e;
    });
    expressions.set(text, c);
  }
  return c;
}

/** Why a value could not be computed. */
class Unknown extends Error {}

const DECIMAL = /^-?(\d+(\.\d+)?|\.\d+)$/;

/** A value as a number: a number, or a text that is a plain decimal number; else undefined. */
function numberOf(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && DECIMAL.test(v.trim())) return Number(v.trim());
  return undefined;
}

/** Rounded to 9 decimal places, so sums of cents compare as written. */
const rounded = (x: number): number => Number.parseFloat(x.toFixed(9));

function value(e: Expr, ctx: TemplateContext): unknown {
  switch (e.t) {
    case 'num':
    case 'text':
      return e.value;
    case 'path': {
      const v = lookupTemplate(ctx, e.path);
      if (v === undefined) throw new Unknown(`{{${e.path}}} has no value`);
      return v;
    }
    case 'len': {
      const v = value(e.of, ctx);
      if (Array.isArray(v) || typeof v === 'string') return v.length;
      if (v !== null && typeof v === 'object') return Object.keys(v).length;
      throw new Unknown('len() of something that is not a list');
    }
    case 'sum': {
      const v = value(e.of, ctx);
      if (!Array.isArray(v)) throw new Unknown('sum() of something that is not a list');
      let total = 0;
      for (const x of v) {
        const n = numberOf(x);
        if (n === undefined) throw new Unknown(`sum() of a list holding ${JSON.stringify(x)}, not a number`);
        total += n;
      }
      return rounded(total);
    }
    case 'sorted': {
      const v = value(e.of, ctx);
      if (!Array.isArray(v)) throw new Unknown('sorted() of something that is not a list');
      return sortedList(v);
    }
    case 'last': {
      const v = value(e.of, ctx);
      if (!Array.isArray(v) || v.length === 0)
        throw new Unknown('last() of something that is not a list with an element');
      return v[v.length - 1];
    }
    case 'round':
      return roundedTo(num(e.of, ctx), e.places);
    case 'min':
    case 'max': {
      const v = value(e.of, ctx);
      if (!Array.isArray(v) || v.length === 0) throw new Unknown(`${e.t}() of something that is not a non-empty list`);
      const ns = v.map((x) => {
        const n = numberOf(x);
        if (n === undefined) throw new Unknown(`${e.t}() of a list holding ${JSON.stringify(x)}, not a number`);
        return n;
      });
      return e.t === 'min' ? Math.min(...ns) : Math.max(...ns);
    }
    case 'count': {
      const v = value(e.of, ctx);
      if (!Array.isArray(v)) throw new Unknown('count() of something that is not a list');
      const item = value(e.item, ctx);
      return v.filter((x) => compare(x, '==', item)).length;
    }
    case 'neg':
      return -num(e.of, ctx);
    case 'bin': {
      const a = num(e.left, ctx);
      const b = num(e.right, ctx);
      if (e.op === '/' && b === 0) throw new Unknown('division by zero');
      return rounded(e.op === '+' ? a + b : e.op === '-' ? a - b : e.op === '*' ? a * b : a / b);
    }
  }
}

/**
 * `x` rounded to `places` decimals, halves away from zero, reading x as its decimal text to 9 places
 * (so 2.675 is a half, though its binary double is a little less).
 */
function roundedTo(x: number, places: number): number {
  const shifted = Number(`${Math.abs(x).toFixed(9)}e${places}`);
  const r = Number(`${Math.round(shifted)}e-${places}`);
  return r === 0 ? 0 : Math.sign(x) * r;
}

/** A copy of a list sorted: numerically when every item is a number (or a decimal text), else by text (character codes). */
function sortedList(v: readonly unknown[]): unknown[] {
  const nums = v.map(numberOf);
  if (nums.every((n) => n !== undefined))
    return v
      .map((x, k) => ({ x, n: nums[k] as number }))
      .sort((a, b) => a.n - b.n)
      .map((p) => p.x);
  return v
    .map((x) => ({ x, s: text(x) }))
    .sort((a, b) => (a.s < b.s ? -1 : a.s > b.s ? 1 : 0))
    .map((p) => p.x);
}

function num(e: Expr, ctx: TemplateContext): number {
  const v = value(e, ctx);
  const n = numberOf(v);
  if (n === undefined) throw new Unknown(`${JSON.stringify(v)} is not a number`);
  return n;
}

const text = (v: unknown): string =>
  typeof v === 'string' ? v : v !== null && typeof v === 'object' ? JSON.stringify(v) : String(v);

function compare(a: unknown, op: Comparison, b: unknown): boolean {
  const x = numberOf(a);
  const y = numberOf(b);
  const [l, r]: [number | string, number | string] = x !== undefined && y !== undefined ? [x, y] : [text(a), text(b)];
  switch (op) {
    case '==':
      return l === r;
    case '!=':
      return l !== r;
    case '<':
      return l < r;
    case '<=':
      return l <= r;
    case '>':
      return l > r;
    case '>=':
      return l >= r;
  }
}

/**
 * Whether a parsed condition holds in a context. A comparison is false when any value it needs is
 * missing or not a number; `and` and `or` then join the comparisons' truth values.
 */
function evaluateCondition(c: Condition, ctx: TemplateContext): boolean {
  if (c.t === 'and' || c.t === 'or') {
    const parts = chain(c);
    return c.t === 'and' ? parts.every((p) => evaluateCondition(p, ctx)) : parts.some((p) => evaluateCondition(p, ctx));
  }
  if (c.t === 'all') return allHold(c, ctx);
  try {
    if (c.t === 'cmp') return compare(value(c.left, ctx), c.op, value(c.right, ctx));
    if (c.t === 'within') {
      const inner = within(value(c.left, ctx), value(c.right, ctx));
      return c.negated ? !inner : inner;
    }
    const left = value(c.left, ctx);
    const items = Array.isArray(c.items) ? c.items.map((x) => value(x, ctx)) : value(c.items, ctx);
    if (!Array.isArray(items)) throw new Unknown('"in" needs a list');
    const found = items.some((x) => compare(left, '==', x));
    return c.negated ? !found : found;
  } catch (e) {
    if (e instanceof Unknown) return false;
    throw e;
  }
}

/**
 * The operands of a chain `a and b and c` (or of `or`s), in order: the parser nests a chain to the
 * left, so it is walked down its spine without recursion (a chain of thousands would exhaust the stack).
 */
function chain(c: Extract<Condition, { t: 'and' | 'or' }>): Condition[] {
  const rights: Condition[] = [];
  let x: Condition = c;
  while (x.t === c.t) {
    rights.push(x.right);
    x = x.left;
  }
  return [x, ...rights.reverse()];
}

/** A value's key for counting: equal keys for values `==` finds equal (numbers by value, else text). */
function countKey(v: unknown): string {
  const n = numberOf(v);
  return n === undefined ? `t${text(v)}` : `n${n}`;
}

/** Whether each element of list `a` occurs in list `b` at least as often as in `a` (multiset containment). */
function within(a: unknown, b: unknown): boolean {
  if (!Array.isArray(a) || !Array.isArray(b)) throw new Unknown('"within" needs two lists');
  const have = new Map<string, number>();
  for (const x of b) have.set(countKey(x), (have.get(countKey(x)) ?? 0) + 1);
  for (const x of a) {
    const left = have.get(countKey(x)) ?? 0;
    if (left === 0) return false;
    have.set(countKey(x), left - 1);
  }
  return true;
}

/**
 * `all(NAME in LIST, ...: BODY)`: BODY holds at every index, each NAME bound to its list's element
 * there (beside the lookups). Lists that are missing, not lists or of different lengths: false.
 */
function allHold(c: Extract<Condition, { t: 'all' }>, ctx: TemplateContext): boolean {
  let lists: unknown[][];
  try {
    lists = c.lists.map((e) => {
      const v = value(e, ctx);
      if (!Array.isArray(v)) throw new Unknown('all( needs lists');
      return v;
    });
  } catch (e) {
    if (e instanceof Unknown) return false;
    throw e;
  }
  const n = lists[0]?.length ?? 0;
  if (lists.some((l) => l.length !== n)) return false;
  for (let i = 0; i < n; i++) {
    const vars: Record<string, unknown> = { ...ctx.lookups };
    c.names.forEach((name, k) => (vars[name] = (lists[k] as unknown[])[i]));
    if (!evaluateCondition(c.body, { ...ctx, lookups: vars })) return false;
  }
  return true;
}

/**
 * The names a condition's `all(...)` give their elements (template roots inside them), in order.
 *
 * @example
 * boundNames('all(old in {{args.a}}, new in {{args.b}}: {{old}} != {{new}})') // ['old', 'new']
 */
export function boundNames(textIn: string): string[] {
  const c = parseCondition(textIn);
  const out: string[] = [];
  const walk = (x: Condition): void => {
    if (x.t === 'and' || x.t === 'or') chain(x).forEach(walk);
    else if (x.t === 'all') {
      out.push(...x.names);
      walk(x.body);
    }
  };
  if (c.ok) walk(c.value);
  return out;
}

/**
 * Whether a condition's text holds in a context. A condition that does not parse never holds (the
 * loader refuses it first).
 */
export function conditionHolds(text: string, ctx: TemplateContext): boolean {
  const c = parseCondition(text);
  return c.ok && evaluateCondition(c.value, ctx);
}

/** The marker of a derived value: a string starting "= " is arithmetic. */
export const DERIVED = /^=\s/;

/**
 * The number a derived value's expression (`"= {{a}} - {{b}}"`, without the "= ") gives, or why it
 * gives none.
 */
export function arithmeticValue(exprText: string, ctx: TemplateContext): Result<number, { message: string }> {
  const e = parseExpression(exprText);
  if (!e.ok) return { ok: false, message: e.message };
  try {
    return { ok: true, value: num(e.value, ctx) };
  } catch (err) {
    if (err instanceof Unknown) return { ok: false, message: err.message };
    throw err;
  }
}

/**
 * A derived value (`"= EXPR"` without the "= "): EXPR's number, the list when EXPR is
 * `sorted(X)`, the element (any value) when it is `last(X)`; or why it gives none.
 *
 * @example
 * derivedValue('sorted({{args.item_ids}})', { args: { item_ids: ['b', 'a'] } }) // { ok: true, value: ['a', 'b'] }
 */
export function derivedValue(exprText: string, ctx: TemplateContext): Result<unknown, { message: string }> {
  const e = parseExpression(exprText);
  if (!e.ok) return { ok: false, message: e.message };
  try {
    return {
      ok: true,
      value: e.value.t === 'sorted' || e.value.t === 'last' ? value(e.value, ctx) : num(e.value, ctx),
    };
  } catch (err) {
    if (err instanceof Unknown) return { ok: false, message: err.message };
    throw err;
  }
}

/**
 * A condition with its templates rendered as text, for the record (`{{order.status}} == pending`
 * becomes `cancelled == pending`); a missing value shows as `?`, and the names an `all(...)` binds stay
 * as written (`{{m.amount}}`: they have a value only at each index).
 */
export function renderedCondition(textIn: string, ctx: TemplateContext): string {
  // A name an all(...) binds has a value only at each index: it stays as written.
  const bound = textIn.includes('all(') ? new Set(boundNames(textIn)) : undefined;
  return textIn.replace(/\{\{([^{}]*)\}\}/g, (whole: string, p: string) => {
    if (bound?.has(templateRoot(p.trim()))) return whole;
    const v = lookupTemplate(ctx, p.trim());
    return v === undefined ? '?' : text(v);
  });
}

/** The root name of a template path: `m` of `m.source`, `legs` of `legs[*].price`. */
function templateRoot(path: string): string {
  return /^[^.[]*/.exec(path)?.[0] ?? path;
}

/**
 * Renders an effect's values (`row`, `set`, `append`): templates as renderValue does, and a string
 * written `"= EXPR"` as EXPR's number (or list, for `sorted(X)`). The sandbox checks every derived value first
 * (`derivedFailure`), so one that gives no number here is an internal fault.
 *
 * @example
 * renderEffectValue({ balance: '= {{user.balance}} - {{args.amount}}' }, ctx) // { balance: 3.9 }
 */
export function renderEffectValue(v: unknown, ctx: TemplateContext): unknown {
  if (typeof v === 'string') {
    if (!DERIVED.test(v)) return renderValue(v, ctx);
    const r = derivedValue(v.replace(DERIVED, ''), ctx);
    if (!r.ok) throw new Error(`internal: the derived value "${v}" gives no number: ${r.message}`);
    return r.value;
  }
  if (Array.isArray(v)) return v.map((x) => renderEffectValue(x, ctx));
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) out[k] = renderEffectValue((v as Record<string, unknown>)[k], ctx);
    return out;
  }
  return v;
}

/** Why a derived value (`"= EXPR"`) somewhere in `v` gives no number in `ctx`, or undefined when all give one. */
export function derivedFailure(v: unknown, ctx: TemplateContext): string | undefined {
  if (typeof v === 'string') {
    if (!DERIVED.test(v)) return undefined;
    const r = derivedValue(v.replace(DERIVED, ''), ctx);
    return r.ok ? undefined : `cannot compute "${v.replace(DERIVED, '')}": ${r.message}`;
  }
  if (Array.isArray(v)) {
    for (const x of v) {
      const f = derivedFailure(x, ctx);
      if (f) return f;
    }
    return undefined;
  }
  if (v !== null && typeof v === 'object') {
    for (const x of Object.values(v)) {
      const f = derivedFailure(x, ctx);
      if (f) return f;
    }
  }
  return undefined;
}
