/**
 * The loader on the scenario language for real domains (issue 41): a valid file loads, and each
 * mistake is a problem at its place, with a hint.
 */
import { describe, expect, it } from 'vitest';
import { loadScenarioText } from '../../harness/engine/loader/load.ts';
import { LINES_YAML, RETAIL_YAML } from '../helpers/language.ts';

const problems = (text: string) => {
  const r = loadScenarioText(text, 'retail.yaml');
  return r.ok ? [] : r.problems.map((p) => `${p.line}:${p.col} ${p.path}: ${p.message}${p.hint ? ` | ${p.hint}` : ''}`);
};

describe('loading the scenario language', () => {
  it('loads the retail example with no problem', () => {
    expect(problems(RETAIL_YAML)).toEqual([]);
  });

  it('a condition that does not parse is a problem at its character, with the form in the hint', () => {
    const found = problems(
      RETAIL_YAML.replace('when: "{{order.status}} == pending"', 'when: "{{order.status}} = pending"'),
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(
      /^\d+:\d+ tools\[1\]\.preconditions\[1\]\.when: the condition "\{\{order\.status\}\} = pending" does not parse: a single "="/,
    );
    expect(found[0]).toContain('compare with "==", not "="');
  });

  it('a key path is checked as a template of its own, and other brackets are refused; round() takes whole places', () => {
    const text = problems(
      RETAIL_YAML.replace(
        'when: "{{order.status}} == pending"',
        'when: "{{order.totals[nope.cabin]}} == 1 and {{order.totals[args.order_id]}} == 2 and {{order.totals[-1]}} == 3 and {{order.x[a[b]]}} == 1"',
      ),
    ).join('\n');
    expect(text).toContain('the key of {{order.totals[nope.cabin]}}: unknown template root "nope" in {{nope.cabin}}');
    expect(text).not.toContain('order.totals[args.order_id]');
    expect(text).not.toContain('order.totals[-1]');
    expect(text).toContain('{{order.x[a[b]]}}: brackets are written name[*] (every item) or name[root.path]');
    const round = problems(
      RETAIL_YAML.replace('when: "{{order.status}} == pending"', 'when: "round({{order.total}}, 1.5) == 1"'),
    );
    expect(round).toHaveLength(1);
    expect(round[0]).toContain('round(X, N) takes N, the decimal places, as a whole number from 0 to 9');
  });

  it('each: true needs a where value that is one template; [*] projects only over such a list lookup', () => {
    const listed = RETAIL_YAML.replace(
      '      order: { table: orders, where: { order_id: "{{args.order_id}}" } }\n    preconditions',
      '      order: { table: orders, where: { order_id: "{{args.order_id}}" } }\n      rows: { table: orders, where: { order_id: "#{{args.order_id}}" }, each: true }\n    preconditions',
    ).replace(
      'when: "{{order.status}} == pending"',
      'when: "sum({{rows[*].payments}}) == 0 and {{order[*].status}} == x"',
    );
    const text = problems(listed).join('\n');
    expect(text).toContain('lookup "rows" says each: true, but no where value is a lone template that could be a list');
    expect(text).toContain('{{order[*].status}}: order is not a list, so it cannot be projected with [*]');
    expect(text).not.toContain('{{rows[*].payments}}');
  });

  it('for_each: its names are template roots inside do only, never a lookup or root they would hide', () => {
    const looped = RETAIL_YAML.replace(
      '      - establish: "cancelled(order={{args.order_id}})"\n',
      '      - establish: "cancelled(order={{args.order_id}})"\n' +
        '      - for_each: { in: "{{args.reason}}", as: order, zip: { x: "{{args.order_id}}", args: "{{args.reason}}" }, do: [ { establish: "noted(x={{x}}, y={{y}})" }, { if: "{{x}} == 1 or {{y}} == 2", revoke: "noted(x={{x}})" } ] }\n' +
        '      - establish: "after(x={{x}})"\n',
    );
    const found = problems(looped);
    const text = found.join('\n');
    expect(text).toContain('effects[2].for_each.as: the for_each name "order" is a lookup of the tool');
    expect(text).toContain('effects[2].for_each.zip.args: the for_each name "args" is a template root of its own');
    expect(text).toContain('effects[2].for_each.do[0].establish: unknown template root "y" in {{y}}');
    expect(text).toContain('effects[2].for_each.do[1].if: unknown template root "y" in {{y}}');
    expect(text).toContain('effects[3].establish: unknown template root "x" in {{x}}');
    // {{x}} inside the loop is known: no problem names it there.
    expect(found.filter((p) => p.includes('for_each.do') && p.includes('{{x}}'))).toEqual([]);
    const empty = problems(
      RETAIL_YAML.replace(
        '      - establish: "cancelled(order={{args.order_id}})"\n',
        '      - establish: "cancelled(order={{args.order_id}})"\n      - for_each: { in: "{{args.reason}}", as: z, do: [] }\n',
      ),
    );
    expect(empty.join('\n')).toContain('effects[2].for_each.do: must not be empty');
  });

  it('a condition over a lookup the tool does not declare is a template problem', () => {
    const found = problems(
      RETAIL_YAML.replace('when: "{{order.status}} == pending"', 'when: "{{ordr.status}} == pending"'),
    );
    expect(found.join('\n')).toContain('unknown template root "ordr" in {{ordr.status}}');
    expect(found.join('\n')).toContain('did you mean "order"?');
  });

  it('a lookup reads a known table, under a name that is not a template root; a where reads earlier lookups only', () => {
    const found = problems(
      RETAIL_YAML.replace(
        '      order: { table: orders, where: { order_id: "{{args.order_id}}" } }\n    preconditions',
        '      args: { table: order, where: { order_id: "{{user.x}}" } }\n    preconditions',
      ),
    );
    const text = found.join('\n');
    expect(text).toContain('the lookup name "args" is a template root of its own');
    expect(text).toContain('lookup "args" reads no table "order"');
    expect(text).toContain('did you mean "orders"?');
    expect(text).toContain('unknown template root "user" in {{user.x}}');
  });

  it('a derived value that does not parse is a problem', () => {
    const text = problems(
      RETAIL_YAML.replace('"= {{user.gift_card_balance}} - {{args.amount}}"', '"= {{user.gift_card_balance}} -"'),
    ).join('\n');
    expect(text).toContain(
      'the derived value "= {{user.gift_card_balance}} -" does not parse: a value is missing at the end',
    );
  });

  it('a derived fact value is checked like a derived set value; one that parses loads', () => {
    const derived = (v: string) =>
      RETAIL_YAML.replace(
        'establish: "exchanged(order={{args.order_id}})"',
        `establish: 'exchanged(order={{args.order_id}}, items="${v}")'`,
      );
    expect(problems(derived('= sorted({{args.order_id}})'))).toEqual([]);
    expect(problems(derived('= sorted({{args.order_id}}'))).toEqual([
      expect.stringMatching(
        /effects\[\d+\]\.establish\.items: the derived value "= sorted\(\{\{args\.order_id\}\}" does not parse/,
      ),
    ]);
  });

  it('an update needs set, append, set_element or remove; remove values are checked like set', () => {
    const text = problems(RETAIL_YAML.replace(', append: { payments: "{{args.amount}}" }', '')).join('\n');
    expect(text).toContain('an update needs set, append, set_element or remove');
    const removed = problems(
      RETAIL_YAML.replace(', append: { payments: "{{args.amount}}" }', ', remove: { payments: "= {{args.amount}} *" }'),
    ).join('\n');
    expect(removed).not.toContain('an update needs');
    expect(removed).toContain('remove.payments: the derived value "= {{args.amount}} *" does not parse');
  });

  it('confirmations: a tool that requires one needs a confirmation tool; the table names tools that require one', () => {
    const noAsker = problems(RETAIL_YAML.replace('    kind: confirmation\n', '')).join('\n');
    expect(noAsker).toContain('"cancel_pending_order" requires a confirmation, but no tool asks for one');
    const unknown = problems(RETAIL_YAML.replace('- { tool: exchange,', '- { tool: exchang,')).join('\n');
    expect(unknown).toContain('confirmations names no declared tool "exchang"');
    const needless = problems(RETAIL_YAML.replace('- { tool: exchange,', '- { tool: book,')).join('\n');
    expect(needless).toContain('confirmations names "book", which does not require a confirmation');
  });

  it('a tool may be its own compensation only with a before-image', () => {
    expect(
      problems(RETAIL_YAML.replace('address: "{{before.order.address}}"', 'address: "{{order.address}}"')).join('\n'),
    ).toContain('"update_address" names itself as its compensating operation');
    expect(problems(RETAIL_YAML.replace('{{before.order.address}}', '{{before.ordr.address}}')).join('\n')).toContain(
      '{{before.ordr.address}}: {{before.NAME.field}} reads a row the tool looks up, and "ordr" is not one',
    );
  });

  it('fact names starting "oneway." are reserved', () => {
    expect(
      problems(
        RETAIL_YAML.replace('goal: ["cancelled(order={{inputs.order}})"]', 'goal: ["oneway.when(check=x)"]'),
      ).join('\n'),
    ).toContain('the fact "oneway.when(check=x)" uses a reserved name');
  });
});

describe('loading list elements: within, all(...), set_element, ignore_case', () => {
  it('loads the order-lines example with no problem', () => {
    expect(problems(LINES_YAML)).toEqual([]);
  });

  it("all(...)'s names are template roots inside it only, never a lookup or root they would hide, never twice", () => {
    const text = problems(
      LINES_YAML.replace(
        'when: "all(old in {{args.item_ids}}, new in {{args.new_item_ids}}: {{old}} != {{new}})"',
        'when: "all(order in {{args.item_ids}}, args in {{args.new_item_ids}}: {{order}} != 1) and {{old}} == 1"',
      ),
    ).join('\n');
    expect(text).toContain('unknown template root "old" in {{old}}');
    // With {{old}} fixed, the names themselves.
    const names = problems(
      LINES_YAML.replace(
        'when: "all(old in {{args.item_ids}}, new in {{args.new_item_ids}}: {{old}} != {{new}})"',
        'when: "all(order in {{args.item_ids}}, args in {{args.new_item_ids}}: {{order}} != 1)"',
      ),
    ).join('\n');
    expect(names).toContain('preconditions[2].when: the all( name "order" is a lookup or loop name already');
    expect(names).toContain('preconditions[2].when: the all( name "args" is a template root of its own');
    const twice = problems(
      LINES_YAML.replace(
        'when: "all(old in {{args.item_ids}}, new in {{args.new_item_ids}}: {{old}} != {{new}})"',
        'when: "all(x in {{args.item_ids}}: all(x in {{args.new_item_ids}}: {{x}} != 1))"',
      ),
    ).join('\n');
    expect(twice).toContain('the all( name "x" is given twice');
    // More names than 64 in one condition: one problem, not a check of every template against each.
    const many = Array.from({ length: 65 }, (_, k) => `all(x${k} in {{args.item_ids}}: {{x${k}}} != z)`).join(' and ');
    const crowded = problems(
      LINES_YAML.replace(
        'when: "all(old in {{args.item_ids}}, new in {{args.new_item_ids}}: {{old}} != {{new}})"',
        `when: "${many}"`,
      ),
    ).join('\n');
    expect(crowded).toContain('preconditions[2].when: the condition names 65 all( elements; at most 64');
  });

  it('an all(...) or within that does not parse is a problem at its character', () => {
    const found = problems(
      LINES_YAML.replace(
        'when: "all(old in {{args.item_ids}}, new in {{args.new_item_ids}}: {{old}} != {{new}})"',
        'when: "all(old in {{args.item_ids}} {{old}} != 1)"',
      ).replace(
        'when: "{{args.item_ids}} within {{order.items[*].item_id}}"\n    effects',
        'when: "{{args.item_ids}} not {{order.items[*].item_id}}"\n    effects',
      ),
    );
    const text = found.join('\n');
    expect(text).toMatch(/preconditions\[2\]\.when: the condition .* does not parse: expected "," or ":", found "old"/);
    expect(text).toContain('does not parse: expected "in" or "within" after "not"');
  });

  it('ignore_case names where keys only; set_element values are checked like set', () => {
    const text = problems(
      LINES_YAML.replace('ignore_case: [email] }\n    effects', 'ignore_case: [emial] }\n    effects').replace(
        'price: "{{variant.price}}",',
        'price: "= {{variant.price}} *",',
      ),
    ).join('\n');
    expect(text).toContain('lookup "user" ignores the case of "emial", which is not one of its where keys');
    expect(text).toContain('did you mean "email"?');
    expect(text).toContain('set_element.items.set.price: the derived value "= {{variant.price}} *" does not parse');
    // A template in set_element reads the loop's names like any effect in do.
    expect(
      problems(LINES_YAML.replace('where: { item_id: "{{old}}" }', 'where: { item_id: "{{olde}}" }')).join('\n'),
    ).toContain('unknown template root "olde" in {{olde}}');
  });
});
