import { describe, expect, it } from 'vitest';
import { loadScenarioText } from '../../harness/engine/loader/load.ts';
import { brief, problemsOf, TINY, tinyWith } from './helpers.ts';

describe('schema problems', () => {
  it('are positioned at the offending value, line and column exact', () => {
    const text = [
      'id: tiny', //                      1
      'title: Tiny', //                   2
      'task: Email bob.', //              3
      'tools:', //                        4
      '  - name: send_email', //          5
      '    reversibility: irreversible', // 6
      '    latency_ms: fast', //          7 (value at col 17)
      'goal: [done]', //                  8
      'max_steps: 0', //                  9 (value at col 12)
    ].join('\n');
    expect(brief(problemsOf(text))).toEqual([
      { code: 'schema', path: 'tools[0].latency_ms', line: 7, col: 17 },
      { code: 'schema', path: 'max_steps', line: 9, col: 12 },
    ]);
  });

  it('say what was expected and what was found', () => {
    const [p] = problemsOf(TINY.replace('title: Tiny', 'title: [Tiny]'));
    expect(p).toMatchObject({ path: 'title', line: 2, col: 8, message: 'expected a string, got a list' });
  });

  it('point a missing required field at the object that lacks it', () => {
    const text = 'id: tiny\ntitle: Tiny\ntask: T\ntools:\n  - name: a\n    read_only: true\ngoal: [done]\n';
    const [p] = problemsOf(text);
    expect(p).toMatchObject({
      code: 'schema',
      path: 'tools[0].reversibility',
      line: 5,
      col: 5,
      message: 'missing required field "reversibility"',
    });
    expect(p?.hint).toMatch(/Exactly one class/);
  });

  it('report an unknown key at the key, with a did-you-mean against the keys allowed there', () => {
    const text = TINY.replace('    read_only: true\n', '    read_only: true\n    compensating_op: null\n');
    const [p] = problemsOf(text, 'k.yaml');
    expect(p).toMatchObject({
      code: 'unknown_key',
      file: 'k.yaml',
      path: 'tools[0].compensating_op',
      line: 11,
      col: 5,
    });
    expect(p?.hint).toBe('did you mean "compensating_operation"?');
  });

  it('give one problem per unknown key', () => {
    const ps = problemsOf(TINY.replace('title: Tiny', 'title: Tiny\ntitel: x\ntaks: y'));
    expect(ps.map((p) => [p.code, p.path, p.line, p.col, p.hint])).toEqual([
      ['unknown_key', 'titel', 3, 1, 'did you mean "title"?'],
      ['unknown_key', 'taks', 4, 1, 'did you mean "tags" or "task"?'],
    ]);
  });

  it('say where a key belongs when it is valid elsewhere', () => {
    const [p] = problemsOf(TINY.replace('    read_only: true\n', '    read_only: true\n    goal: [x]\n'));
    expect(p).toMatchObject({ code: 'unknown_key', path: 'tools[0].goal', hint: '"goal" is a top-level scenario key' });
  });

  it('suggest the class a misspelt class meant', () => {
    const [p] = problemsOf(TINY.replace('reversibility: irreversible', 'reversibility: irreversable'));
    expect(p).toMatchObject({
      code: 'invalid_enum',
      path: 'tools[1].reversibility',
      line: 14,
      col: 20,
      message: '"irreversable" is not a valid value',
    });
    expect(p?.hint).toBe(
      'did you mean "irreversible"? expected one of reversible | compensable | irreversible, or a list of {when, class} rules',
    );
  });

  it('describe a reversibility that is neither a class nor a list of rules', () => {
    const [p] = problemsOf(TINY.replace('reversibility: irreversible', 'reversibility: 3'));
    expect(p?.message).toBe(
      'expected one of reversible | compensable | irreversible, or a list of {when, class} rules, got the number 3',
    );
  });

  it('look inside a list of class rules for the misspelt class', () => {
    const text = tinyWith((d) => {
      d.deployment = { pitr_hours: 72 };
      d.tools[1].reversibility = [
        { when: 'deployment.pitr_hours >= 24', class: 'compensible' },
        { class: 'irreversible' },
      ];
    });
    const [p] = problemsOf(text);
    expect(p).toMatchObject({ code: 'invalid_enum', path: 'tools[1].reversibility[0].class' });
    expect(p?.hint).toBe('did you mean "compensable"? expected reversible | compensable | irreversible');
  });

  it('suggest approval answers', () => {
    const [p] = problemsOf(TINY.replace('send_email: approve }', 'send_email: aprove }'));
    expect(p).toMatchObject({ code: 'invalid_enum', path: 'approvals.send_email', line: 6, col: 26 });
    expect(p?.hint).toMatch(/^did you mean "approve"\? expected approve \| deny \| \{approve_after: N\}/);
    const [q] = problemsOf(TINY.replace('send_email: approve }', 'send_email: { approve_after: soon } }'));
    expect(q).toMatchObject({
      code: 'schema',
      path: 'approvals.send_email.approve_after',
      message: 'expected a number, got the string "soon"',
    });
  });

  it('are all reported at once', () => {
    const text = tinyWith((d) => {
      d.id = 'Tiny Scenario';
      d.tools[0].reversibility = 'revers';
      d.tools[1].colour = 'red';
      d.goal = [];
      d.max_steps = 'many';
    });
    const ps = problemsOf(text);
    expect(ps.map((p) => p.path)).toEqual(['id', 'tools[0].reversibility', 'tools[1].colour', 'goal', 'max_steps']);
    expect(ps[0]).toMatchObject({ message: expect.stringContaining('kebab-case'), hint: 'try "tiny-scenario"' });
    // Problems come in reading order.
    const lines = ps.map((p) => p.line);
    expect([...lines].sort((a, b) => a - b)).toEqual(lines);
  });

  it('call an empty file empty', () => {
    const r = loadScenarioText('# nothing here\n', 'empty.yaml');
    expect(r.ok ? [] : r.problems).toMatchObject([{ code: 'schema', message: 'the file is empty', line: 1, col: 1 }]);
  });

  it('never throw, whatever the input', () => {
    for (const text of ['[1, 2]', '"just a string"', '42', 'tools: 5', 'id: {a: [b: c]}', '\t- x', ': :']) {
      const r = loadScenarioText(text, 'x.yaml');
      expect(r.ok).toBe(false);
    }
  });
});

describe('table names', () => {
  // A table is named statically (reads:, lint, recover, the oracle): a template there would be matched as text.
  const HINT = /table names are fixed, so put the varying part in a value/;

  it('refuse a template in an effect table, at its position, rather than matching it as text', () => {
    const text = [
      'id: drop-row', //                                                                1
      'title: Drop a row', //                                                           2
      'task: Delete the row of acme.', //                                               3
      'world: { tables: { customers: [{ name: acme }] } }', //                          4
      'tools:', //                                                                      5
      '  - name: delete_row', //                                                        6
      '    reversibility: irreversible', //                                             7
      '    parameters: { type: object, properties: { table: { type: string }, name: { type: string } } }', // 8
      '    effects:', //                                                                9
      '      - delete: { table: "{{args.table}}", where: { name: "{{args.name}}" } }', // 10 (value at col 26)
      'goal: [done]', //                                                                11
    ].join('\n');
    const [p, ...rest] = problemsOf(text, 'drop.yaml');
    expect(rest).toEqual([]);
    expect(p).toMatchObject({
      code: 'schema',
      file: 'drop.yaml',
      line: 10,
      col: 26,
      path: 'tools[0].effects[0].delete.table',
      message: '"{{args.table}}" is not valid: templates are not rendered in a table name',
    });
    expect(p?.hint).toMatch(HINT);
  });

  it('refuse a template anywhere in the table of insert and update, and in reads', () => {
    const text = tinyWith((d) => {
      d.tools[0].reads = ['{{args.email}}'];
      d.tools[1].effects[0].insert.table = 'outbox_{{args.to}}';
      d.tools[1].effects.push({ update: { table: '{{ inputs.email }}', where: {}, set: {} } });
    });
    const ps = problemsOf(text);
    expect(ps.map((p) => [p.path, p.message])).toEqual([
      ['tools[0].reads[0]', '"{{args.email}}" is not valid: templates are not rendered in a table name'],
      [
        'tools[1].effects[0].insert.table',
        '"outbox_{{args.to}}" is not valid: templates are not rendered in a table name',
      ],
      [
        'tools[1].effects[2].update.table',
        '"{{ inputs.email }}" is not valid: templates are not rendered in a table name',
      ],
    ]);
    for (const p of ps) expect(p.hint).toMatch(HINT);
  });

  it('refuse a template in a world table name, at the key', () => {
    const text = TINY.replace(
      'world: { facts: [customer_exists(customer=acme)] }',
      'world: { tables: { "{{inputs.email}}": [] } }',
    );
    const [p, ...rest] = problemsOf(text);
    expect(rest).toEqual([]);
    expect(p).toMatchObject({
      code: 'schema',
      path: 'world.tables.{{inputs.email}}',
      line: 5,
      col: 20,
      message: 'the key "{{inputs.email}}" is not valid: templates are not rendered in a table name',
    });
    expect(p?.hint).toMatch(HINT);
  });
});
