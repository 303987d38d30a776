import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../../harness/cli/lint.ts';
import { runCli } from '../helpers/cli.ts';

const dir = fileURLToPath(new URL('./fixtures/', import.meta.url));

describe('npm run lint', () => {
  it('exits 0 on a clean file', async () => {
    const r = await runCli(main, ['clean.yaml'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('1 file: 0 errors, 0 warnings, 0 notes\n');
  });

  it('exits 0 with warnings only, 1 with errors; findings as file:line:col severity [rule] path: message, hint below', async () => {
    const warn = await runCli(main, ['review-pending.yaml'], dir);
    expect(warn.code).toBe(0);
    expect(warn.stdout).toBe(
      'review-pending.yaml:9:13 warning [review-pending] tools[0].review: tool "get_issue" is not reviewed yet (class reversible as imported)\n' +
        '    hint: check its class as deployed, its compensation and its preconditions, then remove review: true\n',
    );
    const err = await runCli(main, ['read-only-effects.yaml'], dir);
    expect(err.code).toBe(1);
    expect(err.stdout).toMatch(/^read-only-effects\.yaml:12:17 error \[read-only-effects\] /);
  });

  it('takes directories and globs like --scenario, reports load failures and lints the rest', async () => {
    const r = await runCli(main, ['drift/', 'broken.yaml'], dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('broken.yaml:6:20 error [load/invalid_enum]');
    expect(r.stdout).toContain('drift/purge-no-pitr.yaml:9:7 warning [deployment-class]');
    expect(r.stderr).toContain('4 files:');
    const glob = await runCli(main, ['drift/*-pitr*.yaml'], dir);
    expect(glob.stderr).toContain('3 files:');
  });

  it('--quiet shows errors only; --reporter=json gives every finding', async () => {
    const quiet = await runCli(main, ['unreachable-precondition.yaml', '--quiet'], dir);
    expect(quiet.stdout.split('\n').filter((l) => /^\S/.test(l))).toHaveLength(1);
    const json = await runCli(main, ['unreachable-precondition.yaml', '--reporter=json'], dir);
    expect(json.stderr).toBe('');
    const doc = JSON.parse(json.stdout) as {
      errors: number;
      warnings: number;
      findings: { rule: string; line: number }[];
    };
    expect([doc.errors, doc.warnings]).toEqual([1, 3]);
    expect(doc.findings[0]).toMatchObject({ rule: 'unreachable-precondition', line: 14, col: 9, severity: 'error' });
  });

  it("leaves out the plans of a folder (an import's plans/), saying how many; a plan named is an error that says what it is", async () => {
    const folder = await runCli(main, ['imported/'], dir);
    expect(folder.stdout).toBe('');
    expect(folder.stderr).toBe(
      'oneway lint: 2 plan files left out (imported/plans/lint-clean.gold.yaml, ...): a plan is a list of calls, not a scenario; oneway eval --planner=scripted --plan=FILE replays one\n' +
        '1 file: 0 errors, 0 warnings, 0 notes\n',
    );
    expect(folder.code).toBe(0);
    const named = await runCli(main, ['imported/plans/lint-clean.reference.yaml'], dir);
    expect(named.code).toBe(1);
    expect(named.stdout).toBe(
      'imported/plans/lint-clean.reference.yaml:1:1 error [load/plan] (root): this file is a plan (a list of calls), not a scenario\n' +
        '    hint: replay it with oneway eval --planner=scripted --plan=FILE --scenario=<the scenario it was written for>; a directory of scenarios leaves its plans out\n',
    );
  });

  it('exits 2 when a path names nothing, or on a bad option', async () => {
    const missing = await runCli(main, ['nope.yaml'], dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no such file or directory: nope.yaml');
    const bad = await runCli(main, ['--reporter=xml'], dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--reporter must be text or json');
    const disagree = await runCli(main, ['--reporter=json', '--format=text'], dir);
    expect(disagree.code).toBe(2);
    expect(disagree.stderr).toContain('--reporter=json and --format=text disagree');
  });

  it('still takes --format, the former name of --reporter, with a one-line warning on stderr', async () => {
    const json = await runCli(main, ['clean.yaml', '--format=json'], dir);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ files: ['clean.yaml'], errors: 0 });
    expect(json.stderr).toBe(
      'oneway: warning: --format is deprecated: write --reporter=json (the same option, as in oneway eval)\n',
    );
  });
});
