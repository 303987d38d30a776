/**
 * Fact templates as declarations, for static review: `{{inputs.*}}` and
 * `{{deployment.*}}` rendered (a derived value over them computed), every other template kept as a
 * variable. Two
 * such facts unify when a call could make one match the other.
 */
import { parseFact, type Fact } from '../../core/facts/fact.ts';
import { matchValue } from '../../domain/planner-kit/unify.ts';
import type { Scenario } from '../../core/scenario.ts';
import { renderFact } from '../../core/facts/template.ts';

/**
 * A fact template with the scenario's inputs and deployment filled in, or undefined when it
 * does not parse (the loader reports that).
 *
 * @example
 * declaredFact('billing_contact(email={{inputs.email}}, id={{args.id}})', scenario)
 * // { name: 'billing_contact', args: { email: 'ap@x.example', id: '{{args.id}}' } }
 */
export function declaredFact(text: string, scenario: Pick<Scenario, 'inputs' | 'deployment'>): Fact | undefined {
  if (!parseFact(text).ok) return undefined;
  // Rendered as a run renders it (core/facts/template.ts), derived values (`"= sorted({{inputs.items}})"`)
  // included: one over the inputs alone has its value here; one that needs more is kept as written.
  return renderFact(text, { inputs: scenario.inputs, deployment: scenario.deployment }, 'keep');
}

const isVariable = (v: string): boolean => v === '*' || v.includes('{{');

/**
 * Whether `shape` (what a tool establishes, or an initial fact) can match `pattern` (a
 * precondition or goal) for some arguments: same name, every pattern argument present in the
 * shape, and each pair of values equal or bridgeable by a template.
 *
 * @example
 * unifies(parse('recipient_verified(email={{args.to}})'), parse('recipient_verified(email={{args.email}})')) // true
 * unifies(parse('gate(action=send)'), parse('gate(action=void)')) // false
 */
export function unifies(pattern: Fact, shape: Fact): boolean {
  if (pattern.name !== shape.name) return false;
  for (const [k, pv] of Object.entries(pattern.args)) {
    const sv = shape.args[k];
    if (sv === undefined) return false;
    if (pv === sv) continue;
    const pVar = isVariable(pv);
    const sVar = isVariable(sv);
    // Two templates can always be bridged by suitable arguments (an over-approximation).
    if (pVar && sVar) continue;
    if (pVar && matchValue(pv, sv, {}) !== null) continue;
    if (sVar && matchValue(sv, pv, {}) !== null) continue;
    return false;
  }
  return true;
}

/** `name(k=v, ...)` for messages, templates kept. */
export function showFact(f: Fact): string {
  const args = Object.entries(f.args).map(([k, v]) => `${k}=${v}`);
  return args.length ? `${f.name}(${args.join(', ')})` : f.name;
}
