import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadPlanFile, loadPlanText } from '../../harness/engine/loader/load.ts';
import { checkPlan } from '../../harness/engine/loader/semantics.ts';
import { loaded, problemsOf, TINY, tinyWith } from './helpers.ts';

const scenario = loaded(TINY).scenario;
const dir = mkdtempSync(join(tmpdir(), 'oneway-plan-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function planProblems(text: string) {
  const r = loadPlanText(text, 'plan.yaml', scenario);
  if (r.ok) throw new Error('expected problems');
  return r.problems;
}

describe('plan files', () => {
  it('load a YAML list of calls, batches and finish', () => {
    const text =
      '- verify_recipient: { email: "{{inputs.email}}" }\n- parallel:\n    - send_email: { to: bob@acme.example }\n- finish\n';
    const r = loadPlanText(text, 'plan.yaml', scenario);
    expect(r).toEqual({
      ok: true,
      value: [
        { verify_recipient: { email: '{{inputs.email}}' } },
        { parallel: [{ send_email: { to: 'bob@acme.example' } }] },
        'finish',
      ],
    });
  });

  it('load a JSON file wrapped in {plan: [...]}', () => {
    const file = join(dir, 'plan.json');
    writeFileSync(
      file,
      JSON.stringify({ plan: [{ verify_recipient: { email: 'bob@acme.example' } }, 'finish'] }, null, 2),
    );
    const r = loadPlanFile(file, scenario);
    expect(r.ok && r.value).toEqual([{ verify_recipient: { email: 'bob@acme.example' } }, 'finish']);
  });

  it('load without a scenario, checking only the shape', () => {
    expect(loadPlanText('- anything: {}\n- finish\n', 'p.yaml').ok).toBe(true);
  });

  it('position shape problems inside the plan: key', () => {
    const r = loadPlanText('plan:\n  - finsh\n', 'p.yaml');
    expect(r.ok ? [] : r.problems).toMatchObject([
      {
        code: 'invalid_enum',
        path: 'plan[0]',
        line: 2,
        col: 5,
        hint: expect.stringMatching(/^did you mean "finish"\?/),
      },
    ]);
  });

  it('report a call of an undeclared tool at its name, with a did-you-mean', () => {
    const [p] = planProblems('- verify_recipient: { email: x }\n- send_emial: { to: x }\n');
    expect(p).toMatchObject({
      code: 'unknown_tool',
      path: '[1].send_emial',
      line: 2,
      col: 3,
      hint: expect.stringMatching(/^did you mean "send_email"\?/),
    });
  });

  it('report unknown and missing arguments', () => {
    const ps = planProblems('- send_email: { too: x }\n');
    expect(ps.map((p) => [p.code, p.path, p.message])).toEqual([
      ['plan', '[0].send_email', 'the call of send_email lacks to'],
      ['plan', '[0].send_email.too', '"too" is not a parameter of send_email'],
    ]);
  });

  it('report a call with several tools, "finish:" with a colon, and items after finish', () => {
    const text = [
      '- { verify_recipient: { email: x }, send_email: { to: x } }',
      '- finish: {}',
      '- finish',
      '- send_email: { to: x }',
    ].join('\n');
    const ps = planProblems(text);
    expect(ps.map((p) => [p.code, p.path, p.line])).toEqual([
      ['plan', '[0]', 1],
      ['unknown_tool', '[1].finish', 2],
      ['plan', '[3]', 4],
    ]);
    expect(ps[1]?.hint).toBe('write "- finish" (no colon) to end the plan');
  });

  it('report a batch inside a batch', () => {
    const ps = planProblems('- parallel: [ { parallel: [ { send_email: { to: x } } ] } ]\n');
    expect(ps).toMatchObject([
      { code: 'schema', path: '[0].parallel[0].parallel', line: 1, col: 27, hint: 'parallel batches cannot nest' },
    ]);
  });

  it('allow only {{inputs.x}} and {{results.TOOL.path}} of a tool called in an earlier item', () => {
    const text = [
      '- parallel:',
      '    - verify_recipient: { email: "{{inputs.email}}" }',
      '    - send_email: { to: "{{results.verify_recipient.email}}" }',
      '- send_email: { to: "{{results.verify_recipient.email}}" }',
      '- send_email: { to: "{{args.to}}" }',
      '- send_email: { to: "{{results.send_mail.id}}" }',
      '- send_email: { to: "{{inputs.mail}}" }',
    ].join('\n');
    expect(planProblems(text).map((p) => [p.code, p.path, p.message])).toEqual([
      [
        'plan',
        '[0].parallel[1].send_email.to',
        '{{results.verify_recipient.email}}: verify_recipient is not called in an earlier plan item',
      ],
      ['template', '[2].send_email.to', '{{args.to}} cannot be used in a plan'],
      ['unknown_tool', '[3].send_email.to', '{{results.send_mail.id}}: no tool is named "send_mail"'],
      ['template', '[4].send_email.to', '{{inputs.mail}}: the scenario has no input "mail"'],
    ]);
  });

  it('refuse a plan file that is neither a list nor {plan: [...]}', () => {
    expect(loadPlanText('steps: []\n', 'p.yaml')).toMatchObject({
      ok: false,
      problems: [{ code: 'unknown_key', path: 'steps' }, { code: 'plan' }],
    });
    expect(loadPlanText('', 'p.yaml')).toMatchObject({
      ok: false,
      problems: [{ code: 'plan', message: 'the plan file is empty' }],
    });
    expect(loadPlanFile(join(dir, 'missing.yaml'))).toMatchObject({ ok: false, problems: [{ code: 'file' }] });
  });

  it('are checked by the same checkPlan as a reference_plan', () => {
    const text = tinyWith((d) => {
      d.reference_plan = [{ verify_recipient: { email: '{{inputs.email}}' } }, { send_emial: { to: 'x' } }, 'finish'];
    });
    expect(problemsOf(text)).toMatchObject([{ code: 'unknown_tool', path: 'reference_plan[1].send_emial' }]);
    const direct = checkPlan([{ send_emial: { to: 'x' } }], scenario, {
      file: 'mem',
      locate: () => ({ line: 1, col: 1 }),
    });
    expect(direct).toMatchObject([{ code: 'unknown_tool', path: '[0].send_emial', file: 'mem' }]);
  });
});
