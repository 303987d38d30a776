import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { lintTexts } from '../../harness/features/lint/lint.ts';
import { LINT_RULES } from '../../harness/features/lint/rules/index.ts';
import type { LintFinding } from '../../harness/features/lint/types.ts';
import { splitValue } from '../../harness/features/lint/rules/split-value.ts';
import type { Scenario } from '../../harness/core/scenario.ts';
import { deepFreeze } from '../../harness/util/json.ts';

const fixture = (name: string) => ({
  file: name,
  text: readFileSync(fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url)), 'utf8'),
});
const lint = (...names: string[]) => lintTexts(names.map(fixture));
const of = (findings: LintFinding[], rule: string) =>
  findings
    .filter((f) => f.rule === rule)
    .map((f) => `${f.file}:${f.line}:${f.col} ${f.severity} ${f.path}: ${f.message}`);

describe('lint rules', () => {
  it('passes a clean file with no finding at all', () => {
    expect(lint('clean.yaml')).toEqual([]);
  });

  it('every rule has an id, a description, and a fixture of its own', () => {
    for (const r of LINT_RULES) {
      expect(r.id).toMatch(/^[a-z]+(-[a-z]+)+$/);
      expect(r.description.length).toBeGreaterThan(10);
    }
    expect(new Set(LINT_RULES.map((r) => r.id)).size).toBe(LINT_RULES.length);
  });

  it('reversible-asymmetric: a compensation that needs approval, or is compensable itself', () => {
    expect(of(lint('reversible-asymmetric.yaml'), 'reversible-asymmetric')).toEqual([
      'reversible-asymmetric.yaml:16:29 error tools[1].compensating_operation: the compensation of reversible tool "grant_access", revoke_access, needs the approval request_approval(action=revoke_access) that grant_access did not',
      'reversible-asymmetric.yaml:29:29 error tools[3].compensating_operation: reversible tool "set_flag" declares that its compensation clear_flag requires approval: not the same authority',
      'reversible-asymmetric.yaml:29:29 error tools[3].compensating_operation: the compensation of reversible tool "set_flag", clear_flag, is compensable itself',
    ]);
    // add_member/remove_member: same authority both ways; remove_member's precondition is what add_member establishes.
    expect(of(lint('clean.yaml'), 'reversible-asymmetric')).toEqual([]);
  });

  it('reversible-asymmetric: a compensation needing a fact the original did not (warning)', () => {
    const text = fixture('clean.yaml').text.replace(
      'preconditions: ["member(team={{args.team}}, user={{args.user}})"]',
      'preconditions: ["member(team={{args.team}}, user={{args.user}})", "offboarding_ticket(user={{args.user}})"]',
    );
    const found = of(lintTexts([{ file: 'x.yaml', text }]), 'reversible-asymmetric');
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(
      'warning tools[2].compensating_operation: the compensation of reversible tool "add_member", remove_member, requires offboarding_ticket(user={{args.user}}), which add_member did not',
    );
  });

  it('a derived fact value over the inputs is computed, as a run computes it; one over the call is a variable', () => {
    // stock and shipped hold the items sorted: the precondition and the effect derive them from the inputs ([b, a]),
    // so the world's stock(items=["a","b"]) meets the precondition and ship establishes the goal. Lint used to
    // compare the text "= sorted(["b","a"])" and said both could never hold.
    const text = `
id: derived-lint
title: Derived facts
task: Ship items a and b.
inputs: { items: [b, a] }
world:
  facts: ['stock(items="[\\"a\\",\\"b\\"]")']
tools:
  - name: ship
    reversibility: irreversible
    parameters: { type: object, properties: { order_id: { type: string }, extra: { type: array, items: { type: string } } }, required: [order_id] }
    preconditions: ['stock(items="= sorted({{inputs.items}})")']
    effects:
      - establish: 'shipped(order={{args.order_id}}, items="= sorted({{inputs.items}})")'
      - establish: 'noted(items="= sorted({{args.extra}})")'
goal: ['shipped(order=W1, items="[\\"a\\",\\"b\\"]")', 'noted(items="[\\"x\\"]")']
max_steps: 5
`;
    const found = lintTexts([{ file: 'd.yaml', text }]);
    expect(of(found, 'unreachable-precondition')).toEqual([]);
    expect(of(found, 'unreachable-goal')).toEqual([]);
    // Other items in the world: the precondition computed from the inputs cannot match them.
    const stocked = text.replace(`facts: ['stock(items="[\\"a\\",\\"b\\"]")']`, `facts: ['stock(items="[\\"a\\"]")']`);
    expect(of(lintTexts([{ file: 'd.yaml', text: stocked }]), 'unreachable-precondition')).toEqual([
      'd.yaml:12:21 warning tools[0].preconditions[0]: precondition stock(items=["a","b"]) of "ship" can never hold: stock is established only as stock(items=["a"]) (initially), which cannot match',
    ]);
  });

  it('compensation-undeclared: a compensation that is not a declared tool, with did-you-mean', () => {
    const findings = lint('compensation-undeclared.yaml');
    expect(of(findings, 'compensation-undeclared')).toEqual([
      'compensation-undeclared.yaml:8:29 error tools[0].compensating_operation: the compensation of compensable tool "create_invoice", "void_invoic", is not declared as a tool',
    ]);
    expect(findings.find((f) => f.rule === 'compensation-undeclared')?.hint).toContain('did you mean "void_invoice"?');
    // The loader's problem at the same spot is not repeated.
    expect(findings.filter((f) => f.rule.startsWith('load/'))).toEqual([]);
    expect(of(lint('clean.yaml'), 'compensation-undeclared')).toEqual([]);
  });

  it('irreversible-compensation: an irreversible tool that names a compensation', () => {
    expect(of(lint('irreversible-compensation.yaml'), 'irreversible-compensation')).toEqual([
      'irreversible-compensation.yaml:8:29 error tools[0].compensating_operation: irreversible tool "send_email" names a compensating operation ("recall_email")',
      'irreversible-compensation.yaml:9:5 error tools[0].compensation_args: irreversible tool "send_email" declares compensation_args',
    ]);
    expect(of(lint('clean.yaml'), 'irreversible-compensation')).toEqual([]);
  });

  it('unreachable-precondition: a typo is an error, a fact nothing establishes a warning', () => {
    const findings = lint('unreachable-precondition.yaml');
    expect(of(findings, 'unreachable-precondition')).toEqual([
      'unreachable-precondition.yaml:14:9 error tools[1].preconditions[0]: precondition recipient_verifed(email={{args.to}}) of "send_email" can never hold: no tool establishes recipient_verifed and no initial fact is one',
      'unreachable-precondition.yaml:15:9 warning tools[1].preconditions[1]: precondition legal_hold_lifted(mailbox={{args.to}}) of "send_email" can never hold: no tool establishes legal_hold_lifted and no initial fact is one',
      'unreachable-precondition.yaml:16:9 warning tools[1].preconditions[2]: precondition account(state=active) of "send_email" can never hold: account is established only as account(state=frozen) (initially), which cannot match',
    ]);
    expect(findings.find((f) => f.path === 'tools[1].preconditions[0]')?.hint).toContain(
      'did you mean "recipient_verified"?',
    );
    expect(of(lint('clean.yaml'), 'unreachable-precondition')).toEqual([]);
  });

  it('unreachable-goal: no tool establishes it (error); only a premature call does (warning)', () => {
    const findings = lint('unreachable-goal.yaml');
    expect(of(findings, 'unreachable-goal')).toEqual([
      'unreachable-goal.yaml:22:8 warning goal[0]: goal refunded(charge=ch_1) is reachable only through a premature call: issue_refund needs authorised(action=issue_refund) (the scripted human never approves issue_refund)',
      'unreachable-goal.yaml:22:33 error goal[1]: goal email_sent(to=ap@acme.example) cannot be reached: no tool establishes it and no initial fact is one',
    ]);
    expect(findings.find((f) => f.path === 'goal[1]')?.hint).toContain('did you mean "mail_sent"?');
    // Approving the refund makes the first goal reachable the proper way.
    const approved = fixture('unreachable-goal.yaml').text.replace(
      'issue_refund: deny',
      'issue_refund: { approve_after: 1 }',
    );
    expect(of(lintTexts([{ file: 'g.yaml', text: approved }]), 'unreachable-goal').map((f) => f.split(' ')[1])).toEqual(
      ['error'],
    );
    expect(of(lint('clean.yaml'), 'unreachable-goal')).toEqual([]);
  });

  it('unreachable-goal: an approved action whose text holds a comma is reachable (issue 41)', () => {
    // The action text lists two items; pasted into the fact's source it split the fact at its ",".
    const action = 'issue_refund for ch_1, ch_2';
    const text = fixture('unreachable-goal.yaml')
      .text.replace('issue_refund: deny', `"${action}": approve`)
      .replace(
        'preconditions: ["authorised(action=issue_refund)"]',
        `preconditions: ['authorised(action="${action}")']`,
      );
    expect(of(lintTexts([{ file: 'c.yaml', text }]), 'unreachable-goal').map((f) => f.split(' ').slice(1, 3))).toEqual([
      ['error', 'goal[1]:'],
    ]);
  });

  it('unreachable-goal: a goal whose only tool needs a parameter no planner can fill (warning); arrays and objects are fillable', () => {
    const text = (param: string) => `id: unfillable
title: t
task: t
world: { facts: [] }
tools:
  - name: tag_issue
    reversibility: irreversible
    parameters:
      type: object
      properties:
${param}
      required: [labels]
    effects: [{ establish: issue_tagged(issue=1) }]
goal: [issue_tagged(issue=1)]
`;
    const goalFindings = (t: string) => of(lintTexts([{ file: 'u.yaml', text: t }]), 'unreachable-goal');
    expect(goalFindings(text('        labels: { type: string }'))).toEqual([
      'u.yaml:14:8 warning goal[0]: goal issue_tagged(issue=1) cannot be reached by any planner: tag_issue needs labels, which no goal argument, precondition, input, default or result gives',
    ]);
    // An array of objects, a nested object: the planners fill them with the smallest value that fits.
    expect(
      goalFindings(
        text(
          '        labels: { type: array, items: { type: object, properties: { name: { type: string } }, required: [name] } }',
        ),
      ),
    ).toEqual([]);
    expect(
      goalFindings(
        text(
          '        labels: { type: object, properties: { a: { type: object, properties: { n: { type: integer } }, required: [n] } }, required: [a] }',
        ),
      ),
    ).toEqual([]);
    // ... unless the schema allows none that can be made up.
    expect(
      goalFindings(text('        labels: { type: array, minItems: 1, items: { type: string, pattern: "^[a-z]+$" } }')),
    ).toHaveLength(1);
    expect(goalFindings(text('        labels: { type: string, default: bug }'))).toEqual([]);
  });

  it('read-only-effects: a read_only tool with a table effect', () => {
    expect(of(lint('read-only-effects.yaml'), 'read-only-effects')).toEqual([
      'read-only-effects.yaml:12:17 error tools[0].effects[1].insert: read_only tool "get_customer" has an insert effect on table audit',
    ]);
    expect(of(lint('clean.yaml'), 'read-only-effects')).toEqual([]);
  });

  it('unknown-result-field: {{result.x}} over a field the reply cannot have; an error in compensation_args', () => {
    const findings = lint('unknown-result-field.yaml');
    expect(of(findings, 'unknown-result-field')).toEqual([
      'unknown-result-field.yaml:10:39 error tools[0].compensation_args.entityNames: {{result.entityNames}}: the reply of create_entities has no entityNames, so it renders empty on every call and the compensation delete_entities is never issued with the right arguments',
      'unknown-result-field.yaml:22:71 error tools[2].compensation_args.number: {{result.invoice.number}}: the reply of create_invoice has no invoice.number, so it renders empty on every call and the compensation void_invoice is never issued with the right arguments',
      'unknown-result-field.yaml:26:20 warning tools[2].effects[1].establish: {{result.idd}}: the reply of create_invoice has no idd, so it renders empty on every call',
    ]);
    const hints = findings.filter((f) => f.rule === 'unknown-result-field').map((f) => f.hint);
    expect(hints[0]).toBe(
      'create_entities declares no returns:, so its reply is empty; declare the field under returns: (what the tool replies), or take the value from {{args.x}}',
    );
    expect(hints[1]).toContain('the reply of create_invoice has invoice.id (its returns:)');
    // What the sandbox adds is there: applied and the read table for a reads: tool, approved for an approval;
    // and a field whose declared value is a template ({{result.data.anything}}) may hold anything.
    expect(
      findings.filter(
        (f) => f.rule === 'unknown-result-field' && /show_orders|request_approval|data\./.test(f.message),
      ),
    ).toEqual([]);
    const withReturns = fixture('unknown-result-field.yaml').text.replace(
      '    effects: [ { insert: { table: entities, row: { names: "{{args.entities}}" } } } ]\n  - name: delete_entities',
      '    effects: [ { insert: { table: entities, row: { names: "{{args.entities}}" } } } ]\n    returns: { entityNames: "{{args.entities}}" }\n  - name: delete_entities',
    );
    expect(of(lintTexts([{ file: 'r.yaml', text: withReturns }]), 'unknown-result-field')).toHaveLength(2);
    expect(of(lint('clean.yaml'), 'unknown-result-field')).toEqual([]);
  });

  it('unknown-result-field reads a projection ({{result.entities[*].name}}) by the field it projects', () => {
    const text = (returns: string) => `
id: lint-projection
title: t
task: t
tools:
  - name: create_entities
    reversibility: reversible
    compensating_operation: delete_entities
    compensation_args: { entityNames: "{{result.entities[*].name}}" }
    parameters: { type: object, properties: { entities: { type: array } }, required: [entities] }
    effects: [ { establish: "created(names={{args.entities[*].name}})" } ]${returns}
  - name: delete_entities
    reversibility: irreversible
    parameters: { type: object, properties: { entityNames: { type: array } }, required: [entityNames] }
goal: ["created(names=x)"]
`;
    const found = (returns: string) => of(lintTexts([{ file: 'p.yaml', text: text(returns) }]), 'unknown-result-field');
    expect(found('\n    returns: { entities: [] }')).toEqual([]);
    expect(found('')).toEqual([
      'p.yaml:9:39 error tools[0].compensation_args.entityNames: {{result.entities[*].name}}: the reply of create_entities has no entities, so it renders empty on every call and the compensation delete_entities is never issued with the right arguments',
    ]);
  });

  it('deployment-class: the class for this deployment (info), drift across the linted deployments (warning)', () => {
    const same = lint('drift/purge-pitr.yaml', 'drift/purge-pitr-too.yaml');
    expect(of(same, 'deployment-class')).toEqual([
      'drift/purge-pitr-too.yaml:9:7 info tools[0].reversibility: "purge_rows" is reversible under this deployment (deployment.pitr_hours >= 24 holds: deployment.pitr_hours = 48)',
      'drift/purge-pitr.yaml:9:7 info tools[0].reversibility: "purge_rows" is reversible under this deployment (deployment.pitr_hours >= 24 holds: deployment.pitr_hours = 72)',
    ]);
    const drift = of(lint('drift/purge-pitr.yaml', 'drift/purge-no-pitr.yaml'), 'deployment-class').filter((f) =>
      f.includes(' warning '),
    );
    expect(drift).toEqual([
      'drift/purge-no-pitr.yaml:9:7 warning tools[0].reversibility: class drift: "purge_rows" is irreversible here but reversible in drift/purge-pitr.yaml (deployment.pitr_hours = 72)',
      'drift/purge-pitr.yaml:9:7 warning tools[0].reversibility: class drift: "purge_rows" is reversible here but irreversible in drift/purge-no-pitr.yaml (deployment.pitr_hours = 0)',
    ]);
    expect(of(lint('clean.yaml'), 'deployment-class')).toEqual([]);
  });

  it('review-pending: an imported tool not yet reviewed', () => {
    expect(of(lint('review-pending.yaml'), 'review-pending')).toEqual([
      'review-pending.yaml:9:13 warning tools[0].review: tool "get_issue" is not reviewed yet (class reversible as imported)',
    ]);
    expect(of(lint('clean.yaml'), 'review-pending')).toEqual([]);
    // Read as a tools file (what oneway guard enforces), the same finding is an error.
    expect(of(lintTexts([{ ...fixture('review-pending.yaml'), kind: 'tools' }]), 'review-pending')).toEqual([
      'review-pending.yaml:9:13 error tools[0].review: tool "get_issue" is not reviewed yet (class reversible as imported)',
    ]);
  });

  it('compensation-todo: a compensation still holding the TODO import left; a warning in a scenario, an error in a tools file', () => {
    const text = `tools:
  - name: create_entities
    reversibility: compensable
    compensating_operation: delete_entities
    compensation_args: { entityNames: "TODO: entityNames (no argument has this name)", keep: "{{args.x}}" }
    parameters: { type: object, properties: { x: { type: string } } }
  - name: delete_entities
    reversibility: irreversible
    parameters: { type: object, properties: { entityNames: { type: array } } }
`;
    expect(of(lintTexts([{ file: 't.yaml', text }]), 'compensation-todo')).toEqual([
      't.yaml:5:39 error tools[0].compensation_args.entityNames: the compensation of "create_entities" still holds a TODO: recover would issue it as written',
    ]);
    const scenario = `id: s\ntitle: s\ntask: s\ngoal: ["done()"]\n${text.replace('keep: "{{args.x}}"', 'keep: "{{args.x}}", todo: [ "a TODO" ]')}  - name: finish\n    reversibility: reversible\n    read_only: true\n    parameters: { type: object, properties: {} }\n    effects: [ { establish: "done()" } ]\n`;
    expect(
      of(lintTexts([{ file: 's.yaml', text: scenario }]), 'compensation-todo').map((f) => f.split(': ')[0]),
    ).toEqual([
      's.yaml:9:39 warning tools[0].compensation_args.entityNames',
      's.yaml:9:116 warning tools[0].compensation_args.todo[0]',
    ]);
    // A word holding "todo" is no TODO.
    expect(
      of(lintTexts([{ file: 't.yaml', text: text.replace('TODO: entityNames', 'TODOS') }]), 'compensation-todo'),
    ).toEqual([]);
  });

  it('irreversible-dedupe: an irreversible tool with optional parameters and no dedupe_on (warning)', () => {
    // send_refund declares dedupe_on; notify has no optional parameter; the idempotency key is not one.
    expect(of(lint('irreversible-dedupe.yaml'), 'irreversible-dedupe')).toEqual([
      'irreversible-dedupe.yaml:5:11 warning tools[0].name: irreversible tool "send_payout" has optional parameters (memo) and no dedupe_on: a repeat that adds or changes one of them counts as another call, so after an ambiguous failure it is not held as a retry',
    ]);
    expect(lint('irreversible-dedupe.yaml').find((f) => f.rule === 'irreversible-dedupe')?.hint).toBe(
      'declare dedupe_on: [to, amount] (the parameters that identify one effect), or idempotent: true if a repeat applies nothing new',
    );
  });

  it('key-survives-failure: the declaration on a tool whose repeats the guard never holds (warning)', () => {
    // send_payout is irreversible and not idempotent: the declaration matters there.
    expect(of(lint('key-survives-failure.yaml'), 'key-survives-failure')).toEqual([
      'key-survives-failure.yaml:15:27 warning tools[1].key_survives_failure: key_survives_failure on "notify" changes nothing: it is declared idempotent, and the guard lets every repeat of it through already',
      'key-survives-failure.yaml:21:27 warning tools[2].key_survives_failure: key_survives_failure on "tag_vendor" changes nothing: it is never irreversible, and the guard holds repeats after an ambiguous failure only of irreversible calls',
    ]);
    expect(
      lint('key-survives-failure.yaml')
        .filter((f) => f.rule === 'key-survives-failure')
        .map((f) => f.hint),
    ).toEqual([
      'remove key_survives_failure, or idempotent: true if a repeat with a new key applies again',
      'remove key_survives_failure, or check the tool’s reversibility (and class rules)',
    ]);
  });

  it('split-value: a value cut at an unquoted comma in a flow mapping', () => {
    const findings = lint('split-value.yaml');
    expect(of(findings, 'split-value')).toEqual([
      'split-value.yaml:14:73 warning tools[0].parameters.properties.action.e.g. issue_refund.: "e.g. issue_refund." is a key with no value: the value before it was cut at an unquoted ", "',
    ]);
    expect(findings.find((f) => f.rule === 'split-value')?.hint).toBe(
      'quote the value: description: "The tool to be authorised, e.g. issue_refund."',
    );
    expect(of(lint('clean.yaml'), 'split-value')).toEqual([]);
  });

  it('split-value: a frozen table many scenarios share is reported for each of them', () => {
    // The rule walks a frozen part once when it is clean (a shared world of thousands of rows), never
    // skipping one where it found something.
    const notes = deepFreeze([{ id: 1, text: 'one', 'two three': null }]);
    const clean = deepFreeze([{ id: 1, text: 'one, two three' }]);
    const target = (id: string) => ({
      file: `${id}.yaml`,
      scenario: { id, world: { facts: [], tables: { clean, notes } } } as unknown as Scenario,
      locate: () => ({ line: 1, col: 1 }),
    });
    for (const id of ['a', 'b', 'a']) {
      expect(splitValue.check({ ...target(id), all: [] }).map((f) => f.path)).toEqual([
        'world.tables.notes[0].two three',
      ]);
    }
  });

  it('reports a file that fails to load as lint errors and lints the others', () => {
    const findings = lint('broken.yaml', 'review-pending.yaml');
    expect(findings.map((f) => `${f.file} ${f.severity} ${f.rule}`)).toEqual([
      'broken.yaml error load/invalid_enum',
      'review-pending.yaml warning review-pending',
    ]);
    expect(findings[0]?.hint).toContain('did you mean "irreversible"?');
  });
});
