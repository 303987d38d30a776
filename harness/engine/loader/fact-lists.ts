/**
 * Facts in a YAML flow list (`preconditions: [a(x=1), b(y=2)]`): YAML ends an item at every
 * ",", so an unquoted fact with two arguments becomes two items, and a `{{` in it opens a
 * mapping. The fix is quoting each fact whole; these helpers write the corrected line for the
 * hint, from the items the loader got or from the line the parser stopped on.
 */
import { parseFact } from '../../core/facts/fact.ts';

/** How many list items one split fact may span: enough for any fact a person writes, and a bound on the work. */
const MAX_PIECES = 16;
/** The longest line whose flow lists are read for the hint (a fact list is far shorter). */
const MAX_LINE = 2000;

/** A fact as a YAML scalar quoted whole: double quotes, or single ones when it holds `"` or `\` (fact values quote with `"`). */
function yamlQuoted(fact: string): string {
  return /["\\]/.test(fact) ? `'${fact.replaceAll("'", "''")}'` : `"${fact}"`;
}

/**
 * The line that declares `facts` under `key`, each fact quoted whole.
 *
 * @example
 * quotedFactLine('preconditions', ['paid(vendor=acme, amount=10)']) // 'preconditions: ["paid(vendor=acme, amount=10)"]'
 */
export function quotedFactLine(key: string, facts: readonly string[]): string {
  return `${key}: [${facts.map(yamlQuoted).join(', ')}]`;
}

/** One fact that YAML split into several list items: the first item, how many, and the fact rejoined. */
export interface SplitFact {
  first: number;
  count: number;
  fact: string;
}

/**
 * The facts of a list that YAML split at their commas: item `k` does not parse, and it rejoined
 * with the items after it (as ", " joined them in the file) does. `sameLine(a, b)` says whether
 * two items sit on one line, as items of a flow list do; items on separate lines were written
 * apart, so they are left alone.
 *
 * @example
 * splitFacts(['paid(vendor=acme', 'amount=10)'], () => true) // [{ first: 0, count: 2, fact: 'paid(vendor=acme, amount=10)' }]
 */
export function splitFacts(items: readonly string[], sameLine: (a: number, b: number) => boolean): SplitFact[] {
  const out: SplitFact[] = [];
  for (let k = 0; k < items.length; k++) {
    const head = items[k] ?? '';
    if (!head.includes('(') || parseFact(head).ok) continue;
    let joined = head;
    for (let j = k + 1; j < items.length && j - k < MAX_PIECES && sameLine(k, j); j++) {
      joined += `, ${items[j] ?? ''}`;
      if (parseFact(joined).ok) {
        out.push({ first: k, count: j - k + 1, fact: joined });
        k = j;
        break;
      }
    }
  }
  return out;
}

/** The items of a list, each split fact rejoined. */
export function rejoined(items: readonly string[], splits: readonly SplitFact[]): string[] {
  const out: string[] = [];
  for (let k = 0; k < items.length; k++) {
    const s = splits.find((x) => x.first === k);
    out.push(s ? s.fact : (items[k] ?? ''));
    if (s) k += s.count - 1;
  }
  return out;
}

/**
 * The items of the flow list whose "[" is at `open` in `line`, split at the commas outside
 * parentheses and quotes (where a person meant them to end), each trimmed; undefined when the
 * list does not close on the line.
 */
function flowItems(line: string, open: number): string[] | undefined {
  const items: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let start = open + 1;
  for (let i = start; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (depth === 0 && (c === ',' || c === ']')) {
      items.push(line.slice(start, i).trim());
      start = i + 1;
      if (c === ']') return items.filter((x) => x !== '');
    }
  }
  return undefined;
}

/** The key before a flow list's "[" at `open` (`key: [`), read backwards without a pattern; undefined if none. */
function keyBefore(line: string, open: number): string | undefined {
  let i = open - 1;
  while (i >= 0 && (line[i] === ' ' || line[i] === '\t')) i--;
  if (line[i] !== ':') return undefined;
  const end = i;
  while (i > 0 && /[\w.-]/.test(line[i - 1] ?? '')) i--;
  return i < end ? line.slice(i, end) : undefined;
}

/** Whether a flow item is a fact YAML cannot read as one: unquoted, with "," or a bracket inside its parentheses. */
function breaksInFlow(item: string): boolean {
  if (/^["']/.test(item)) return false;
  const open = item.indexOf('(');
  return open > 0 && /[,{}[\]]/.test(item.slice(open)) && parseFact(item).ok;
}

/**
 * For a line holding `key: [fact, ...]` with a fact YAML cannot read unquoted (a "," or a `{{`
 * inside its parentheses): the first such fact, the list with every fact quoted whole, and the
 * column (0-based) where that fact starts. Undefined for any other line.
 *
 * @example
 * unquotedFactListFix('    preconditions: [paid(vendor={{args.vendor}}, amount={{args.amount}})]')
 * // { fact: 'paid(vendor={{args.vendor}}, amount={{args.amount}})', fixed: 'preconditions: ["paid(vendor={{args.vendor}}, amount={{args.amount}})"]', col: 20 }
 */
export function unquotedFactListFix(line: string): { fact: string; fixed: string; col: number } | undefined {
  // Each list is read to its end: a bound keeps a hostile one-line file linear.
  if (line.length > MAX_LINE) return undefined;
  for (let open = line.indexOf('['); open >= 0; open = line.indexOf('[', open + 1)) {
    const key = keyBefore(line, open);
    const items = key === undefined ? undefined : flowItems(line, open);
    const bad = items?.find(breaksInFlow);
    if (key === undefined || items === undefined || bad === undefined) continue;
    const quoted = items.map((x) => (/^["']/.test(x) ? x : yamlQuoted(x)));
    return { fact: bad, fixed: `${key}: [${quoted.join(', ')}]`, col: line.indexOf(bad, open) };
  }
  return undefined;
}
