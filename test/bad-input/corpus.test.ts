/**
 * The bad-input corpus: every file under scenarios/ and plans/ here has one deliberate
 * defect, described in its header comment, and an exact expectation in expected.yaml.
 * Loading it gives positioned problems with hints and never throws; the real CLI exits 2
 * and prints `file:line:col error [code] path: message` with a hint line, never a stack
 * trace; and a bad scenario never stops the good one beside it.
 *
 * The CLI (its `main`, in process) runs once over a directory of every bad scenario file and one
 * good one; each file's test reads its own lines and problems from that run (one evaluation in
 * place of one a file: the good scenario runs beside all of them). A plan file is run once and
 * read by each test about it.
 */
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { z } from 'zod';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../harness/cli/eval.ts';
import { formatProblem, type Problem } from '../../harness/core/errors.ts';
import { loadPlanFile, loadScenarioFile } from '../../harness/engine/loader/load.ts';
import { MAX_SOURCE_BYTES } from '../../harness/engine/loader/yaml-source.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { readResults } from '../helpers/results.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = join(HERE, '..', '..');
const SCENARIOS = join(HERE, 'scenarios');
const PLANS = join(HERE, 'plans');
/** The good scenario run beside each bad one, and the scenario plans are checked against. */
const GOOD = join(REPO, 'scenarios', 'billing', 'invoice-and-notify.yaml');
const GOOD_ID = 'invoice-and-notify';

const Expectation = z.strictObject({
  defect: z.string().min(10),
  against: z.string().optional(),
  needs_scenario: z.boolean().optional(),
  code: z.string(),
  path: z.string().min(1),
  line: z.number().int().min(1),
  col: z.number().int().min(1),
  hint: z.string().min(3),
  problems: z.number().int().min(1),
});
type Expectation = z.infer<typeof Expectation>;
const Corpus = z.strictObject({
  scenarios: z.record(z.string(), Expectation),
  plans: z.record(z.string(), Expectation),
  generated: z.record(z.string(), Expectation),
});
const corpus = Corpus.parse(parse(readFileSync(join(HERE, 'expected.yaml'), 'utf8')));

const scenarioFiles = readdirSync(SCENARIOS).sort();
const planFiles = readdirSync(PLANS).sort();
const expectationOf = (table: Record<string, Expectation>, name: string): Expectation => {
  const e = table[name];
  if (!e) throw new Error(`${name} has no expectation in expected.yaml`);
  return e;
};
const STACK_TRACE = /\n\s+at /;

/** Every problem positioned (1-based) with a message and a hint; the first one exactly as expected. */
function expectProblems(problems: Problem[], exp: Expectation, file: string): void {
  const shown = problems.map(formatProblem).join('\n');
  expect(problems, shown).toHaveLength(exp.problems);
  for (const p of problems) {
    expect(p.file).toBe(file);
    expect(Number.isInteger(p.line) && p.line >= 1, `line of ${formatProblem(p)}`).toBe(true);
    expect(Number.isInteger(p.col) && p.col >= 1, `col of ${formatProblem(p)}`).toBe(true);
    expect(p.message.trim(), shown).not.toBe('');
    expect(p.hint?.trim(), `hint of ${formatProblem(p)}`).toBeTruthy();
  }
  const first = problems[0];
  expect({ code: first?.code, path: first?.path, line: first?.line, col: first?.col }, shown).toEqual({
    code: exp.code,
    path: exp.path,
    line: exp.line,
    col: exp.col,
  });
  expect(first?.hint).toContain(exp.hint);
}

type CliRun = { code: number; stdout: string; stderr: string };

/** Exit 2, no stack trace, and the expected problem as `file:line:col error [code] path: ...` followed by its hint. */
function expectCliReport(r: CliRun, shown: string, exp: Expectation): void {
  expect(`${r.stdout}\n${r.stderr}`).not.toMatch(STACK_TRACE);
  expect(r.code, r.stderr).toBe(2);
  const lines = r.stderr.split('\n');
  const located = lines.filter((l) => l.startsWith(`${shown}:`));
  expect(located, r.stderr).toHaveLength(exp.problems);
  for (const l of located) expect(l.slice(shown.length)).toMatch(/^:[1-9]\d*:[1-9]\d* error \[[a-z_]+\] \S/);
  const i = lines.findIndex((l) => l.startsWith(`${shown}:${exp.line}:${exp.col} error [${exp.code}] ${exp.path}: `));
  expect(i, r.stderr).toBeGreaterThanOrEqual(0);
  expect(lines[i + 1]).toMatch(/^ {4}hint: /);
  expect(lines[i + 1]).toContain(exp.hint);
}

describe('the corpus', () => {
  it('holds at least 40 scenario files and 8 plan files, each with an expectation, and no stale expectations', () => {
    expect(scenarioFiles.length).toBeGreaterThanOrEqual(40);
    expect(planFiles.length).toBeGreaterThanOrEqual(8);
    expect(Object.keys(corpus.scenarios).sort()).toEqual(scenarioFiles);
    expect(Object.keys(corpus.plans).sort()).toEqual(planFiles);
  });

  it('says in each file header what is wrong and what must be reported (JSON has no comments: expected.yaml says it)', () => {
    for (const [dir, files] of [[SCENARIOS, scenarioFiles], [PLANS, planFiles]] as const) {
      for (const name of files.filter((f) => !f.endsWith('.json'))) {
        const lines = readFileSync(join(dir, name), 'latin1').split('\n');
        const header = lines.slice(0, lines.findIndex((l) => !l.startsWith('#')));
        expect(header[0], name).toMatch(/^# Defect: \S/);
        expect(header.some((l) => /^# Must report: \S/.test(l)), name).toBe(true);
      }
    }
  });
});

describe('bad scenario files', () => {
  it.each(scenarioFiles)('%s: loading gives the expected positioned problems with hints, and never throws', (name) => {
    const file = join(SCENARIOS, name);
    const r = loadScenarioFile(file);
    expect(r.ok, `${name} loaded`).toBe(false);
    if (!r.ok) expectProblems(r.problems, expectationOf(corpus.scenarios, name), file);
  });

  // One CLI run over every bad file and the good one, in one directory.
  let r: CliRun;
  let results: ReturnType<typeof readResults>;
  beforeAll(async () => {
    const dir = tempDir('oneway-bad-');
    for (const name of scenarioFiles) copyFileSync(join(SCENARIOS, name), join(dir, name));
    copyFileSync(GOOD, join(dir, 'good.yaml'));
    const out = tempDir('oneway-out-');
    // A directory picks up .yaml and .yml only; a .json scenario is named.
    const json = scenarioFiles.filter((f) => f.endsWith('.json'));
    r = await runCli(main, [`--scenario=${['.', ...json].join(',')}`, '--planner=gated,eager', '--transport=inprocess', `--out=${out}`], dir);
    results = readResults(out);
  });

  it.each(scenarioFiles)('%s: the CLI reports it (exit 2, file:line:col, path, hint) and still runs the good scenario beside it', (name) => {
    const exp = expectationOf(corpus.scenarios, name);
    expectCliReport(r, name, exp);
    expect(results.problems.filter((p) => p.file === name)).toHaveLength(exp.problems);
    expect(results.runs.map((x) => x.scenario)).toEqual([GOOD_ID, GOOD_ID]);
  });

  it('a directory of every bad file and one good file: each bad file is reported, the good one runs', () => {
    expect(`${r.stdout}\n${r.stderr}`).not.toMatch(STACK_TRACE);
    expect(r.code).toBe(2);
    expect(results.runs.map((x) => `${x.scenario}/${x.planner}`).sort()).toEqual([`${GOOD_ID}/eager`, `${GOOD_ID}/gated`]);
    expect([...new Set(results.problems.map((p) => p.file))].sort()).toEqual(scenarioFiles);
    const total = scenarioFiles.reduce((n, f) => n + expectationOf(corpus.scenarios, f).problems, 0);
    expect(results.problems).toHaveLength(total);
    for (const name of scenarioFiles) {
      const exp = expectationOf(corpus.scenarios, name);
      expect(r.stderr).toContain(`${name}:${exp.line}:${exp.col} error [${exp.code}] ${exp.path}: `);
    }
  });
});

describe('huge-file.yaml (generated: a realistic scenario grown past the size limit)', () => {
  const exp = expectationOf(corpus.generated, 'huge-file.yaml');
  const dir = tempDir('oneway-huge-');
  const file = join(dir, 'huge-file.yaml');

  beforeAll(() => {
    // A world table that someone exported in full into the scenario.
    const text = readFileSync(GOOD, 'utf8').replace('id: invoice-and-notify', 'id: invoice-and-notify-huge');
    const row = (i: number) => `      - { id: in_${String(i).padStart(8, '0')}, customer: northwind-traders, amount: 100.00, currency: EUR, status: paid }\n`;
    const rows: string[] = [];
    let bytes = Buffer.byteLength(text);
    for (let i = 0; bytes <= MAX_SOURCE_BYTES; i++) {
      const r = row(i);
      rows.push(r);
      bytes += r.length;
    }
    writeFileSync(file, text.replace('    invoices:\n', `    invoices:\n${rows.join('')}`));
  });

  it('is refused quickly, before parsing, as one whole-file problem', () => {
    // From the size alone (test/loader/load.test.ts shows the file is not read): one whole-file problem.
    const r = loadScenarioFile(file);
    expect(r.ok).toBe(false);
    if (!r.ok) expectProblems(r.problems, exp, file);
  });

  it('the CLI reports it and still runs the good scenario beside it', async () => {
    copyFileSync(GOOD, join(dir, 'good.yaml'));
    const out = tempDir('oneway-out-');
    const r = await runCli(main, ['--scenario=.', '--planner=gated', '--transport=inprocess', `--out=${out}`], dir);
    expectCliReport(r, 'huge-file.yaml', exp);
    expect(readResults(out).runs.map((x) => x.scenario)).toEqual([GOOD_ID]);
  });
});

describe('bad plan files (--plan=FILE --planner=scripted)', () => {
  const loaded = loadScenarioFile(GOOD);
  if (!loaded.ok) throw new Error(`the good scenario does not load: ${loaded.problems.map(formatProblem).join('\n')}`);
  const scenario = loaded.value.scenario;
  const independent = planFiles.filter((f) => !expectationOf(corpus.plans, f).needs_scenario);
  const needsScenario = planFiles.filter((f) => expectationOf(corpus.plans, f).needs_scenario);

  it('are all checked against the good scenario', () => {
    for (const f of planFiles) expect(join(REPO, expectationOf(corpus.plans, f).against ?? '')).toBe(GOOD);
  });

  it.each(planFiles)('%s: loading against the scenario gives the expected positioned problems with hints', (name) => {
    const file = join(PLANS, name);
    const r = loadPlanFile(file, scenario);
    expect(r.ok, `${name} loaded`).toBe(false);
    if (!r.ok) expectProblems(r.problems, expectationOf(corpus.plans, name), file);
  });

  it.each(independent)('%s: loading without a scenario gives the same problems', (name) => {
    const file = join(PLANS, name);
    const r = loadPlanFile(file);
    expect(r.ok).toBe(false);
    if (!r.ok) expectProblems(r.problems, expectationOf(corpus.plans, name), file);
  });

  it.each(independent)('%s: the CLI reports it (exit 2, file:line:col, path, hint) and runs nothing', async (name) => {
    const file = join(PLANS, name);
    const out = tempDir('oneway-out-');
    const r = await runCli(main, [`--scenario=${GOOD}`, `--plan=${file}`, '--planner=scripted', '--transport=inprocess', `--out=${out}`]);
    expectCliReport(r, file, expectationOf(corpus.plans, name));
    expect(r.stderr).toContain('the plan file has errors; nothing was run');
  });

  /** The CLI run with a plan file that needs the scenario, once a file (two tests read it). */
  const planRuns = new Map<string, Promise<CliRun>>();
  const planRun = (name: string): Promise<CliRun> => {
    if (!planRuns.has(name)) {
      const out = tempDir('oneway-out-');
      planRuns.set(name, runCli(main, [`--scenario=${GOOD}`, `--plan=${join(PLANS, name)}`, '--planner=scripted', '--transport=inprocess', `--out=${out}`]));
    }
    return planRuns.get(name)!;
  };

  it.each(needsScenario)('%s: the CLI never prints a stack trace for it', async (name) => {
    const r = await planRun(name);
    expect(`${r.stdout}\n${r.stderr}`).not.toMatch(STACK_TRACE);
    expect([0, 2]).toContain(r.code);
  });

  // A plan that calls an undeclared tool or omits a required argument is an error only against a
  // scenario: eval checks --plan against each selected scenario.
  it.each(needsScenario)('%s: the CLI reports it against the scenario (exit 2, file:line:col, path, hint)', async (name) => {
    expectCliReport(await planRun(name), join(PLANS, name), expectationOf(corpus.plans, name));
  });
});
