import type { Fact } from '../facts/fact.ts';
import { templateMatches, templatePaths } from '../templates/render.ts';

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

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Matches one template value against a concrete fact value. `{{args.p}}` binds
 * `p` (or must equal its binding), `{{result.x}}`, `{{id}}` and other roots match
 * anything, literals must be equal; a `*` on either side matches anything.
 *
 * @example
 * matchValue('{{args.to}}', 'bob@acme.example', {}) // { to: 'bob@acme.example' }
 * matchValue('inv-{{args.n}}', 'inv-7', {})       // { n: '7' }
 * matchValue('acme', 'globex', {})                // null
 */
export function matchValue(template: string, value: string, bound: Bindings): Bindings | null {
  if (value === '*' || template === '*') return bound;
  const paths = templatePaths(template);
  if (paths.length === 0) return template === value ? bound : null;
  // Splice the template into an anchored regex: unbound parameters become named groups.
  const groups: string[] = [];
  let source = '';
  let last = 0;
  for (const m of templateMatches(template)) {
    source += escapeRegex(template.slice(last, m.index));
    last = m.index + m.length;
    const p = argOf(m.path);
    if (p === undefined) source += '[\\s\\S]*?';
    else if (bound[p] !== undefined) source += escapeRegex(bound[p]);
    else if (groups.includes(p)) source += `\\k<g${groups.indexOf(p)}>`;
    else {
      source += `(?<g${groups.length}>[\\s\\S]*?)`;
      groups.push(p);
    }
  }
  source += escapeRegex(template.slice(last));
  const match = new RegExp(`^${source}$`).exec(value);
  if (!match) return null;
  const out = { ...bound };
  groups.forEach((p, i) => {
    out[p] = match.groups?.[`g${i}`] ?? '';
  });
  return out;
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
