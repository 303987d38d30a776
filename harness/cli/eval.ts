/**
 * `npm run eval`: evaluate planners on scenarios.
 * Exit status: 0 the evaluation ran; 1 a gate failed; 2 usage or input error.
 */
import { relative, resolve } from 'node:path';
import { formatProblem, UsageError, type Problem } from '../errors.ts';
import { createGuard } from '../guard/guard.ts';
import { DEFAULT_POLICY, loadPolicyFile, type Policy } from '../guard/policy.ts';
import { loadPlanFile } from '../loader/load.ts';
import { resolveScenarios } from '../loader/resolve.ts';
import { makeChalk, useColor } from '../report/color.ts';
import { writeReports, REPORTERS } from '../report/index.ts';
import { evaluate } from '../runner/evaluate.ts';
import { builtinPlanners, loadPlanner } from '../runner/planners.ts';
import type { PlanItem } from '../schema/scenario.ts';
import { BUNDLED_SCENARIOS, list, parseCli, positiveInt, type Io } from './common.ts';

const HELP = `oneway eval: how often does a planner walk through a one-way door too early?

Usage: npm run eval -- [options]

  --planner=NAME|PATH[,...]   planners to compare (default: gated). Built-in: ${builtinPlanners().join(', ')}
  --scenario=ID|FILE|DIR|GLOB[,...]
                              scenarios (default: every file under scenarios/); paths may lie outside the repo
  --trials=N                  runs per scenario and planner, each with its own derived seed (default: 1)
  --seed=S                    base seed; the same seed gives the same results (default: 1)
  --out=DIR                   where results.json and runs/*.jsonl go (default: reports/latest)
  --reporter=NAME[,...]       ${REPORTERS.join(', ')} (default: table)
  --plan=FILE                 the plan the scripted planner replays (default: each scenario's reference_plan)
  --planner-opt=KEY=VALUE     an option passed to planners (repeatable)
  --max-turns=N               planner decisions per run before it is stopped (default: 50)
  --decision-timeout=MS       real time a planner may take for one decision (default: 30000)
  --transport=msw|inprocess   how calls reach the sandbox (default: msw, real HTTP through MSW)
  --guard                     enforce the class constraints at the sandbox boundary for every planner:
                              irreversible calls only when their preconditions hold, alone, never an
                              unreconciled retry; blocked attempts still count as premature
  --guard-policy=FILE         what each class may do (auto | gated | approval | block); implies --guard
  -h, --help                  this help

Exit status: 0 the evaluation ran (whatever it found); 1 a gate failed; 2 a usage or input error.
Example: npm run eval -- --planner=eager,gated --trials=3`;

export async function main(argv: string[], io: Io = { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd(), env: process.env }): Promise<number> {
  const color = useColor(io.stdout, io.env);
  const c = makeChalk(color);
  const cerr = makeChalk(useColor(io.stderr, io.env));
  try {
    const { values } = parseCli(argv, {
      planner: { type: 'string', multiple: true },
      scenario: { type: 'string', multiple: true },
      trials: { type: 'string' },
      seed: { type: 'string' },
      out: { type: 'string' },
      reporter: { type: 'string', multiple: true },
      plan: { type: 'string' },
      'planner-opt': { type: 'string', multiple: true },
      'max-turns': { type: 'string' },
      'decision-timeout': { type: 'string' },
      transport: { type: 'string' },
      guard: { type: 'boolean' },
      'guard-policy': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      io.stdout.write(`${HELP}\n`);
      return 0;
    }
    const trials = positiveInt(values.trials, 'trials', 1);
    const seed = positiveInt(values.seed, 'seed', 1, 0);
    const maxTurns = positiveInt(values['max-turns'], 'max-turns', 50);
    const decisionTimeoutMs = positiveInt(values['decision-timeout'], 'decision-timeout', 30_000);
    const transport = values.transport ?? 'msw';
    if (transport !== 'msw' && transport !== 'inprocess') throw new UsageError(`--transport must be msw or inprocess, got "${transport}"`);
    const reporters = list(values.reporter, ['table']);
    for (const r of reporters) if (!REPORTERS.includes(r)) throw new UsageError(`unknown reporter "${r}"`, `reporters: ${REPORTERS.join(', ')}`);
    const plannerOptions: Record<string, string> = {};
    for (const kv of values['planner-opt'] ?? []) {
      const i = kv.indexOf('=');
      if (i <= 0) throw new UsageError(`--planner-opt takes KEY=VALUE, got "${kv}"`);
      plannerOptions[kv.slice(0, i)] = kv.slice(i + 1);
    }
    const planners = [];
    for (const spec of list(values.planner, ['gated'])) planners.push(await loadPlanner(spec, io.cwd));
    const names = planners.map((p) => p.name);
    const dup = names.find((n, i) => names.indexOf(n) !== i);
    if (dup) throw new UsageError(`planner "${dup}" is given twice`, 'each planner is evaluated once per scenario and trial');

    const problems: Problem[] = [];
    const specs = list(values.scenario, [BUNDLED_SCENARIOS]);
    const resolved = await resolveScenarios(specs, { cwd: io.cwd, root: BUNDLED_SCENARIOS });
    problems.push(...resolved.problems);
    let plan: PlanItem[] | undefined;
    if (values.plan) {
      const loaded = loadPlanFile(resolve(io.cwd, values.plan));
      if (!loaded.ok) problems.push(...loaded.problems);
      else plan = loaded.value;
    }
    for (const p of problems) io.stderr.write(`${formatProblem(p)}\n`);
    if (values.plan && !plan) {
      io.stderr.write(cerr.red('oneway: the plan file has errors; nothing was run\n'));
      return 2;
    }
    if (resolved.loaded.length === 0) {
      io.stderr.write(cerr.red('oneway: no scenario could be loaded; nothing was run\n'));
      return 2;
    }
    if (problems.length > 0) io.stderr.write(cerr.yellow(`oneway: ${problems.length} problem(s); the files with errors were skipped, the rest run\n`));

    let policy: Policy | undefined;
    if (values['guard-policy']) {
      const p = loadPolicyFile(resolve(io.cwd, values['guard-policy']));
      if (!p.ok) {
        for (const pr of p.problems) io.stderr.write(`${formatProblem(pr)}\n`);
        return 2;
      }
      policy = p.value;
    } else if (values.guard) policy = DEFAULT_POLICY;

    const outDir = resolve(io.cwd, values.out ?? 'reports/latest');
    const progress = io.stderr.isTTY === true;
    const results = await evaluate({
      scenarios: resolved.loaded.map((l) => ({ scenario: l.scenario, file: relative(io.cwd, l.file) || l.file })),
      planners,
      trials,
      seed,
      outDir,
      transport,
      maxTurns,
      decisionTimeoutMs,
      plannerOptions,
      ...(plan ? { plan } : {}),
      ...(policy ? { gate: createGuard(policy), guardPolicy: policy } : {}),
      problems,
      onRunDone: progress ? (run, done, total) => io.stderr.write(`\r${done}/${total} ${run.scenario} · ${run.planner}`.padEnd(70).slice(0, 100) + (done === total ? '\n' : '')) : undefined,
    });
    writeReports(results, reporters, { outDir, stdout: io.stdout, chalk: c });
    io.stderr.write(`${cerr.dim(`results: ${relative(io.cwd, outDir) || '.'}/results.json`)}\n`);
    return problems.length > 0 ? 2 : 0;
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr.write(`${cerr.red(`oneway: ${e.message}`)}\n${e.hint ? `  hint: ${e.hint}\n` : ''}`);
      return 2;
    }
    throw e;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  process.exitCode = await main(process.argv.slice(2));
}
