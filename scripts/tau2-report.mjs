#!/usr/bin/env node
/**
 * The rates table of docs/tau2.md, from the evaluations' results.json files.
 *
 *   node scripts/tau2-report.mjs --in=tau2-scenarios [--out=reports/tau2] [--domain=retail,airline]
 *                                [--planner=eager,speculative,gated,serial] [--tabulate-only]
 *
 * --in is the directory `oneway import tau2` wrote. For each domain it runs four evaluations with this
 * checkout's build (dist/, which `npm install` builds), each into its own directory under --out:
 *   OUT/<domain>/builtin          the built-in planners (--planner)
 *   OUT/<domain>/reference        the scripted planner replaying each scenario's reference_plan (--check)
 *   OUT/<domain>/gold             the scripted planner replaying each task's <id>.gold.yaml
 *   OUT/<domain>/gold-confirmed   ... and each task's <id>.gold-confirmed.yaml
 * The scripted planner replays one plan per evaluation (`--plan`) or each scenario's reference_plan, so
 * for the two gold plans the script writes a copy of every task whose reference_plan is that plan
 * (OUT/<domain>/scenarios-<plan>/, its `extends:` pointing at the import's shared files) and evaluates
 * those copies in one evaluation: the world is parsed once, not once per task.
 *
 * It then prints the table (completion, safe completion, premature rate and premature per 100
 * irreversible calls, each as the evaluation's results.json `summary` gives it) and writes it to
 * OUT/rates.md, with the checks of docs/tau2.md: the gold as shipped is premature on every write,
 * and the gold with confirmations is premature in exactly the tasks the import report says skip a
 * required lookup. --tabulate-only reads the results.json files already under OUT and runs nothing.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist/harness/cli/oneway.js');

const opts = { out: 'reports/tau2', domain: 'retail,airline', planner: 'eager,speculative,gated,serial' };
for (const a of process.argv.slice(2)) {
  const m = /^--([a-z-]+)(?:=(.*))?$/.exec(a);
  if (!m || !['in', 'out', 'domain', 'planner', 'tabulate-only', 'help'].includes(m[1])) {
    fail(`unknown argument ${JSON.stringify(a)}`, 'run with --help');
  }
  opts[m[1]] = m[2] ?? true;
}
if (opts.help) {
  process.stdout.write(
    readFileSync(fileURLToPath(import.meta.url), 'utf8')
      .split('*/')[0]
      .replace(/^#!.*\n\/\*\*\n/, ''),
  );
  process.exit(0);
}
if (typeof opts.in !== 'string') fail('--in is required', 'the directory `oneway import tau2 --out=DIR` wrote');
const inDir = resolve(opts.in);
const outDir = resolve(opts.out);
const domains = opts.domain.split(',').filter(Boolean);
for (const d of domains) {
  if (!['retail', 'airline'].includes(d)) fail(`--domain: unknown domain ${JSON.stringify(d)}`, 'retail or airline');
  if (!existsSync(join(inDir, d, 'tasks')))
    fail(`${join(inDir, d, 'tasks')} does not exist`, 'import the domain first');
}
if (!opts['tabulate-only'] && !existsSync(cli))
  fail(`${cli} does not exist`, 'run `npm run build` in the oneway checkout');

function fail(message, hint) {
  process.stderr.write(`tau2-report: ${message}\n  hint: ${hint}\n`);
  process.exit(2);
}

function oneway(args) {
  const started = Date.now();
  process.stderr.write(`$ oneway ${args.join(' ')}\n`);
  const r = spawnSync(process.execPath, [cli, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
  // eval exits 1 when a gate or --check fails; results.json is written either way. 2 is a usage error.
  if (r.status !== 0 && r.status !== 1)
    fail(`oneway ${args[0]} exited ${r.status ?? r.signal}`, 'see its message above');
  process.stderr.write(`  (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
}

/** A copy of a task whose reference_plan is the plan in `planFile`, its extends re-rooted at `toDir`. */
function taskWithPlan(taskFile, planFile, toDir) {
  const task = readFileSync(taskFile, 'utf8').split('\n');
  const plan = readFileSync(planFile, 'utf8').split('\n');
  const items = plan.slice(plan.indexOf('plan:') + 1).filter((l) => l.startsWith('  - '));
  const out = [];
  let block = '';
  for (const line of task) {
    if (/^\S/.test(line)) block = line.replace(/:.*/, '');
    if (block === 'reference_plan') {
      if (line === 'reference_plan:') out.push(line, ...items);
      continue;
    }
    if (block === 'extends' && line.startsWith('  - ')) {
      const target = resolve(dirname(taskFile), line.slice(4));
      out.push(`  - ${relative(toDir, target)}`);
      continue;
    }
    out.push(line);
  }
  return out.join('\n');
}

const plans = ['gold', 'gold-confirmed'];
if (!opts['tabulate-only']) {
  for (const d of domains) {
    const tasks = join(inDir, d, 'tasks');
    for (const p of plans) {
      const dir = join(outDir, d, `scenarios-${p}`);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      for (const f of readdirSync(tasks).filter((n) => n.endsWith('.yaml'))) {
        const planFile = join(inDir, d, 'plans', f.replace(/\.yaml$/, `.${p}.yaml`));
        writeFileSync(join(dir, f), taskWithPlan(join(tasks, f), planFile, dir));
      }
    }
    const common = ['--trials=1', '--seed=1', '--reporter=json'];
    oneway([
      'eval',
      `--planner=${opts.planner}`,
      `--scenario=${tasks}`,
      `--out=${join(outDir, d, 'builtin')}`,
      ...common,
    ]);
    oneway([
      'eval',
      '--planner=scripted',
      '--check',
      `--scenario=${tasks}`,
      `--out=${join(outDir, d, 'reference')}`,
      ...common,
    ]);
    for (const p of plans) {
      const scen = join(outDir, d, `scenarios-${p}`);
      oneway(['eval', '--planner=scripted', `--scenario=${scen}`, `--out=${join(outDir, d, p)}`, ...common]);
    }
  }
}

const pct = (x) => `${(100 * x).toFixed(1)}%`;
const results = (d, which) => {
  const f = join(outDir, d, which, 'results.json');
  if (!existsSync(f)) fail(`${f} does not exist`, 'run without --tabulate-only first');
  return JSON.parse(readFileSync(f, 'utf8'));
};
const byNumber = (a, b) => Number(a.replace(/\D+/g, '')) - Number(b.replace(/\D+/g, ''));
const report = JSON.parse(readFileSync(join(inDir, 'import-report.json'), 'utf8'));

const rows = [];
const notes = [];
for (const d of domains) {
  const rowOf = (label, s) =>
    rows.push(
      `| ${d} | ${label} | ${s.runs} | ${pct(s.completion_rate)} | ${pct(s.safe_completion_rate)} | ` +
        `${pct(s.premature_irreversible_rate)} | ${s.premature_irreversible_per_100.toFixed(1)} |`,
    );
  for (const s of results(d, 'builtin').summary) rowOf(s.planner, s);
  const label = { gold: 'gold as shipped', 'gold-confirmed': 'gold with confirmation', reference: 'reference plan' };
  for (const which of ['gold', 'gold-confirmed', 'reference']) rowOf(label[which], results(d, which).summary[0]);

  // The checks: writes are the gold-confirmed plan's confirmations (one before each write).
  const writes = new Map();
  for (const f of readdirSync(join(inDir, d, 'plans')).filter((n) => n.endsWith('.gold-confirmed.yaml'))) {
    const n = readFileSync(join(inDir, d, 'plans', f), 'utf8')
      .split('\n')
      .filter((l) => l.includes('{"confirm_with_user"'));
    writes.set(f.replace(/\.gold-confirmed\.yaml$/, ''), n.length);
  }
  const premature = (r) => r.premature.irreversible + r.premature.compensable;
  const goldRuns = results(d, 'gold').runs;
  const notEvery = goldRuns.filter((r) => premature(r) !== writes.get(r.scenario)).map((r) => r.scenario);
  const totalWrites = goldRuns.reduce((n, r) => n + writes.get(r.scenario), 0);
  const totalPremature = goldRuns.reduce((n, r) => n + premature(r), 0);
  notes.push(
    `- ${d}, gold as shipped: ${totalPremature} premature calls for ${totalWrites} writes; ` +
      (notEvery.length === 0
        ? 'every write premature.'
        : `not every write premature in ${notEvery.sort(byNumber).join(', ')}.`),
  );
  const confirmed = results(d, 'gold-confirmed')
    .runs.filter((r) => premature(r) > 0)
    .map((r) => r.scenario)
    .sort(byNumber);
  const skips = report.tasks
    .filter((t) => t.domain === d && t.findings.some((f) => f.kind === 'gold-skips-required-lookup'))
    .map((t) => t.scenario)
    .sort(byNumber);
  // A gold write tau2 itself refuses may be premature on a precondition the policy states (retail 64:
  // an exchange of a pending order): named with the import report's finding, not counted as a lookup.
  const failsInTau2 = (s) =>
    report.tasks
      .find((t) => t.scenario === s)
      ?.findings.find((f) => f.kind === 'gold-write-fails-in-tau2')
      ?.message.replace(/\. tau2 ignores.*$/, '');
  const onlyRun = confirmed
    .filter((s) => !skips.includes(s))
    .map((s) => {
      const why = failsInTau2(s);
      return why ? `${s} (${why})` : s;
    });
  const onlyReport = skips.filter((s) => !confirmed.includes(s));
  notes.push(
    `- ${d}, gold with confirmation: premature in ${confirmed.length} of the ${[...writes.values()].filter((n) => n > 0).length} tasks with a write ` +
      `(${confirmed.map((s) => s.replace(/^tau2-\w+-/, '')).join(', ') || 'none'}); ` +
      `the import report's tasks that skip a required lookup: ${skips.length}` +
      (onlyRun.length + onlyReport.length === 0
        ? ', the same tasks.'
        : `; premature but not in the report: ${onlyRun.join(', ') || 'none'}; in the report but not premature: ${onlyReport.join(', ') || 'none'}.`),
  );
  const failing = results(d, 'reference')
    .runs.filter((r) => !r.completed || r.error)
    .map((r) => r.scenario);
  if (failing.length > 0) notes.push(`- ${d}, reference plan: not completed in ${failing.sort(byNumber).join(', ')}.`);
}

const table = [
  '| domain | planner or plan | runs | completion | safe completion | premature (runs with a premature irreversible call) | premature irreversible per 100 calls |',
  '|---|---|---|---|---|---|---|',
  ...rows,
].join('\n');
const text = `${table}\n\n${notes.join('\n')}\n`;
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, 'rates.md'), text);
process.stdout.write(text);
process.stderr.write(`wrote ${join(outDir, 'rates.md')}\n`);
