/**
 * Lint errors are load errors: a scenario `oneway lint` calls an error is refused by eval, fuzz,
 * serve and evaluate() as a file that did not load is (skipped, listed in results.problems with
 * its rule, printed as lint prints it, exit 2; the other scenarios still run), unless
 * --allow-lint-errors (`allowLintErrors`), when it runs and the results carry the finding.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../harness/api.ts';
import { REPO_ROOT } from '../../harness/cli/common.ts';
import { main as evalMain } from '../../harness/cli/eval.ts';
import { main as fuzzMain } from '../../harness/cli/fuzz.ts';
import { main as mergeMain } from '../../harness/cli/merge.ts';
import { main as serveMain } from '../../harness/cli/serve.ts';
import { UsageError } from '../../harness/core/errors.ts';
import { renderAnnotations } from '../../harness/features/report/github.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { cli } from '../helpers/compiled.ts';
import { readResults } from '../helpers/results.ts';
import { EMAIL_YAML } from '../helpers/run.ts';

const FIXTURE = resolve(import.meta.dirname, '../fixtures/lint-gate/undo-irreversible.yaml');
/** Where lint puts its error, and how both lint and eval print it. */
const FINDING =
  'lint.yaml:10:29 error [reversible-asymmetric] tools[0].compensating_operation: the compensation of reversible tool "open_ticket", delete_ticket, is irreversible itself\n    hint: declare it compensable';

/** A project with a clean scenario (email.yaml) and one lint calls an error (lint.yaml). */
function project(): string {
  const dir = tempDir('oneway-lint-gate-');
  writeFileSync(join(dir, 'package.json'), '{}');
  writeFileSync(join(dir, 'email.yaml'), EMAIL_YAML);
  writeFileSync(join(dir, 'lint.yaml'), readFileSync(FIXTURE, 'utf8'));
  return dir;
}
const both = '--scenario=email.yaml,lint.yaml';

describe('oneway eval', () => {
  it('skips a scenario lint calls an error, lists it in problems with its rule, runs the others, and exits 2', async () => {
    const dir = project();
    const r = await runCli(evalMain, [both, '--out=out', '--transport=inprocess'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(FINDING);
    expect(r.stderr).toContain('--allow-lint-errors');
    const results = readResults(join(dir, 'out'));
    expect(results.config.scenarios).toEqual(['email-tiny']);
    expect(results.runs.map((run) => run.scenario)).toEqual(['email-tiny']);
    expect(results.problems).toEqual([
      expect.objectContaining({ code: 'lint', rule: 'reversible-asymmetric', file: 'lint.yaml', line: 10, col: 29 }),
    ]);
    expect(results.lint).toBeUndefined();
  });

  it('runs nothing when lint refuses every scenario', async () => {
    const dir = project();
    const r = await runCli(evalMain, ['--scenario=lint.yaml', '--out=out'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no scenario passed lint; nothing was run');
    expect(existsSync(join(dir, 'out', 'results.json'))).toBe(false);
  });

  it('runs it with --allow-lint-errors; results.json and the reports carry the finding', async () => {
    const dir = project();
    const r = await runCli(
      evalMain,
      [both, '--out=out', '--transport=inprocess', '--allow-lint-errors', '--reporter=markdown,html'],
      dir,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(FINDING);
    const results = readResults(join(dir, 'out'));
    expect(results.config.scenarios).toEqual(['email-tiny', 'lint-undo-irreversible']);
    expect(results.problems).toEqual([]);
    expect(results.lint).toEqual([
      expect.objectContaining({ rule: 'reversible-asymmetric', severity: 'error', file: 'lint.yaml', line: 10 }),
    ]);
    expect(readFileSync(join(dir, 'out', 'report.md'), 'utf8')).toContain('1 lint error: scenarios ran with them');
    expect(readFileSync(join(dir, 'out', 'report.html'), 'utf8')).toContain('1 lint error</strong>');
    expect(renderAnnotations(results)).toContainEqual(
      expect.stringMatching(/^::warning file=lint\.yaml,line=10,col=29,title=oneway lint%3A reversible-asymmetric/),
    );
  });

  it('keeps the allowed findings when shards are merged, as the unsharded evaluation has them', async () => {
    const dir = project();
    mkdirSync(join(dir, 'more'));
    writeFileSync(join(dir, 'more', 'other.yaml'), EMAIL_YAML.replace('id: email-tiny', 'id: email-other'));
    const args = [`${both},more/other.yaml`, '--transport=inprocess', '--allow-lint-errors', '--reporter=json'];
    expect((await runCli(evalMain, [...args, '--out=whole'], dir)).code).toBe(0);
    for (const i of [1, 2])
      expect((await runCli(evalMain, [...args, `--shard=${i}/2`, `--out=s${i}`], dir)).code).toBe(0);
    expect((await runCli(mergeMain, ['--out=merged', '--reporter=json', 's1', 's2'], dir)).code).toBe(0);
    expect(readResults(join(dir, 'merged')).lint).toEqual(readResults(join(dir, 'whole')).lint);
  });
});

describe('evaluate()', () => {
  it('skips it and lists it in results.problems, or runs it with allowLintErrors', async () => {
    const dir = project();
    const refused = await evaluate({ cwd: dir, scenarios: ['email.yaml', 'lint.yaml'], out: 'a' });
    expect(refused.config.scenarios).toEqual(['email-tiny']);
    expect(refused.problems.map((p) => [p.code, p.rule])).toEqual([['lint', 'reversible-asymmetric']]);
    const allowed = await evaluate({
      cwd: dir,
      scenarios: ['email.yaml', 'lint.yaml'],
      out: 'b',
      allowLintErrors: true,
    });
    expect(allowed.config.scenarios).toEqual(['email-tiny', 'lint-undo-irreversible']);
    expect(allowed.problems).toEqual([]);
    expect(allowed.lint?.map((f) => f.rule)).toEqual(['reversible-asymmetric']);
  });

  it('throws, naming the finding, when lint refuses every scenario', async () => {
    const dir = project();
    await expect(evaluate({ cwd: dir, scenarios: ['lint.yaml'] })).rejects.toSatisfy(
      (e) => e instanceof UsageError && e.message.includes('[reversible-asymmetric]'),
    );
  });
});

describe('oneway fuzz', () => {
  it('skips it and exits 2; --allow-lint-errors fuzzes it and fuzz.json lists the finding', async () => {
    const dir = project();
    // One property that holds on email.yaml (the default ones find a counterexample there and shrink it).
    const fuzz = [both, '--runs=2', '--property=seal'];
    const refused = await runCli(fuzzMain, [...fuzz, '--out=a'], dir);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(FINDING);
    const a = JSON.parse(readFileSync(join(dir, 'a', 'fuzz.json'), 'utf8')) as {
      scenarios: { id: string }[];
      lint?: unknown;
    };
    expect(a.scenarios.map((s) => s.id)).toEqual(['email-tiny']);
    expect(a.lint).toBeUndefined();

    const allowed = await runCli(fuzzMain, [...fuzz, '--out=b', '--allow-lint-errors'], dir);
    expect(allowed.code, allowed.stderr).not.toBe(2);
    const b = JSON.parse(readFileSync(join(dir, 'b', 'fuzz.json'), 'utf8')) as {
      scenarios: { id: string }[];
      lint: { rule: string }[];
    };
    expect(b.scenarios.map((s) => s.id)).toEqual(['email-tiny', 'lint-undo-irreversible']);
    expect(b.lint.map((f) => f.rule)).toEqual(['reversible-asymmetric']);
  });
});

describe('oneway serve', () => {
  it('refuses to serve it (exit 2, the finding printed) and takes no lock', async () => {
    const dir = project();
    const r = await runCli(serveMain, ['--scenario=lint.yaml', '--out=served'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(FINDING);
    expect(r.stderr).toContain('--allow-lint-errors');
    expect(existsSync(join(dir, 'served'))).toBe(false);
  });

  // Over stdio the protocol is the process's own stdin and stdout: the server is a child process, of
  // the compiled CLI users run (it starts in half the time tsx takes).
  it('serves it with --allow-lint-errors, and results.json lists the finding', async () => {
    const out = tempDir('oneway-lint-gate-serve-');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cli('serve'), `--scenario=${FIXTURE}`, `--out=${out}`, '--allow-lint-errors'],
      cwd: REPO_ROOT,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'oneway-test', version: '1.0.0' });
    await client.connect(transport);
    await client.callTool({ name: 'finish', arguments: {} });
    await client.close();
    const results = readResults(out);
    expect(results.runs).toHaveLength(1);
    expect(results.lint).toEqual([
      expect.objectContaining({
        rule: 'reversible-asymmetric',
        file: 'test/fixtures/lint-gate/undo-irreversible.yaml',
      }),
    ]);
  });
});
