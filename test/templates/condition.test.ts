/** Conditions and derived values (harness/core/templates/condition.ts): a small parser, no eval. */
import { describe, expect, it } from 'vitest';
import {
  arithmeticValue,
  conditionHolds,
  derivedValue,
  parseCondition,
  renderEffectValue,
  renderedCondition,
} from '../../harness/core/templates/condition.ts';

const ctx = {
  args: { amount: 21.1, cabin: 'business', n: '3', date: '2024-05-15', items: ['a', 'b'], empty: [] },
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
    ['sum({{order.payments}}) == 15.1', true], // 5 + 10.1
    ['sum({{order.payments}}) - 0.1 > 2 * 7.5', false], // 15 > 15
    ['sum({{args.items}}) >= 0', false], // a list of texts has no sum
    ['sum({{user.balance}}) >= 0', false], // nor has a number
    ['sum({{args.empty}}) == 0', true], // an empty list adds to 0
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

describe('and / or', () => {
  it.each([
    ['{{user.balance}} >= {{args.amount}} or {{args.cabin}} == business', true], // false or true
    ['{{user.balance}} >= {{args.amount}} and {{args.cabin}} == business', false], // false and true
    // and binds tighter: true or (false and false) is true; (true or false) and false would be false
    ['{{args.cabin}} == business or {{user.bags}} == 3 and {{user.balance}} == 99', true],
    ['({{args.cabin}} == business or {{user.bags}} == 3) and {{user.balance}} == 99', false],
    ['{{args.cabin}} == economy or {{user.bags}} == 2 and {{user.balance}} == 17', true], // false or (true and true)
    ['{{user.missing}} == x or {{user.bags}} == 2', true], // a missing value falsifies only its own comparison
    ['{{user.missing}} != x or {{user.bags}} == 3', false],
    ['{{user.missing}} != x and {{user.bags}} == 2', false],
    // parentheses around arithmetic, around a comparison, and both
    ['(({{user.balance}} - 7) * 2 == 20)', true],
    ['({{user.balance}} - 7) * 2 == 20 and ({{user.bags}}) == 2', true],
    ['((({{user.balance}} - 7) * 2 == 21) or x == x) and 1 == 1', true],
    ['{{args.cabin}} in [business, first] and 10.1 not in {{order.payments}}', false],
    ['"and" == "and" or "or" == x', true], // quoted, the words are texts
  ])('%s is %s', (text, holds) => {
    expect(parseCondition(text).ok).toBe(true);
    expect(conditionHolds(text, ctx)).toBe(holds);
  });

  it.each([
    ['{{a}} == b and', 'a value is missing at the end'],
    ['{{a}} == and', 'expected a value, found "and"'],
    ['or {{a}} == b', 'expected a value, found "or"'],
    // the reading that got further names the fault, not "expected )" at the first "=="
    ['({{a}} == 1 or {{b}} 2) and {{c}} == 3', 'expected a comparison, found "2"'],
    ['({{a}} == 1 or {{b}} == 2', 'expected ")" at the end'],
    ['{{a}} == 1 and {{b}} == 2 {{c}}', 'unexpected "c"'],
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

describe('sorted(X)', () => {
  const lists = { args: { ids: ['#W10', '#W2', 'b', 'a'], nums: [10, 9, '2.5', 100], mixed: [10, 9, 'x'] } };
  it('sorts numbers numerically, anything else as text, and is a derived value that is a list', () => {
    expect(derivedValue('sorted({{args.nums}})', lists)).toEqual({ ok: true, value: ['2.5', 9, 10, 100] });
    // As text, by character code: "#W10" < "#W2" < "a" < "b"; 10 < 9 < x as texts "10" "9" "x".
    expect(derivedValue('sorted({{args.ids}})', lists)).toEqual({ ok: true, value: ['#W10', '#W2', 'a', 'b'] });
    expect(derivedValue('sorted({{args.mixed}})', lists)).toEqual({ ok: true, value: [10, 9, 'x'] });
    expect(derivedValue('sorted({{args.nope}})', lists)).toEqual({ ok: false, message: '{{args.nope}} has no value' });
    expect(derivedValue('sum(sorted({{args.nums}})) + 1', lists)).toEqual({ ok: true, value: 122.5 });
    expect(renderEffectValue({ ids: '= sorted({{args.ids}})' }, lists)).toEqual({ ids: ['#W10', '#W2', 'a', 'b'] });
    // The list given is not changed.
    expect(lists.args.ids).toEqual(['#W10', '#W2', 'b', 'a']);
  });
  it('is not a number: arithmetic on it has no value, and it compares as a list', () => {
    expect(derivedValue('sorted({{args.nums}}) + 1', lists).ok).toBe(false);
    expect(conditionHolds('sorted({{args.ids}}) == sorted({{args.ids}})', lists)).toBe(true);
    expect(conditionHolds('len(sorted({{args.ids}})) == 4', lists)).toBe(true);
  });
});

describe('a list lookup with no rows', () => {
  it('counts 0 and sums to 0 (an empty list of prices)', () => {
    expect(conditionHolds('len({{rows}}) == 0 and sum({{rows[*].price}}) == 0', { lookups: { rows: [] } })).toBe(true);
  });
});

describe('list elements: within and all(...)', () => {
  const lists = {
    args: { old: ['a', 'b', 'a'], order: ['b', 'a', 'c', 'a'], nums: [1, '2.0'], texts: ['1', 2], empty: [], n: 3 },
    lookups: { rows: [{ p: 1 }, { p: 2 }] },
  };
  it.each([
    ['{{args.old}} within {{args.order}}', true], // a twice (2 in the order), b once
    ['{{args.order}} within {{args.old}}', false], // c is not in it
    ['{{args.old}} not within {{args.order}}', false],
    ['{{args.empty}} within {{args.old}}', true],
    ['{{args.nums}} within {{args.texts}}', true], // 1 == "1", "2.0" == 2: compared as == compares them
    ['{{args.n}} within {{args.old}}', false], // not a list: no value
    ['all(x in {{args.old}}, y in {{args.old}}: {{x}} == {{y}})', true],
    ['all(x in {{args.old}}, y in {{args.order}}: {{x}} != "z")', false], // lengths 3 and 4
    ['all(x in {{args.empty}}: 1 == 2)', true], // nothing to check
    ['all(r in {{rows}}: {{r.p}} < 2)', false],
    ['all(r in {{rows}}: {{r.p}} < 2 or {{r.p}} == 2) and {{args.n}} == 3', true],
    ['all(r in {{args.n}}: 1 == 1)', false], // not a list
    ['all(r in {{rows}}: all(x in {{args.old}}: {{x}} != {{r.p}}))', true],
  ])('%s -> %s', (text, want) => {
    expect(parseCondition(text).ok).toBe(true);
    expect(conditionHolds(text, lists)).toBe(want);
  });

  it.each([
    ['all(x {{args.old}}: 1 == 1)', 'expected "in" after the name "x"'],
    ['all(x in {{args.old}} 1 == 1)', 'expected "," or ":", found "1"'],
    ['all(x in {{args.old}}: 1 == 1', 'expected ")" at the end'],
    ['all(1 in {{args.old}}: 1 == 1)', 'expected a name for the elements'],
    ['{{args.old}} not {{args.order}}', 'expected "in" or "within" after "not"'],
  ])('%s does not parse: %s', (text, message) => {
    const p = parseCondition(text);
    expect(p.ok).toBe(false);
    if (!p.ok) expect(p.message).toContain(message);
  });

  it('a record shows an all(...) with its lists filled in and its bound names as written, a missing value as ?', () => {
    expect(
      renderedCondition(
        'all(r in {{rows}}, x in {{args.old}}: {{r.p}} < {{x}}) and {{args.n}} == {{args.nope}}',
        lists,
      ),
    ).toBe('all(r in [{"p":1},{"p":2}], x in ["a","b","a"]: {{r.p}} < {{x}}) and 3 == ?');
    // Outside an all(...), a template with the same root as a bound name elsewhere is not special.
    expect(renderedCondition('{{r.p}} == 1', { lookups: { r: { p: 1 } } })).toBe('1 == 1');
  });
});

describe('last(X)', () => {
  it('is the last element of a list, in conditions and as a derived value of any type; nothing else has one', () => {
    const c = { args: { ids: ['a', 'b'], rows: [{ o: { k: 1 } }, { o: { k: 2 } }], empty: [], n: 3 } };
    expect(conditionHolds('last({{args.ids}}) == b', c)).toBe(true);
    expect(conditionHolds('last({{args.empty}}) == b or 1 == 1', c)).toBe(true);
    expect(conditionHolds('last({{args.empty}}) != b', c)).toBe(false); // no value
    expect(conditionHolds('last({{args.n}}) != b', c)).toBe(false);
    expect(derivedValue('last({{args.rows[*].o}})', c)).toEqual({ ok: true, value: { k: 2 } });
    expect(derivedValue('last({{args.empty}})', c).ok).toBe(false);
    expect(renderEffectValue({ x: '= last({{args.ids}})' }, c)).toEqual({ x: 'b' });
  });
});

describe('hostile all(...)', () => {
  it('refuses more than 16 lists in one all( with a message, and reads a long one in linear time', () => {
    const many = `all(${Array.from({ length: 17 }, (_, k) => `x${k} in {{args.l}}`).join(', ')}: 1 == 1)`;
    const p = parseCondition(many);
    expect(p.ok).toBe(false);
    if (!p.ok) expect(p.message).toBe('all( takes at most 16 lists');
    // 20,000 conditions joined by and, each an all( over one list: parsed (no quadratic name check).
    const long = Array.from({ length: 20_000 }, (_, k) => `all(x${k} in {{args.l}}: {{x${k}}} == 1)`).join(' and ');
    expect(parseCondition(long).ok).toBe(true);
    expect(conditionHolds(long, { args: { l: [1] } })).toBe(true);
    // A chain of plain comparisons as long: evaluated without recursing once per "and" (it once
    // exhausted the stack: "Maximum call stack size exceeded" at 20,000).
    const plain = Array.from({ length: 20_000 }, () => '{{args.n}} == 1').join(' and ');
    expect(conditionHolds(plain, { args: { n: 1 } })).toBe(true);
    expect(conditionHolds(`${plain} or 1 == 1`, { args: { n: 2 } })).toBe(true);
    expect(conditionHolds(`${plain.replace(/ and /g, ' or ')}`, { args: { n: 2 } })).toBe(false);
  });
});
