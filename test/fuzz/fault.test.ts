/**
 * Who is at fault when a fuzz property fails: oneway for its own invariants (always, whatever the
 * scenario's lint says), the scenario for its declarations and for lint errors or a goal no plan
 * reaches, the planner for a behaviour property; determinism and the seal blame whatever made the calls.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main as fuzzMain } from '../../harness/cli/fuzz.ts';
import { faultOf, withScenarioFindings } from '../../harness/features/fuzz/fault.ts';
import { BUILTIN_PROPERTIES } from '../../harness/features/fuzz/properties.ts';
import type { LintFinding } from '../../harness/features/lint/types.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { NOTES_YAML, scenarioFile } from './fixtures.ts';

const lintError: LintFinding = {
  rule: 'reversible-asymmetric',
  severity: 'error',
  file: 's.yaml',
  line: 3,
  col: 4,
  path: 'tools[0].compensating_operation',
  message: 'the compensation of reversible tool "a", b, is irreversible itself',
};

describe('the fault of a failed property', () => {
  it('is oneway for its own invariants, the scenario for its declarations, and the caller for determinism and the seal', () => {
    const parties = (planner: string | undefined) =>
      Object.fromEntries(BUILTIN_PROPERTIES.map((p) => [p.name, faultOf(p, planner).party]));
    expect(parties(undefined)).toEqual({
      'scoring-oracle': 'oneway',
      'guard-soundness': 'oneway',
      'rollback-completeness': 'scenario',
      determinism: 'oneway',
      seal: 'oneway',
      'transport-equivalence': 'oneway',
    });
    expect(parties('random')).toMatchObject({
      'scoring-oracle': 'oneway',
      'rollback-completeness': 'scenario',
      determinism: 'planner',
      seal: 'planner',
    });
  });

  it('says an oracle disagreement is a bug in oneway and asks to report it', () => {
    const oracle = BUILTIN_PROPERTIES.find((p) => p.name === 'scoring-oracle');
    expect(oracle && faultOf(oracle, undefined)).toEqual({
      party: 'oneway',
      why: '"scoring-oracle" checks oneway itself, not the scenario or a planner: this is a bug in oneway',
      next: 'please report it to the oneway maintainers with the plan file and the replay command below',
    });
  });

  it('blames the planner for a property of its own making (a user property by default)', () => {
    expect(faultOf({ name: 'no-email-before-invoice' }, 'eager')).toMatchObject({
      party: 'planner',
      why: 'the planner eager broke "no-email-before-invoice"',
    });
    expect(faultOf({ name: 'no-email-before-invoice' }, undefined).why).toMatch(/behaviour property/);
  });

  it("turns to the scenario when lint finds errors or an unreachable goal, except for oneway's own invariants", () => {
    const planner = faultOf({ name: 'no-email-before-invoice' }, 'eager');
    expect(withScenarioFindings(planner, [lintError], 'npx oneway lint s.yaml')).toEqual({
      party: 'scenario',
      why: 'lint finds a problem in the scenario that can make any property fail, whoever plans: [reversible-asymmetric] tools[0].compensating_operation: the compensation of reversible tool "a", b, is irreversible itself',
      next: 'fix it first (npx oneway lint s.yaml), then fuzz again',
    });
    const unreachable: LintFinding = { ...lintError, rule: 'unreachable-goal', severity: 'warning' };
    expect(withScenarioFindings(planner, [unreachable], 'x').party).toBe('scenario');
    // A warning of another rule does not make the scenario suspect.
    expect(withScenarioFindings(planner, [{ ...lintError, severity: 'warning' }], 'x')).toEqual(planner);
    const oracle = faultOf({ name: 'scoring-oracle', owner: 'oneway' }, undefined);
    expect(withScenarioFindings(oracle, [lintError, unreachable], 'x')).toEqual(oracle);
  });
});

describe('npm run fuzz names who is at fault', () => {
  const propertyModule = (body: string) => {
    const dir = tempDir();
    writeFileSync(join(dir, 'prop.mjs'), body);
    return join(dir, 'prop.mjs');
  };

  it('in the output, the plan file and fuzz.json: a behaviour property blames the planner', async () => {
    const prop = propertyModule(
      `export default { name: 'never-archive', check: (events) => !events.some((e) => e.type === 'call' && e.tool === 'archive_note' && e.status === 'ok') || 'archived' };\n`,
    );
    const out = tempDir();
    const r = await runCli(fuzzMain, [
      `--scenario=${scenarioFile(NOTES_YAML)}`,
      `--property=${prop}`,
      '--runs=50',
      `--out=${out}`,
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      'at fault: the planner: "never-archive" is a behaviour property: a planner that makes the calls of this generated plan breaks it',
    );
    expect(r.stdout).toContain('next:     make sure your planner never makes these calls');
    expect(readFileSync(join(out, 'archive-note', 'never-archive.yaml'), 'utf8')).toContain('# at fault: the planner:');
    const json = JSON.parse(readFileSync(join(out, 'fuzz.json'), 'utf8')) as {
      failures: { fault: { party: string } }[];
    };
    expect(json.failures.map((f) => f.fault.party)).toEqual(['planner']);
  });

  it('blames the scenario when lint finds errors in it', async () => {
    // The undo of restore_note is an irreversible purge: lint's reversible-asymmetric error.
    const withPurge = NOTES_YAML.replace(
      '  - name: restore_note\n    reversibility: reversible\n    compensating_operation: archive_note',
      '  - name: restore_note\n    reversibility: reversible\n    compensating_operation: purge_note',
    ).replace(
      'goal: ["notes_listed"]',
      `  - name: purge_note
    reversibility: irreversible
    parameters: { type: object, properties: { note: { type: string } }, required: [note] }
    effects: [ { delete: { table: notes, where: { id: "{{args.note}}" } } } ]
goal: ["notes_listed"]`,
    );
    expect(withPurge).toContain('compensating_operation: purge_note');
    const file = scenarioFile(withPurge);
    const prop = propertyModule(
      `export default { name: 'never-archive', check: (events) => !events.some((e) => e.type === 'call' && e.tool === 'archive_note' && e.status === 'ok') || 'archived' };\n`,
    );
    // Lint errors are load errors for fuzz: without --allow-lint-errors the scenario is refused (exit 2).
    const refused = await runCli(fuzzMain, [
      `--scenario=${file}`,
      `--property=${prop}`,
      '--runs=50',
      `--out=${tempDir()}`,
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('reversible-asymmetric');
    const r = await runCli(fuzzMain, [
      `--scenario=${file}`,
      `--property=${prop}`,
      '--runs=50',
      '--allow-lint-errors',
      `--out=${tempDir()}`,
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /at fault: the scenario: lint finds a problem in the scenario that can make any property fail, whoever plans: \[reversible-asymmetric\] tools\[2\]\.compensating_operation/,
    );
    expect(r.stdout).toContain(`next:     fix it first (npm run lint -- ${file}), then fuzz again`);
  });

  it('says a failure of a property oneway owns is a bug in oneway, with the replay command', async () => {
    const prop = propertyModule(
      `export default { name: 'oneway-invariant', owner: 'oneway', check: (events) => events.filter((e) => e.type === 'call').length < 2 || 'two calls' };\n`,
    );
    const r = await runCli(fuzzMain, [
      `--scenario=${scenarioFile(NOTES_YAML)}`,
      `--property=${prop}`,
      '--runs=50',
      `--out=${tempDir()}`,
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      'at fault: oneway (a bug): "oneway-invariant" checks oneway itself, not the scenario or a planner: this is a bug in oneway',
    );
    expect(r.stdout).toContain(
      'please report it to the oneway maintainers with the plan file and the replay command below',
    );
    expect(r.stdout).toMatch(/replay: +npm run eval -- --planner=scripted/);
  });

  it('refuses an owner it cannot blame, exit 2', async () => {
    const prop = propertyModule(`export default { name: 'p', owner: 'the-weather', check: () => true };\n`);
    const r = await runCli(fuzzMain, [
      `--scenario=${scenarioFile(NOTES_YAML)}`,
      `--property=${prop}`,
      `--out=${tempDir()}`,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('has owner "the-weather", which oneway cannot blame');
    expect(r.stderr).toContain('owner is one of oneway, scenario, planner, caller');
  });
});
