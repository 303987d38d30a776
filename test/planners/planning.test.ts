import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatFact, mustParseFact } from '../../harness/core/facts/fact.ts';
import { completeArgs } from '../../harness/domain/planner-kit/args.ts';
import { believedFacts } from '../../harness/domain/planner-kit/belief.ts';
import { backwardChain } from '../../harness/domain/planner-kit/chain.ts';
import { optionsFor } from '../../harness/domain/planner-kit/options.ts';
import { byClassThenMissing } from '../../harness/domain/planner-kit/rank.ts';
import { planningSources } from '../../harness/domain/planner-kit/sources.ts';
import { templateMatches } from '../../harness/core/templates/render.ts';
import { inInputOrder, matchValue, unifyEstablish, unifyPattern } from '../../harness/domain/planner-kit/unify.ts';
import {
  BOB,
  advance,
  createInvoice,
  emailWorld,
  invoiceWorld,
  requestApproval,
  sendInvoiceEmail,
  tool,
  view,
  voidInvoice,
} from './worlds.ts';

const f = mustParseFact;

describe('unification', () => {
  it('binds an {{args.p}} value to the target value', () => {
    expect(unifyEstablish(f('email_sent(to={{args.to}})'), f(`email_sent(to=${BOB})`))).toEqual({ to: BOB });
  });

  it('requires literals to be equal and lets {{result.x}} match anything', () => {
    expect(unifyEstablish(f('gate(action=send)'), f('gate(action=delete)'))).toBeNull();
    expect(
      unifyEstablish(
        f('invoice_exists(id={{result.id}}, customer={{args.c}})'),
        f('invoice_exists(id=inv_9, customer=acme)'),
      ),
    ).toEqual({
      c: 'acme',
    });
  });

  it('fails when the template does not produce an argument of the target', () => {
    expect(unifyEstablish(f('email_sent(to={{args.to}})'), f('email_sent(to=a, cc=b)'))).toBeNull();
  });

  it('binds parts of a value and keeps a repeated parameter consistent', () => {
    expect(matchValue('inv-{{args.n}}', 'inv-7', {})).toEqual({ n: '7' });
    expect(matchValue('{{args.a}}/{{args.a}}', 'x/y', {})).toBeNull();
    expect(matchValue('{{args.a}}', 'y', { a: 'x' })).toBeNull();
  });

  it('reads a sorted list back: "= sorted({{args.p}})" binds p to a list in sorted order, nothing else', () => {
    const tpl = '= sorted({{args.ids}})';
    expect(matchValue(tpl, '["a","b"]', {})).toEqual({ ids: '["a","b"]' });
    // No order of a list sorts to [b, a]; a text is no list.
    expect(matchValue(tpl, '["b","a"]', {})).toBeNull();
    expect(matchValue(tpl, 'a', {})).toBeNull();
    // Bound, any order of the same items matches; other items do not.
    expect(matchValue(tpl, '["a","b"]', { ids: '["b","a"]' })).toEqual({ ids: '["b","a"]' });
    expect(matchValue(tpl, '["a","b"]', { ids: '["a"]' })).toBeNull();
    // Another expression cannot be read back: it matches anything and binds nothing.
    expect(matchValue('= {{args.n}} + 1', '8', {})).toEqual({});
    const fact = f('returned(items="= sorted({{args.ids}})")');
    expect(unifyEstablish(fact, f('returned(items="[\\"a\\",\\"b\\"]")'))).toEqual({ ids: '["a","b"]' });
    // The task's input holding the same items gives their order; other items leave the sorted list.
    expect(inInputOrder(fact, { ids: '["a","b"]' }, { ids: ['b', 'a'] })).toEqual({ ids: '["b","a"]' });
    expect(inInputOrder(fact, { ids: '["a","b"]' }, { ids: ['b', 'c'] })).toEqual({ ids: '["a","b"]' });
    // Parallel lists: both from the inputs or both sorted, never one alone (the pairs would break).
    const pair = f('swapped(old="= sorted({{args.ids}})", new="= sorted({{args.to}})")');
    const bound = { ids: '["a","b"]', to: '["x","y"]' };
    expect(inInputOrder(pair, bound, { ids: ['b', 'a'], to: ['x', 'y'] })).toEqual({
      ids: '["b","a"]',
      to: '["x","y"]',
    });
    expect(inInputOrder(pair, bound, { to: ['y', 'x'] })).toEqual(bound);
  });

  it('matches a precondition against a believed fact with the other args bound', () => {
    const tpl = f('invoice_exists(id={{args.invoice_id}}, customer={{args.customer}})');
    expect(unifyPattern(tpl, f('invoice_exists(id=inv_1, customer=acme)'), { customer: 'acme' })).toEqual({
      customer: 'acme',
      invoice_id: 'inv_1',
    });
    expect(unifyPattern(tpl, f('invoice_exists(id=inv_1, customer=globex)'), { customer: 'acme' })).toBeNull();
  });
});

/** The regex matchValue used to build (lazy groups, backreferences): the reference for its answers on small inputs. */
function regexMatchValue(
  template: string,
  value: string,
  bound: Record<string, string>,
): Record<string, string> | null {
  if (value === '*' || template === '*') return bound;
  const found = templateMatches(template);
  if (found.length === 0) return template === value ? bound : null;
  const esc = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const groups: string[] = [];
  let source = '';
  let last = 0;
  for (const m of found) {
    source += esc(template.slice(last, m.index));
    last = m.index + m.length;
    const parts = m.path.split('.');
    const p = parts.length === 2 && parts[0] === 'args' ? parts[1] : undefined;
    if (p === undefined) source += '[\\s\\S]*?';
    else if (bound[p] !== undefined) source += esc(bound[p]);
    else if (groups.includes(p)) source += `\\k<g${groups.indexOf(p)}>`;
    else {
      source += `(?<g${groups.length}>[\\s\\S]*?)`;
      groups.push(p);
    }
  }
  source += esc(template.slice(last));
  const match = new RegExp(`^${source}$`).exec(value);
  if (!match) return null;
  const out = { ...bound };
  groups.forEach((p, i) => (out[p] = match.groups?.[`g${i}`] ?? ''));
  return out;
}

describe('matchValue without a regex', () => {
  const ch = fc.constantFrom('a', 'b', '-', '/', '{', '}');
  const piece = fc.oneof(
    fc.constantFrom('{{args.a}}', '{{args.b}}', '{{args.c}}', '{{ args.a }}', '{{result.x}}', '{{id}}', '{{', '}}'),
    fc.string({ unit: ch, maxLength: 3 }),
  );

  it('gives the answers of the regex it replaced: same bindings, shortest first (property)', () => {
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 6 }).map((a) => a.join('')),
        fc.string({ unit: ch, maxLength: 10 }),
        fc.dictionary(fc.constantFrom('a', 'b'), fc.string({ unit: ch, maxLength: 3 }), { maxKeys: 2 }),
        (template, value, bound) => {
          expect(matchValue(template, value, bound)).toEqual(regexMatchValue(template, value, bound));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('answers long values at once, with or without repeated parameters', () => {
    const long = `${'a'.repeat(100_000)}!`;
    expect(matchValue('{{args.a}}a{{args.b}}a{{args.c}}a{{result.x}}!', long, {})).toEqual({ a: '', b: '', c: '' });
    expect(matchValue('{{args.a}}b{{args.b}}', long, {})).toBeNull();
    // A repeat can need a search: it stops at the budget with "no match" rather than run on.
    expect(matchValue('{{args.a}}-{{args.a}}-{{args.b}}-{{args.a}}', `${'-'.repeat(100_000)}x`, {})).toBeNull();
    expect(matchValue('x{{args.a}}{{args.b}}{{args.a}}y', `x${'ab'.repeat(50_000)}y`, {})).toEqual({
      a: '',
      b: 'ab'.repeat(50_000),
    });
  });
});

describe('belief', () => {
  it('adds what ok calls establish, rendered with their args and results', () => {
    let v = invoiceWorld();
    v = advance(v, { type: 'call', call: { tool: 'create_invoice', args: { customer: 'acme', amount: 1200 } } });
    expect(believedFacts(v).map(formatFact)).toEqual([
      'customer_exists(customer=acme)',
      'invoice_created(customer=acme)',
      'invoice_exists(customer=acme, id=inv_1)',
    ]);
  });

  it('ignores failed calls and denied approvals, and removes what a call revokes', () => {
    let v = invoiceWorld();
    const gate = { tool: 'request_approval', args: { action: 'send_invoice_email' } };
    v = advance(v, { type: 'call', call: gate }, () => ({ result: { approved: false } }));
    v = advance(v, { type: 'call', call: { tool: 'verify_recipient', args: { email: BOB } } }, () => ({
      status: 'error',
      http_status: 500,
    }));
    expect(believedFacts(v).map(formatFact)).toEqual(['customer_exists(customer=acme)']);
    v = advance(v, { type: 'call', call: { tool: 'create_invoice', args: { customer: 'acme', amount: 1 } } });
    v = advance(v, { type: 'call', call: { tool: 'void_invoice', args: { invoice_id: 'inv_1' } } });
    expect(believedFacts(v).map(formatFact)).toEqual([
      'customer_exists(customer=acme)',
      'invoice_created(customer=acme)',
      'invoice_voided(id=inv_1)',
    ]);
  });

  it('counts a call reconciled as applied as having succeeded', () => {
    let v = emailWorld();
    v = advance(v, { type: 'call', call: { tool: 'send_customer_email', args: { to: BOB } } }, () => ({
      status: 'error',
      http_status: 504,
    }));
    expect(believedFacts(v).map(formatFact)).toEqual([]);
    v = advance(v, { type: 'call', call: { tool: 'get_email_status', args: { to: 'other@x' } } }, () => ({
      result: { applied: true },
    }));
    expect(believedFacts(v).map(formatFact), 'a reconciler asked about other args reports on no call').toEqual([]);
    v = advance(v, { type: 'call', call: { tool: 'get_email_status', args: { to: BOB } } }, () => ({
      result: { applied: true },
    }));
    expect(believedFacts(v).map(formatFact)).toEqual([`email_sent(to=${BOB})`]);
  });
});

describe('argument completion', () => {
  it('binds from an input of the same name, keeping its type', () => {
    const src = planningSources(invoiceWorld());
    expect(completeArgs(createInvoice, { customer: 'acme' }, src)).toEqual({
      args: { customer: 'acme', amount: 1200 },
      unbound: [],
    });
  });

  it('binds a parameter by unifying a precondition with a believed fact', () => {
    let v = invoiceWorld();
    v = { ...v, initial_facts: [...v.initial_facts, 'invoice_exists(id=inv_0, customer=globex)'] };
    v = advance(v, { type: 'call', call: { tool: 'create_invoice', args: { customer: 'acme', amount: 1 } } });
    const src = planningSources(v);
    expect(completeArgs(sendInvoiceEmail, { customer: 'acme', to: BOB }, src).args.invoice_id).toBe('inv_1');
    expect(completeArgs(sendInvoiceEmail, { customer: 'globex', to: BOB }, src).args.invoice_id).toBe('inv_0');
  });

  it('binds x_id from the id of an earlier result of a tool named after x', () => {
    const archive = tool({ name: 'archive_invoice', params: { invoice_id: { type: 'string' } } });
    let v = view({ tools: [createInvoice, archive], goal: ['archived'] });
    const src0 = planningSources(v);
    expect(completeArgs(archive, {}, src0)).toEqual({ args: {}, unbound: ['invoice_id'] });
    v = advance(v, { type: 'call', call: { tool: 'create_invoice', args: { customer: 'acme', amount: 1 } } });
    expect(completeArgs(archive, {}, planningSources(v)).args).toEqual({ invoice_id: 'inv_1' });
  });

  it('uses a schema default or a single enum value', () => {
    const t = tool({ name: 't', params: { mode: { type: 'string', default: 'safe' }, region: { enum: ['eu'] } } });
    expect(completeArgs(t, {}, planningSources(view({ tools: [t], goal: ['x'] }))).args).toEqual({
      mode: 'safe',
      region: 'eu',
    });
  });

  it('turns fact text into the parameter type when binding from the goal', () => {
    const charge = tool({
      name: 'charge',
      params: { amount: { type: 'number' } },
      establishes: ['charged(amount={{args.amount}})'],
    });
    const [o] = optionsFor(
      f('charged(amount=1200)'),
      planningSources(view({ tools: [charge], goal: ['charged(amount=1200)'] })),
    );
    expect(o?.call).toEqual({ tool: 'charge', args: { amount: 1200 } });
  });
});

describe('backward chaining', () => {
  it('plans missing preconditions as nodes the action depends on, leaving result-bound args open', () => {
    const v = invoiceWorld();
    const src = planningSources(v);
    const plan = backwardChain([f(v.goal[0] ?? '')], src, { rank: byClassThenMissing });
    expect(plan.unreachable).toEqual([]);
    expect(plan.nodes.map((n) => [n.id, n.call.tool, n.dependsOn])).toEqual([
      [0, 'create_invoice', []],
      [1, 'verify_recipient', []],
      [2, 'request_approval', []],
      [3, 'send_invoice_email', [0, 1, 2]],
    ]);
    expect(plan.nodes[2]?.call.args).toEqual({ action: 'send_invoice_email' });
    expect(plan.nodes[3]?.unbound).toEqual(['invoice_id']);
    expect(plan.nodes[3]?.preconditions).toContain('invoice_exists(customer=acme, id=*)');
  });

  it('plans a precondition shared by two goals once', () => {
    const gated = (name: string) =>
      tool({
        name,
        class: 'irreversible',
        preconditions: ['human_gate_passed(action=release)'],
        establishes: [`${name}_done`],
      });
    const src = planningSources(view({ tools: [requestApproval, gated('x'), gated('y')], goal: ['x_done', 'y_done'] }));
    const plan = backwardChain([f('x_done'), f('y_done')], src, { rank: byClassThenMissing });
    expect(plan.nodes.map((n) => [n.call.tool, n.dependsOn])).toEqual([
      ['request_approval', []],
      ['x', [0]],
      ['y', [0]],
    ]);
  });

  it('reports a goal unreachable when a precondition has no tool, and survives cycles', () => {
    const a = tool({ name: 'a', preconditions: ['b_done'], establishes: ['a_done'] });
    const b = tool({ name: 'b', preconditions: ['a_done'], establishes: ['b_done'] });
    const src = planningSources(view({ tools: [a, b], goal: ['a_done'] }));
    const plan = backwardChain([f('a_done')], src, { rank: byClassThenMissing });
    expect(plan.nodes).toEqual([]);
    expect(plan.unreachable).toEqual(['a_done']);
    expect(plan.dead_ends).toEqual(['a_done']);
  });

  it('falls back to the next option when the best one cannot be reached', () => {
    const nice = tool({ name: 'nice', preconditions: ['unobtainable'], establishes: ['done'] });
    const ok = tool({ name: 'ok', class: 'compensable', compensating_operation: 'x', establishes: ['done'] });
    const src = planningSources(view({ tools: [nice, ok, voidInvoice], goal: ['done'] }));
    expect(backwardChain([f('done')], src, { rank: byClassThenMissing }).nodes.map((n) => n.call.tool)).toEqual(['ok']);
  });
});
