import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { main } from '../../harness/cli/eval.ts';
import { main as merge } from '../../harness/cli/merge.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { runCompiled } from '../helpers/compiled.ts';
import { readResults, timeless } from '../helpers/results.ts';

/**
 * The eval command's analysis across runs, in process (its `main`; merge's for shards): the same
 * results for any --concurrency, on worker threads (the compiled CLI in a process; restart faults
 * included) and merged from shards;
 * --fail-on gates and the baseline gate; intervals that count scenarios, not trials; and the junit,
 * markdown and github reporters.
 *
 * Runs go through the in-process transport (the same sandbox, 4-5 times faster than MSW's HTTP)
 * wherever the transport is not what a test is about; --concurrency is tested over MSW, where
 * concurrent runs share one request interceptor. The evaluations run a part of the bundled suite,
 * chosen for what the assertions need, not all of it (a whole-suite evaluation is CI's own step and
 * eval.test.ts's eager-against-gated check). Tests that observe different things of one evaluation
 * share it (evaluated once, by the first test that asks): the shards of one evaluation are merged
 * as they are and with gates, and one gated evaluation of eager and gated gives the gate's exit and
 * message, junit.xml and report.md.
 */
const fast = '--transport=inprocess';
/**
 * Nine bundled scenarios: seven where eager calls an irreversible tool prematurely and gated does
 * not (a sign test over seven scenarios all changed one way has p = 0.016, so the baseline gate can
 * see a regression; gated does not complete one of them), two where neither does; restarts,
 * timeouts and a deployment-dependent tool class among them.
 */
const SOME = [
  'invoice-and-notify',
  'release-with-migration',
  'webhook-timeout-reconcile',
  'refund-restart-key',
  'share-report-public-bucket-shortcut',
  'delete-prefix-versioning-off',
  'cancel-order-customer-declines',
  'change-flight-with-fee',
  'purge-inactive-accounts',
];
const some = `--scenario=${SOME.join(',')}`;
const base = ['--planner=eager,gated', '--trials=2', '--seed=9', fast, some];

/** Evaluated at most once, by the first test that asks. */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
}

/** `base` unsharded, and in three shards. */
const sharded = once(async () => {
  const whole = tempDir();
  expect((await runCli(main, [...base, `--out=${whole}`])).code).toBe(0);
  const shards = [tempDir(), tempDir(), tempDir()];
  for (const [i, dir] of shards.entries())
    expect((await runCli(main, [...base, `--shard=${i + 1}/3`, `--out=${dir}`])).code).toBe(0);
  return { whole, shards };
});

/**
 * Eager and gated over SOME, with a --fail-on gate eager fails and one gated holds, compared with
 * eager, and written as junit.xml and report.md too.
 */
const gatedEval = once(async () => {
  const out = tempDir();
  const r = await runCli(main, [
    '--planner=eager,gated',
    fast,
    some,
    '--baseline-planner=eager',
    '--fail-on=premature_irreversible_rate>0',
    '--fail-on=gated:errors>0',
    '--reporter=junit,markdown',
    `--out=${out}`,
  ]);
  return { ...r, out };
});

describe('scale: concurrency and shards', () => {
  it('gives results identical to a serial run with --concurrency', async () => {
    const [a, b] = [tempDir(), tempDir()];
    // Five scenarios (a timeout, restarts, a release) × 2 planners × 2 trials: 20 runs, 5 in flight at once.
    const msw = ['--planner=eager,gated', '--trials=2', '--seed=9', `--scenario=${SOME.slice(0, 5).join(',')}`];
    expect((await runCli(main, [...msw, `--out=${a}`])).code).toBe(0);
    expect((await runCli(main, [...msw, '--concurrency=5', `--out=${b}`])).code).toBe(0);
    expect(timeless(readResults(b))).toEqual(timeless(readResults(a)));
  });

  // One pair of evaluations for both. The --workers one is the compiled CLI's, in a process of its
  // own: worker threads started from this process (the source) would each compile the engine through
  // tsx as they start, most of what the evaluation cost.
  it('gives results and records identical to a serial run with --workers (threads, the compiled CLI), --restart-at faults included', async () => {
    const [a, b] = [tempDir(), tempDir()];
    const args = [
      '--planner=eager,gated',
      '--trials=2',
      '--seed=9',
      '--restart-at=2',
      '--scenario=invoice-and-notify,release-with-migration,webhook-timeout-reconcile',
    ];
    expect((await runCli(main, [...args, `--out=${a}`])).code).toBe(0);
    const workers = await runCompiled('eval', [...args, '--workers=2', `--out=${b}`]);
    expect(workers.code, workers.stderr).toBe(0);
    const records = (dir: string) => readResults(dir).runs.map((r) => readFileSync(join(dir, r.record), 'utf8'));
    // The fault fired (a restart event in a record), so the workers had restarts to run the same.
    expect(records(a).some((text) => text.includes('"type":"restart"'))).toBe(true);
    expect(timeless(readResults(b))).toEqual(timeless(readResults(a)));
    expect(records(b)).toEqual(records(a));
  });

  it('merges shards into the results of the unsharded run, records included', async () => {
    const { whole, shards } = await sharded();
    const sizes = shards.map((d) => readResults(d).scenarios.length);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(readResults(whole).scenarios.length);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    const merged = tempDir();
    expect((await runCli(merge, [`--out=${merged}`, ...shards])).code).toBe(0);
    expect(timeless(readResults(merged))).toEqual(timeless(readResults(whole)));
    const run = readResults(merged).runs[0]!;
    expect(readFileSync(join(merged, run.record), 'utf8')).toEqual(readFileSync(join(whole, run.record), 'utf8'));
  });

  it('applies gates when merging, exiting 1 when one fails', async () => {
    const { shards } = await sharded();
    const out = tempDir();
    const r = await runCli(merge, [
      `--out=${out}`,
      '--baseline-planner=eager',
      '--fail-on=premature_irreversible_rate>0',
      '--reporter=markdown',
      ...shards,
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/gate failed: eager premature_irreversible_rate/);
    expect(readResults(out).comparisons[0]).toMatchObject({ baseline: 'eager', candidate: 'gated' });
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toContain('### Against `eager`');
  });

  it('refuses to merge shards of different evaluations', async () => {
    const a = (await sharded()).shards[0]!;
    const b = tempDir();
    await runCli(main, ['--planner=gated', fast, some, '--shard=2/3', `--out=${b}`]);
    const r = await runCli(merge, [`--out=${tempDir()}`, a, b]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the shards differ in planners');
  });

  it.each(['0/2', '3/2', 'half'])('exits 2 on --shard=%s', async (s) => {
    const r = await runCli(main, [`--shard=${s}`, `--out=${tempDir()}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--shard must be i/n');
  });
});

describe('gates', () => {
  /**
   * Gated over SOME, 2 trials, as a baseline; then the same evaluation gated by that baseline and by
   * two --fail-on gates gated holds.
   */
  const againstItself = once(async () => {
    const baseline = tempDir();
    expect((await runCli(main, ['--planner=gated', '--trials=2', fast, some, `--out=${baseline}`])).code).toBe(0);
    const out = tempDir();
    const same = await runCli(main, [
      '--planner=gated',
      '--trials=2',
      fast,
      some,
      `--baseline=${join(baseline, 'results.json')}`,
      '--fail-on=premature_irreversible_rate>0',
      '--fail-on=safe_completion_rate<50%',
      `--out=${out}`,
    ]);
    return { baseline, same: { ...same, out } };
  });

  it('exits 1 naming planner, metric, value and threshold when a --fail-on gate fails', async () => {
    const { out, ...r } = await gatedEval();
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/gate failed: eager premature_irreversible_rate = 0\.\d+ \(fails when > 0\)/);
    expect(r.stderr).not.toContain('gate failed: gated');
    expect(readResults(out).gates.failures.map((f) => f.planner)).toEqual(['eager']);
  });

  it('exits 0 when every gate holds', async () => {
    const { same } = await againstItself();
    expect(same.code, same.stderr).toBe(0);
    const gates = readResults(same.out).gates;
    expect(gates.expressions).toEqual(['premature_irreversible_rate>0', 'safe_completion_rate<50%']);
    expect(gates.failures).toEqual([]);
  });

  it.each([
    ['premature>0', 'unknown metric "premature"'],
    ['premature_irreversible_rate', 'is not a gate'],
    ['premature_irreversible_rate => 1', 'is not a gate'],
  ])('exits 2 on the malformed gate %s', async (expr, message) => {
    const r = await runCli(main, [`--fail-on=${expr}`, `--out=${tempDir()}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });

  it('fails on a regression beyond noise against a committed baseline, and holds against itself', async () => {
    const { baseline, same } = await againstItself();
    expect(same.code, same.stderr).toBe(0);
    expect(readResults(same.out).gates.baseline?.comparisons).toHaveLength(1);
    // A "gated" that is really eager: the regression the baseline gate exists to catch.
    const dir = tempDir();
    writeFileSync(
      join(dir, 'gated.ts'),
      `import eager from '${join(process.cwd(), 'planners/eager.ts')}';\nexport default { name: 'gated', create: (ctx: never) => ({ ...eager.create(ctx), name: 'gated' }) };\n`,
    );
    const out = tempDir();
    const worse = await runCli(main, [
      `--planner=${join(dir, 'gated.ts')}`,
      '--trials=2',
      fast,
      some,
      `--baseline=${join(baseline, 'results.json')}`,
      `--out=${out}`,
    ]);
    expect(worse.code).toBe(1);
    expect(worse.stderr).toMatch(
      /baseline regression: gated premature-irreversible rate changed by \+\d+ points over \d+ scenarios \(\d+ changed; \d+ paired runs\)/,
    );
    // The gate judges the scenarios, not the runs: n is the scenario count.
    const gate = readResults(out).gates.baseline!.comparisons[0]!.overall;
    expect(gate.scenarios).toBe(readResults(out).scenarios.length);
    expect(gate.pairs).toBe(2 * gate.scenarios);
  });

  it('exits 2 on a baseline that is not a results file', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'results.json'), '{"hello": 1}');
    const r = await runCli(main, [`--baseline=${join(dir, 'results.json')}`, `--out=${tempDir()}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('is not a oneway results.json');
  });
});

describe('statistics: the scenario is the unit of evidence', () => {
  // The six bundled scenarios where speculative's completion, safe completion or premature rate
  // differs from eager's (four for each rate, all one way: p = 0.125 over scenarios, as over the whole
  // suite; p < 0.01 from 2 trials were each trial counted), and four where none does.
  const STATS = [
    'export-customers-to-analytics-vendor',
    'invoice-and-notify',
    'rotate-leaked-partner-api-key',
    'share-report-public-bucket-shortcut',
    'vendor-support-ticket-config',
    'void-and-reissue-wrong-invoice',
    'cancel-order-customer-declines',
    'change-flight-with-fee',
    'refund-restart-key',
    'webhook-timeout-reconcile',
  ];

  it('gives the same intervals, p-values and verdicts at --trials=1, 2 and 3 for deterministic planners', async () => {
    const at = async (trials: number) => {
      const out = tempDir();
      expect(
        (
          await runCli(main, [
            '--planner=eager,speculative,gated',
            `--trials=${trials}`,
            fast,
            `--scenario=${STATS.join(',')}`,
            '--seed=1',
            '--baseline-planner=eager',
            `--out=${out}`,
          ])
        ).code,
      ).toBe(0);
      const r = readResults(out);
      // Deterministic planners: every trial of a scenario × planner repeats the first.
      for (const run of r.runs) {
        const first = r.runs.find((x) => x.planner === run.planner && x.scenario === run.scenario && x.trial === 1)!;
        expect([run.completed, run.safe_completed, run.premature, run.irreversible_calls]).toEqual([
          first.completed,
          first.safe_completed,
          first.premature,
          first.irreversible_calls,
        ]);
      }
      return {
        summary: r.summary.map((s) => [
          s.scenarios,
          s.completion_ci,
          s.safe_completion_ci,
          s.premature_irreversible_ci,
          s.premature_irreversible_per_100_ci,
          s.effective_n,
        ]),
        comparisons: r.comparisons.map((c) => ({
          ...c,
          overall: { ...c.overall, pairs: 0 },
          per_scenario: c.per_scenario.map((x) => ({ ...x, pairs: 0 })),
        })),
      };
    };
    const one = await at(1);
    expect(await at(2)).toEqual(one);
    expect(await at(3)).toEqual(one);
    // speculative against eager: within noise at every k (it was "improvement" at 2 trials when runs were counted).
    const speculative = one.comparisons.find((c) => c.candidate === 'speculative')!;
    expect(speculative.overall.completion.verdict).toBe('no significant change');
  });
});

describe('reporters', () => {
  it('writes junit.xml that parses, with a failing case per premature scenario naming the step, and per failed gate', async () => {
    const { out } = await gatedEval();
    const xml = readFileSync(join(out, 'junit.xml'), 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    const doc = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: '',
      isArray: (n) => ['testsuite', 'testcase'].includes(n),
    }).parse(xml) as {
      testsuites: {
        tests: string;
        failures: string;
        testsuite: {
          name: string;
          tests: string;
          failures: string;
          testcase: { classname: string; name: string; failure?: { message: string } }[];
        }[];
      };
    };
    const results = readResults(out);
    const [eager, gated] = doc.testsuites.testsuite;
    expect(eager?.name).toBe('oneway.eager');
    // A case per scenario, and one per gate the planner failed (eager fails the --fail-on gate).
    const scenarioCases = eager?.testcase.filter((c) => c.classname === 'oneway.eager') ?? [];
    expect(scenarioCases).toHaveLength(results.scenarios.length);
    const premature = results.runs
      .filter((r) => r.planner === 'eager' && r.premature.irreversible > 0)
      .map((r) => r.scenario);
    expect(scenarioCases.filter((c) => c.failure).map((c) => c.name)).toEqual(premature);
    expect(scenarioCases.find((c) => c.failure)?.failure?.message).toMatch(
      /^trial 1, step \d+: irreversible \S+ called before its preconditions held; missing /,
    );
    const gateCases = eager?.testcase.filter((c) => c.classname === 'oneway.eager.gates') ?? [];
    expect(gateCases.map((c) => c.name)).toEqual(results.gates.failures.map((f) => f.gate));
    expect(gateCases).toHaveLength(1);
    expect(Number(gated?.failures)).toBe(0);
    expect(Number(doc.testsuites.tests)).toBe(2 * results.scenarios.length + 1);
  });

  it('writes report.md with the summary, the comparison and the gates', async () => {
    const { out } = await gatedEval();
    const md = readFileSync(join(out, 'report.md'), 'utf8');
    expect(md).toMatch(/^## oneway: \d+ runs · eager, gated/);
    expect(md).toContain('| **gated** |');
    expect(md).toContain('### Against `eager`');
    expect(md).toContain('- ❌ gate failed: eager premature_irreversible_rate');
  });

  it('switches the github reporter on in GitHub Actions: annotations at the tool line, and the job summary', async () => {
    const out = tempDir();
    const summary = join(tempDir(), 'summary.md');
    writeFileSync(summary, '');
    const { PassThrough } = await import('node:stream');
    const stdout = new PassThrough();
    let text = '';
    stdout.on('data', (d) => (text += String(d)));
    const code = await main(['--planner=eager', '--scenario=invoice-and-notify', `--out=${out}`], {
      stdout,
      stderr: new PassThrough(),
      cwd: process.cwd(),
      env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary, NO_COLOR: '1' },
    });
    expect(code).toBe(0);
    const results = readResults(out);
    const s = results.scenarios[0]!;
    const tool = results.runs[0]!.findings.find((f) => f.kind === 'premature' && f.class === 'irreversible')!.tool;
    expect(text).toContain(
      `::error file=scenarios/billing/invoice-and-notify.yaml,line=${s.tool_lines[tool]},title=premature irreversible call%3A ${tool}::eager: step`,
    );
    expect(readFileSync(summary, 'utf8')).toContain('## oneway:');
  });
});
