import { describe, expect, it } from 'vitest';
import { brief, loaded, problemsOf, TINY, tinyWith } from './helpers.ts';

const REVERSIBLE_PAIR = (d: Record<string, any>) => {
  d.tools.push(
    {
      name: 'add_row',
      reversibility: 'reversible',
      compensating_operation: 'remove_row',
      compensation_args: { id: '{{result.id}}' },
      parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      effects: [{ insert: { table: 'rows', row: { id: '{{result.id}}', name: '{{args.name}}' } } }],
      returns: { id: 'row_{{id}}' },
    },
    {
      name: 'remove_row',
      reversibility: 'reversible',
      compensating_operation: 'add_row',
      compensation_args: { name: '{{args.name}}' },
      parameters: {
        type: 'object',
        properties: { id: { type: 'string' }, name: { type: 'string' } },
        required: ['id'],
      },
      effects: [{ delete: { table: 'rows', where: { id: '{{args.id}}' } } }],
    },
  );
};

describe('whole-scenario checks', () => {
  it('accept the tiny scenario', () => {
    const l = loaded(TINY, 'tiny.yaml');
    expect(l.scenario.tools.map((t) => t.name)).toEqual(['verify_recipient', 'send_email']);
    expect(l.file).toBe('tiny.yaml');
    expect(l.locate(['tools', 1, 'name'])).toEqual({ line: 13, col: 11 });
  });

  it('report a duplicate tool name at the repeat, naming the first', () => {
    const text = TINY.replace('  - name: send_email', '  - name: verify_recipient');
    const ps = problemsOf(text);
    expect(ps.find((p) => p.code === 'duplicate')).toMatchObject({
      path: 'tools[1].name',
      line: 13,
      col: 11,
      message: 'tool "verify_recipient" is declared twice (first at line 8)',
    });
  });

  it('report an effect with no key or several keys', () => {
    const text = tinyWith((d) => {
      d.tools[1].effects.push({}, { establish: 'a', revoke: 'b' });
    });
    expect(problemsOf(text).map((p) => [p.path, p.message])).toEqual([
      ['tools[1].effects[2]', 'an effect needs one of insert, update, delete, establish, revoke or for_each'],
      ['tools[1].effects[3]', 'an effect has exactly one key; this one has establish and revoke'],
    ]);
  });

  it('report reads on a tool that is not read_only, and a table no one names, with a hint', () => {
    const text = tinyWith((d) => {
      d.tools[1].reads = ['outbox'];
      d.tools[0].reads = ['outbx', 'ledger'];
    });
    expect(problemsOf(text).map((p) => [p.path, p.message, p.hint])).toEqual([
      [
        'tools[0].reads[0]',
        'reads names no table "outbx"',
        'did you mean "outbox"? tables (world.tables and tool effects): outbox',
      ],
      ['tools[0].reads[1]', 'reads names no table "ledger"', 'tables (world.tables and tool effects): outbox'],
      [
        'tools[1].reads',
        'tool "send_email" reads tables but is not read_only',
        'a tool that shows the state changes none of it: add read_only: true',
      ],
    ]);
  });

  it('accept a read-only tool that reads a table a tool writes', () => {
    const text = tinyWith((d) => {
      d.tools[0].reads = ['outbox'];
    });
    expect(loaded(text).scenario.tools[0]?.reads).toEqual(['outbox']);
  });

  it('report a fault with neither or both of on_call and probability', () => {
    const text = tinyWith((d) => {
      d.tools[1].faults = [{ status: 504 }, { on_call: 1, probability: 0.5 }, { on_call: 2 }, { probability: 0.1 }];
    });
    expect(problemsOf(text).map((p) => [p.path, p.message])).toEqual([
      ['tools[1].faults[0]', 'a fault needs on_call or probability'],
      ['tools[1].faults[1]', 'a fault has on_call or probability, not both'],
    ]);
  });

  it('report a read_only tool that changes a table', () => {
    const text = tinyWith((d) => {
      d.tools[0].effects.push({ insert: { table: 'log', row: { x: 1 } } });
    });
    expect(problemsOf(text)).toMatchObject([
      { code: 'schema', path: 'tools[0].effects[1].insert', message: expect.stringContaining('read_only') },
    ]);
  });

  it('require an approval tool to take an action parameter', () => {
    const text = tinyWith((d) => {
      d.tools.push({
        name: 'ask',
        kind: 'approval',
        reversibility: 'reversible',
        read_only: true,
        parameters: { type: 'object', properties: { what: { type: 'string' } } },
      });
    });
    expect(problemsOf(text)).toMatchObject([
      { code: 'schema', path: 'tools[2].parameters', message: 'approval tool "ask" has no parameter "action"' },
    ]);
  });

  it('report a required parameter that is not declared', () => {
    const text = tinyWith((d) => {
      d.tools[1].parameters.required = ['to', 'too'];
    });
    expect(problemsOf(text)).toMatchObject([
      { path: 'tools[1].parameters.required[1]', hint: expect.stringContaining('did you mean "to"?') },
    ]);
  });

  it('accept approvals for actions no tool asks about', () => {
    expect(loaded(tinyWith((d) => (d.approvals.deploy_prod = 'deny'))).scenario.approvals).toMatchObject({
      deploy_prod: 'deny',
    });
  });
});

describe('compensation checks', () => {
  it('accept two tools that compensate each other (insert and delete)', () => {
    expect(loaded(tinyWith(REVERSIBLE_PAIR)).scenario.tools).toHaveLength(4);
  });

  it('report a compensation that names a missing tool, with a did-you-mean', () => {
    const text = tinyWith((d) => {
      REVERSIBLE_PAIR(d);
      d.tools[2].compensating_operation = 'remove_rows';
    });
    expect(problemsOf(text)).toMatchObject([
      {
        code: 'unknown_tool',
        path: 'tools[2].compensating_operation',
        message: 'compensating_operation names no declared tool "remove_rows"',
        hint: expect.stringMatching(/^did you mean "remove_row"\?/),
      },
    ]);
  });

  it('report an irreversible tool that names a compensation', () => {
    const text = tinyWith((d) => {
      REVERSIBLE_PAIR(d);
      d.tools[1].compensating_operation = 'remove_row';
    });
    expect(problemsOf(text)).toMatchObject([
      {
        code: 'compensation',
        path: 'tools[1].compensating_operation',
        message: expect.stringContaining('irreversible tool "send_email" names a compensating operation'),
      },
    ]);
  });

  it('accept compensating_operation: null on an irreversible tool', () => {
    expect(
      loaded(tinyWith((d) => (d.tools[1].compensating_operation = null))).scenario.tools[1]?.compensating_operation,
    ).toBeNull();
  });

  it('report a tool that names itself as its compensation', () => {
    const text = tinyWith((d) => {
      REVERSIBLE_PAIR(d);
      d.tools[2].compensating_operation = 'add_row';
    });
    expect(problemsOf(text).map((p) => [p.code, p.path])).toContainEqual([
      'compensation',
      'tools[2].compensating_operation',
    ]);
    expect(problemsOf(text)[0]?.message).toBe('"add_row" names itself as its compensating operation');
  });

  it('require a compensation for a reversible or compensable tool that changes state', () => {
    const text = tinyWith((d) => {
      d.tools[1].reversibility = 'compensable';
    });
    expect(problemsOf(text)).toMatchObject([
      {
        code: 'compensation',
        path: 'tools[1].reversibility',
        message: 'compensable tool "send_email" changes state but names no compensating_operation',
      },
    ]);
  });

  it('require a compensation when any class rule makes the tool undoable', () => {
    const text = tinyWith((d) => {
      d.deployment = { pitr_hours: 72 };
      d.tools[1].reversibility = [
        { when: 'deployment.pitr_hours >= 24', class: 'reversible' },
        { class: 'irreversible' },
      ];
    });
    expect(problemsOf(text)).toMatchObject([{ code: 'compensation', path: 'tools[1].reversibility' }]);
  });

  it('check compensation_args against the compensating tool parameters', () => {
    const text = tinyWith((d) => {
      REVERSIBLE_PAIR(d);
      d.tools[2].compensation_args = { idd: '{{result.id}}' };
    });
    expect(problemsOf(text).map((p) => [p.path, p.message])).toEqual([
      ['tools[2].compensation_args.idd', '"idd" is not a parameter of the compensating tool remove_row'],
      ['tools[2].compensation_args', 'compensation_args lacks id, required by remove_row'],
    ]);
  });

  it('report reconciles naming an undeclared tool', () => {
    const text = tinyWith((d) => {
      d.tools[0].reconciles = ['send_emails'];
    });
    expect(problemsOf(text)).toMatchObject([
      {
        code: 'unknown_tool',
        path: 'tools[0].reconciles[0]',
        hint: expect.stringMatching(/^did you mean "send_email"\?/),
      },
    ]);
  });
});

describe('key_survives_failure', () => {
  it('is a load error at its line on a tool that declares no idempotency_key, with a hint', () => {
    const text = TINY.replace(
      '    reversibility: irreversible\n',
      '    reversibility: irreversible\n    key_survives_failure: true\n',
    );
    const ps = problemsOf(text);
    expect(ps).toEqual([
      {
        code: 'schema',
        file: 'test.yaml',
        line: 15,
        col: 27,
        path: 'tools[1].key_survives_failure',
        message:
          'key_survives_failure: send_email declares no idempotency_key, so there is no key for its server to keep',
        hint: 'name the parameter that carries the key (idempotency_key: PARAM, one of to), or remove key_survives_failure',
      },
    ]);
  });

  it('loads with an idempotency_key, and false needs none', () => {
    const withKey = TINY.replace(
      '    reversibility: irreversible\n',
      '    reversibility: irreversible\n    key_survives_failure: true\n    idempotency_key: key\n',
    ).replace(
      'properties: { to: { type: string } }, required: [to]',
      'properties: { to: { type: string }, key: { type: string } }, required: [to]',
    );
    expect(loaded(withKey).scenario.tools[1]).toMatchObject({ key_survives_failure: true, idempotency_key: 'key' });
    const off = TINY.replace(
      '    reversibility: irreversible\n',
      '    reversibility: irreversible\n    key_survives_failure: false\n',
    );
    expect(loaded(off).scenario.tools[1]?.key_survives_failure).toBe(false);
  });
});

describe('fact checks', () => {
  it('report a fact that does not parse, at the character where it fails', () => {
    // world facts: `customer_exists(customer=acme` lacks its ")": parseFact fails at offset 29 (the end).
    const text = TINY.replace('[customer_exists(customer=acme)]', '["customer_exists(customer=acme"]');
    const [p] = problemsOf(text);
    // Line 5 is `world: { facts: ["customer_exists(customer=acme"] }`: the quote is at col 18.
    expect(p).toMatchObject({ code: 'fact_syntax', path: 'world.facts[0]', line: 5, col: 18 + 1 + 29 });
    expect(p?.message).toContain('expected "," or ")"');
  });

  it('check facts in preconditions, effects, goal and forbidden', () => {
    const text = tinyWith((d) => {
      d.tools[1].preconditions = ['(no name)'];
      d.tools[1].effects[1] = { establish: 'sent(to=)' };
      d.goal = ['done(=1)'];
      d.forbidden = ['leak(x=1))'];
    });
    expect(problemsOf(text).map((p) => [p.code, p.path])).toEqual([
      ['fact_syntax', 'tools[1].preconditions[0]'],
      ['fact_syntax', 'tools[1].effects[1].establish'],
      ['fact_syntax', 'goal[0]'],
      ['fact_syntax', 'forbidden[0]'],
    ]);
  });
});

describe('a fact that a [...] list split at its ","', () => {
  // Line 15 of TINY is `    preconditions: ["recipient_verified(email={{args.to}})"]`; the list opens at col 20.
  const withPreconditions = (list: string) =>
    TINY.replace('preconditions: ["recipient_verified(email={{args.to}})"]', `preconditions: ${list}`);

  it('is reported once, at its first piece, with the line that quotes the whole fact', () => {
    const ps = problemsOf(withPreconditions('[paid(vendor=acme, amount=10)]'));
    expect(ps).toHaveLength(1);
    expect(ps[0]).toMatchObject({
      code: 'fact_syntax',
      path: 'tools[1].preconditions[0]',
      line: 15,
      col: 21,
      message: 'the fact paid(vendor=acme, amount=10) was split into 2 list items at its ","',
      hint: 'in [...] YAML ends an item at ","; quote the whole fact: preconditions: ["paid(vendor=acme, amount=10)"]',
    });
    // Quoting the values, as the old hint said, does not help: the list still splits at the ",".
    expect(problemsOf(withPreconditions('[paid(vendor="acme", amount="10")]'))[0]?.hint).toBe(
      `in [...] YAML ends an item at ","; quote the whole fact: preconditions: ['paid(vendor="acme", amount="10")']`,
    );
  });

  it('keeps the other facts of the list in the corrected line, and finds a "," inside a quoted value', () => {
    const ps = problemsOf(withPreconditions('[ready(a=1), paid(vendor="acme, inc", amount=10)]'));
    expect(ps.map((p) => [p.path, p.message, p.hint])).toEqual([
      [
        'tools[1].preconditions[1]',
        'the fact paid(vendor="acme, inc", amount=10) was split into 3 list items at its ","',
        `in [...] YAML ends an item at ","; quote the whole fact: preconditions: ["ready(a=1)", 'paid(vendor="acme, inc", amount=10)']`,
      ],
    ]);
  });

  it('is not guessed across lines: items written apart are reported as written', () => {
    const ps = problemsOf(withPreconditions('\n      - paid(vendor=acme\n      - amount=10)'));
    expect(ps.map((p) => [p.path, p.hint])).toEqual([
      ['tools[1].preconditions[0]', expect.stringContaining('a fact is name(key=value, ...)')],
      ['tools[1].preconditions[1]', expect.stringContaining('a fact is name(key=value, ...)')],
    ]);
  });

  it('holding templates, is a YAML error at the fact, with the line that quotes it', () => {
    // The line: "{" opens a mapping inside the flow list, so YAML itself cannot read it.
    const ps = problemsOf(withPreconditions('[paid(vendor={{args.to}}, amount={{args.to}})]'));
    expect(ps).toHaveLength(1);
    expect(ps[0]).toMatchObject({
      code: 'yaml_syntax',
      line: 15,
      col: 21,
      message: expect.stringMatching(
        /^the fact paid\(vendor=\{\{args.to\}\}, amount=\{\{args.to\}\}\) is not quoted, so YAML cannot read it in a \[\.\.\.\] list/,
      ),
      hint: 'in [...] YAML ends an item at "," and reads "{" as a mapping; quote the whole fact: preconditions: ["paid(vendor={{args.to}}, amount={{args.to}})"]',
    });
  });

  it('loads once quoted as the hint says', () => {
    const text = withPreconditions('["recipient_verified(email={{args.to}}, via=mail)"]');
    expect(loaded(text).scenario.tools[1]?.preconditions).toEqual(['recipient_verified(email={{args.to}}, via=mail)']);
  });
});

describe('template checks', () => {
  it('report a root not allowed in its place, saying why', () => {
    const text = tinyWith((d) => {
      d.tools[1].preconditions = ['recipient_verified(email={{result.to}})'];
      d.tools[1].returns = { message_id: '{{result.id}}' };
      d.goal = ['email_sent(to={{args.to}})'];
    });
    const ps = problemsOf(text);
    expect(ps.map((p) => [p.path, p.message])).toEqual([
      ['tools[1].preconditions[0]', '{{result.to}} cannot be used in preconditions'],
      ['tools[1].returns.message_id', '{{result.id}} cannot be used in returns'],
      ['goal[0]', '{{args.to}} cannot be used in goal'],
    ]);
    expect(ps[0]?.hint).toContain('checked when the call is issued');
  });

  it('report an unknown root with a did-you-mean, at the template', () => {
    const text = TINY.replace('"email_sent(to={{args.to}})"', '"email_sent(to={{arg.to}})"');
    const [p] = problemsOf(text);
    // Line 17: `    effects: [ { insert: ... }, { establish: "email_sent(to={{arg.to}})" } ]`
    const line = text.split('\n')[16] ?? '';
    expect(p).toMatchObject({
      code: 'template',
      path: 'tools[1].effects[1].establish',
      line: 17,
      col: line.indexOf('{{arg.to}}') + 1,
    });
    expect(p?.message).toBe('unknown template root "arg" in {{arg.to}}');
    expect(p?.hint).toMatch(/^did you mean "args"\?/);
  });

  it('report {{args.x}} for a parameter the tool does not declare', () => {
    const text = TINY.replace('row: { to: "{{args.to}}" }', 'row: { to: "{{args.recipient}}", x: "{{args.ot}}" }');
    const ps = problemsOf(text);
    expect(ps.map((p) => [p.path, p.message, p.hint])).toEqual([
      [
        'tools[1].effects[0].insert.row.to',
        '{{args.recipient}}: "recipient" is not a parameter of send_email',
        'declared parameters of send_email: to',
      ],
      [
        'tools[1].effects[0].insert.row.x',
        '{{args.ot}}: "ot" is not a parameter of send_email',
        'did you mean "to"? declared parameters of send_email: to',
      ],
    ]);
  });

  it('report inputs and deployment paths that do not exist', () => {
    const text = tinyWith((d) => {
      d.deployment = { mail: { provider: 'ses' } };
      d.world.facts.push('provider(name={{deployment.mail.provder}})');
      d.goal = ['email_sent(to={{inputs.emails}})'];
    });
    expect(problemsOf(text).map((p) => [p.path, p.message, p.hint])).toEqual([
      [
        'world.facts[1]',
        '{{deployment.mail.provder}}: deployment has no "mail.provder"',
        'did you mean "provider"? add it under deployment:',
      ],
      ['goal[0]', '{{inputs.emails}}: the scenario has no input "emails"', 'did you mean "email"? inputs: email'],
    ]);
  });

  it('report {{id}} with fields, unclosed templates and templates in keys', () => {
    const text = tinyWith((d) => {
      d.tools[1].returns = { message_id: '{{id.x}}', other: '{{args.to}' };
      d.tools[1].effects[0].insert.row = { '{{args.to}}': 1 };
    });
    expect(problemsOf(text).map((p) => [p.path, p.message])).toEqual([
      ['tools[1].effects[0].insert.row.{{args.to}}', 'a template in the key "{{args.to}}" is not rendered'],
      ['tools[1].returns.message_id', "{{id.x}}: {{id}} is the call's generated id and has no fields"],
      ['tools[1].returns.other', 'a template is not closed or not opened in "{{args.to}"'],
    ]);
  });

  it('refuse templates in the keys of where and set, which are matched as written', () => {
    const text = tinyWith((d) => {
      d.tools[1].effects.push(
        { update: { table: 'outbox', where: { '{{args.to}}': 1 }, set: { 'sent_{{args.to}}': true } } },
        { delete: { table: 'outbox', where: { '{{ args.to }}': 'x' } } },
      );
    });
    expect(problemsOf(text).map((p) => [p.path, p.message, p.hint])).toEqual([
      [
        'tools[1].effects[2].update.where.{{args.to}}',
        'a template in the key "{{args.to}}" is not rendered',
        'templates work in values only',
      ],
      [
        'tools[1].effects[2].update.set.sent_{{args.to}}',
        'a template in the key "sent_{{args.to}}" is not rendered',
        'templates work in values only',
      ],
      [
        'tools[1].effects[3].delete.where.{{ args.to }}',
        'a template in the key "{{ args.to }}" is not rendered',
        'templates work in values only',
      ],
    ]);
  });

  it('allow result and id in effects, and result in compensation_args', () => {
    expect(loaded(tinyWith(REVERSIBLE_PAIR)).scenario.tools[2]?.compensation_args).toEqual({ id: '{{result.id}}' });
  });
});

describe('class rule checks', () => {
  const withRules = (
    rules: unknown,
    deployment: Record<string, unknown> = { pitr_hours: 72, region: 'eu', backups: true },
  ) =>
    tinyWith((d) => {
      REVERSIBLE_PAIR(d);
      d.deployment = deployment;
      d.tools[3].reversibility = rules;
    });

  it('accept rules that end in an unconditional rule and read existing deployment paths', () => {
    const rules = [
      { when: 'deployment.pitr_hours >= 24', class: 'reversible' },
      { when: 'deployment.region == "eu"', class: 'compensable' },
      { when: 'deployment.backups != false', class: 'compensable' },
      { class: 'irreversible' },
    ];
    expect(loaded(withRules(rules)).scenario.tools[3]?.reversibility).toEqual(rules);
  });

  it('report a missing when before the last rule and a when on the last rule', () => {
    const ps = problemsOf(
      withRules([{ class: 'reversible' }, { when: 'deployment.pitr_hours >= 24', class: 'irreversible' }]),
    );
    expect(brief(ps).map((p) => [p.code, p.path])).toEqual([
      ['class_rules', 'tools[3].reversibility[0]'],
      ['class_rules', 'tools[3].reversibility[1].when'],
    ]);
  });

  it('report a condition that does not parse', () => {
    const ps = problemsOf(
      withRules([{ when: 'deployment.pitr_hours = 24', class: 'reversible' }, { class: 'irreversible' }]),
    );
    expect(ps).toMatchObject([
      { code: 'class_rules', path: 'tools[3].reversibility[0].when', hint: 'compare with "==", not "="' },
    ]);
    const qs = problemsOf(withRules([{ when: 'pitr_hours >= 24', class: 'reversible' }, { class: 'irreversible' }]));
    expect(qs[0]?.message).toContain('starts with "deployment."');
  });

  it('report a deployment path the scenario does not set, with a did-you-mean', () => {
    const ps = problemsOf(
      withRules([{ when: 'deployment.pitr_hour >= 24', class: 'reversible' }, { class: 'irreversible' }]),
    );
    expect(ps).toMatchObject([
      {
        code: 'class_rules',
        message: expect.stringContaining('deployment.pitr_hour'),
        hint: expect.stringMatching(/^did you mean "pitr_hours"\?/),
      },
    ]);
  });

  it('report a comparison between different kinds of value', () => {
    const ps = problemsOf(
      withRules([{ when: 'deployment.region >= 3', class: 'reversible' }, { class: 'irreversible' }]),
    );
    expect(ps).toMatchObject([
      { code: 'class_rules', message: 'deployment.region is the string "eu", which ">= 3" cannot order' },
    ]);
  });
});

describe('compensation details without a compensation', () => {
  it('are reported', () => {
    const text = tinyWith((d) => {
      d.tools[1].compensation_args = { id: '{{result.id}}' };
      d.tools[1].compensation_requires_approval = true;
    });
    expect(problemsOf(text).map((p) => [p.code, p.path])).toEqual([
      ['compensation', 'tools[1].compensation_args'],
      ['compensation', 'tools[1].compensation_requires_approval'],
    ]);
  });
});
