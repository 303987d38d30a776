/** Conditions and derived values (harness/core/templates/condition.ts): a small parser, no eval. */
import { describe, expect, it } from 'vitest';
import { arithmeticValue, conditionHolds, parseCondition } from '../../harness/core/templates/condition.ts';

const ctx = {
  args: { amount: 21.1, cabin: 'business', n: '3', date: '2024-05-15', items: ['a', 'b'] },
  lookups: { user: { balance: 17, bags: 2 }, order: { status: 'pending (item modified)', payments: [5, 10.1] } },
};

describe('conditions', () => {
  it.each([
    ['{{user.balance}} >= {{args.amount}}', false],
    ['{{user.balance}} + 5 >= {{args.amount}}', true],
    ['({{user.balance}} - 7) * 2 == 20', true],
    ['0.1 + 0.2 == 0.3', true],
    ['{{args.n}} > 10', false], // "3" is a number: 3 > 10 is false (as text, "3" > "10" would be true)
    ['{{args.cabin}} in [business, first]', true],
    ['{{args.cabin}} not in [business, first]', false],
    ['10.1 in {{order.payments}}', true],
    ['len({{args.items}}) == 2', true],
    ['len({{order.payments}}) < {{user.bags}}', false],
    ['{{order.status}} == "pending (item modified)"', true],
    ['{{args.date}} >= 2024-05-01', true], // a date is a word, compared as text
    ['{{args.date}} < 2024-05-01', false],
    ['{{user.missing}} == ""', false], // a missing value: false, whatever the comparison
    ['{{user.missing}} != x', false],
    ['{{args.cabin}} + 1 > 0', false], // arithmetic on text: no value
    ['{{user.balance}} / 0 > 1', false],
  ])('%s is %s', (text, holds) => {
    expect(parseCondition(text).ok).toBe(true);
    expect(conditionHolds(text, ctx)).toBe(holds);
  });

  it.each([
    ['{{a}} = b', 'a single "="'],
    ['{{a}} == ', 'a value is missing at the end'],
    ['{{a}}', 'a condition needs a comparison'],
    ['{{a}} == b c', 'unexpected "c"'],
    ['({{a}} == b', 'expected ")"'],
    ['{{a} == b', 'a template is not closed'],
  ])('%s does not parse: %s', (text, message) => {
    const r = parseCondition(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toContain(message);
  });
});

describe('hostile conditions', () => {
  it('refuses nesting past 64 levels with a message, never exhausting the stack', () => {
    for (const text of [`${'('.repeat(100_000)}1${')'.repeat(100_000)} == 1`, `${'- '.repeat(100_000)}1 == 1`]) {
      const r = parseCondition(text);
      expect(r.ok ? 'parsed' : r.message).toBe('nested more than 64 levels deep');
    }
  });
});

describe('derived values', () => {
  it('computes a number, rounded to 9 places, or says why there is none', () => {
    expect(arithmeticValue('{{user.balance}} - {{args.amount}}', ctx)).toEqual({ ok: true, value: -4.1 });
    expect(arithmeticValue('-{{user.bags}} + 1', ctx)).toEqual({ ok: true, value: -1 });
    expect(arithmeticValue('{{args.cabin}} * 2', ctx)).toEqual({ ok: false, message: '"business" is not a number' });
    expect(arithmeticValue('{{user.nope}} + 1', ctx)).toEqual({ ok: false, message: '{{user.nope}} has no value' });
  });
});
