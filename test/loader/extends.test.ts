/**
 * Shared files (`extends:`): a scenario takes the tools, world and confirmations of shared files,
 * its own entries winning by tool and table name; problems are located in the file they are in.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadScenarioFile } from '../../harness/engine/loader/load.ts';
import { resolveScenarios } from '../../harness/engine/loader/resolve.ts';
import { lintPaths, lintTexts } from '../../harness/features/lint/lint.ts';
import { call, runDecisions } from '../helpers/run.ts';

const dir = mkdtempSync(join(tmpdir(), 'oneway-extends-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SHARED = `tools:
  - name: get_order
    reversibility: reversible
    read_only: true
    lookups: { order: { table: orders, where: { order_id: "{{args.order_id}}" } } }
    parameters: { type: object, properties: { order_id: { type: string } }, required: [order_id] }
    returns: { order: "{{order}}" }
    effects: [ { establish: "order_read(order={{args.order_id}})" } ]
  - name: cancel
    reversibility: irreversible
    parameters: { type: object, properties: { order_id: { type: string } }, required: [order_id] }
    effects: [ { establish: "cancelled(order={{args.order_id}})" } ]
world:
  facts: ["shop_open"]
  tables:
    orders: [ { order_id: "#W1", status: pending } ]
    users: [ { user_id: u1 } ]
`;

const write = (rel: string, text: string): string => {
  const path = join(dir, rel);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
};

const scenarioText = (extra = '') => `extends: [../shared/retail.yaml]
id: cancel-w1
title: Cancel W1
task: Cancel order W1 after reading it.
world:
  facts: ["shop_open", "authenticated(user=u1)"]
  tables:
    orders: [ { order_id: "#W1", status: processed } ]
tools:
  - name: cancel
    reversibility: irreversible
    lookups: { order: { table: orders, where: { order_id: "{{args.order_id}}" } } }
    preconditions: ["order_read(order={{args.order_id}})", { when: "{{order.status}} == processed" }]
    parameters: { type: object, properties: { order_id: { type: string } }, required: [order_id] }
    effects: [ { establish: "cancelled(order={{args.order_id}})" } ]
  - name: note
    reversibility: reversible
    read_only: true
    parameters: { type: object, properties: {} }
goal: ["cancelled(order=#W1)"]
${extra}`;

describe('extends: shared files', () => {
  write('shared/retail.yaml', SHARED);

  it('merges tools by name (the scenario wins, in place), tables by name (whole), facts once each', async () => {
    const file = write('tasks/cancel.yaml', scenarioText());
    const r = loadScenarioFile(file);
    if (!r.ok) throw new Error(r.problems.map((p) => p.message).join('; '));
    const s = r.value.scenario;
    expect(s.tools.map((t) => t.name)).toEqual(['get_order', 'cancel', 'note']);
    expect(s.tools[1]?.preconditions).toHaveLength(2);
    expect(s.world.tables).toEqual({ orders: [{ order_id: '#W1', status: 'processed' }], users: [{ user_id: 'u1' }] });
    expect(s.world.facts).toEqual(['shop_open', 'authenticated(user=u1)']);
    // It runs: the shared read tool shows the scenario's row, and the cancel is timely after it.
    const run = await runDecisions(s, [call('get_order', { order_id: '#W1' }), call('cancel', { order_id: '#W1' })]);
    expect(run.completed).toBe(true);
    expect(run.premature.irreversible).toBe(0);
    const read = run.events.find((e) => e.type === 'call');
    expect(read?.type === 'call' && read.result).toEqual({ order: { order_id: '#W1', status: 'processed' } });
  });

  it('keeps one copy of a shared table for every scenario that takes it', () => {
    const a = loadScenarioFile(write('tasks/a.yaml', scenarioText().replace('id: cancel-w1', 'id: a')));
    const b = loadScenarioFile(write('tasks/b.yaml', scenarioText().replace('id: cancel-w1', 'id: b')));
    if (!a.ok || !b.ok) throw new Error('did not load');
    // users came from the shared file: the same (frozen) array; orders is each scenario's own.
    expect(a.value.scenario.world.tables.users).toBe(b.value.scenario.world.tables.users);
    expect(Object.isFrozen(a.value.scenario.world.tables.users?.[0])).toBe(true);
    expect(a.value.scenario.world.tables.orders).not.toBe(b.value.scenario.world.tables.orders);
  });

  it('locates a problem of a shared tool in the shared file, and one of the scenario in the scenario', () => {
    const bad = write(
      'shared/bad.yaml',
      SHARED.replace(
        '    effects: [ { establish: "cancelled',
        '    compensating_operation: uncancel\n    effects: [ { establish: "cancelled',
      ),
    );
    const file = write(
      'tasks/bad.yaml',
      scenarioText()
        .replace('../shared/retail.yaml', '../shared/bad.yaml')
        .replace('    tools:\n', '')
        .replace(
          '  - name: cancel\n    reversibility: irreversible\n    lookups',
          '  - name: cancel2\n    reversibility: irreversible\n    lookups',
        ),
    );
    const r = loadScenarioFile(file);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const shown = r.problems.map((p) => `${p.file}:${p.line} ${p.path}: ${p.message}`);
    expect(shown).toContain(
      `${bad}:12 tools[1].compensating_operation: irreversible tool "cancel" names a compensating operation ("uncancel")`,
    );
    // The shared file's schema problems are its own too.
    const worse = write(
      'shared/worse.yaml',
      SHARED.replace('    read_only: true\n', '    read_only: true\n    reads_only: true\n'),
    );
    const w = loadScenarioFile(
      write('tasks/worse.yaml', scenarioText().replace('../shared/retail.yaml', '../shared/worse.yaml')),
    );
    expect(w.ok ? [] : w.problems.map((p) => `${p.file}:${p.line} ${p.message}`)).toEqual([
      `${worse}:5 unknown key "reads_only"`,
    ]);
  });

  it('a shared file that is missing or too large is a problem at its extends entry', () => {
    const missing = loadScenarioFile(write('tasks/missing.yaml', scenarioText().replace('retail.yaml', 'nope.yaml')));
    expect(missing.ok ? [] : missing.problems.map((p) => `${p.line}:${p.col} ${p.path}: ${p.message}`)).toEqual([
      '1:11 extends[0]: the shared file ../shared/nope.yaml: the file does not exist',
    ]);
    write('shared/huge.yaml', `tools: []\n# ${'x'.repeat(2 * 1024 * 1024)}\n`);
    const huge = loadScenarioFile(write('tasks/huge.yaml', scenarioText().replace('retail.yaml', 'huge.yaml')));
    expect(huge.ok ? [] : huge.problems.map((p) => p.code)).toEqual(['yaml_limit']);
  });

  it('a directory of scenarios skips the shared files in it; lint merges them too', async () => {
    const sub = join(dir, 'mixed');
    write('mixed/retail.yaml', SHARED);
    write('mixed/cancel.yaml', scenarioText().replace('../shared/retail.yaml', 'retail.yaml'));
    const { loaded, problems } = await resolveScenarios([sub], { cwd: dir, root: sub });
    expect(problems).toEqual([]);
    expect(loaded.map((l) => l.scenario.id)).toEqual(['cancel-w1']);
    const findings = lintTexts([
      { file: join(sub, 'cancel.yaml'), text: scenarioText().replace('../shared/retail.yaml', 'retail.yaml') },
    ]);
    expect(findings.filter((f) => f.severity === 'error')).toEqual([]);
  });

  it("lint of a directory leaves a shared file its scenarios extend to them, never reads it as a guard's tools file", async () => {
    // Split as `oneway import tau2` writes them: the tools alone in one file (what a tools block looks like).
    const [tools, world] = SHARED.split('world:\n');
    write('linted/shared/tools.yaml', tools as string);
    write('linted/shared/world.yaml', `world:\n${world}`);
    write(
      'linted/tasks/cancel.yaml',
      scenarioText().replace('[../shared/retail.yaml]', '[../shared/tools.yaml, ../shared/world.yaml]'),
    );
    const report = await lintPaths([join(dir, 'linted')], { cwd: dir, root: dir });
    // As a guard's tools file, its lookups and validate would be errors (the guard cannot see tables).
    expect(report.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(report.files).toEqual(['linted/tasks/cancel.yaml']);
  });
});
