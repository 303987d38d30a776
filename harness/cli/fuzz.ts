/**
 * `npm run fuzz`: property-based fuzzing of plans (or of a planner across
 * seeds) against the built-in and user-defined properties. Each failure is
 * shrunk to a minimal plan (unless --no-shrink), written under --out with the
 * command that replays it.
 * Exit status: 0 no property failed; 1 a property failed; 2 usage or input error.
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { formatProblem, UsageError, type LintFinding } from '../core/errors.ts';
import { loadPlanner } from '../engine/runner/planners.ts';
import { seal } from '../engine/sandbox/seal.ts';
import type { TransportName } from '../engine/sandbox/transport.ts';
import type { Scenario } from '../core/scenario.ts';
import { fuzzScenario, type FuzzFailure, type FuzzReport } from '../features/fuzz/fuzz.ts';
import { reportFailure } from '../features/fuzz/report.ts';
import { withScenarioFindings } from '../features/fuzz/fault.ts';
import { commandLine } from '../util/command-line.ts';
import { lintTexts } from '../features/lint/lint.ts';
import { fuzzOnWorkers } from '../features/fuzz/workers.ts';
import type { OutLock } from '../engine/results/lock.ts';
import { lockOut } from '../features/pipeline/evaluation.ts';
import { BUILTIN_PROPERTIES, DEFAULT_PROPERTIES } from '../features/fuzz/properties.ts';
import { resolveProperties } from '../features/fuzz/property-module.ts';
import { terminalText } from '../util/terminal-text.ts';
import { formatFinding } from '../features/lint/types.ts';
import type { ConfigFile } from '../features/request/config.ts';
import { requestScenarios } from '../features/request/eval.ts';
import { fuzzConfigLayer, fuzzRequest, type FuzzRequest, type FuzzSettings } from '../features/request/fuzz.ts';
import type { Layer } from '../features/request/layers.ts';
import {
  durationMs,
  list,
  parseCli,
  plannerOpts,
  type Io,
  commandFailed,
  runIfEntry,
  processIo,
  paints,
  scenarioHome,
} from './common.ts';
import { printHelp } from './help.ts';
import { plural } from '../util/plural.ts';

const HELP = `oneway fuzz: generate plans, check properties on every run, shrink failures to minimal plans.

Usage: oneway fuzz [options]          (in a clone of oneway: npm run fuzz -- [options])

  --scenario=ID|FILE|DIR|GLOB[,...]
                              scenarios to fuzz (default: "scenarios" in oneway.config.*, else every file
                              under the project's ./scenarios)
  --bundled                   fuzz the example scenarios that ship with oneway; wins over "scenarios" in
                              oneway.config.*
  --runs=N                    plans per scenario, at most (default: 100; unlimited with --time-limit alone)
  --seed=S                    fast-check seed; the same seed generates the same plans (default: 1)
  --time-limit=MS             stop after this long in all, shared among the scenarios (a value under 1000
                              is read as seconds, the old unit, with a warning)
  --property=NAME|PATH[,...]  what to check (default: every property below but transport-equivalence);
                              a path loads a module whose default export is { name, check(events) },
                              check returning true or a message (docs/fuzzing.md)
  --planner=NAME|PATH         fuzz this planner across seeds (seed, seed+1, ...) instead of generated plans
  --planner-opt=KEY=VALUE     an option passed to the planner (repeatable)
  --planner-env=NAME[,...]    an environment variable the planner file's process gets, with oneway's value
                              (repeatable); it gets no other
  --guard                     every run goes through the guard (as eval --guard)
  --transport=inprocess|msw   how calls reach the sandbox (default: inprocess, the same dispatch without HTTP)
  --max-items=N               items per generated plan, at most (default: 6)
  --workers=N                 fuzz N scenarios at once on worker threads (default: 1); reports are the same
  --path=PATH                 replay one fast-check counterexample (with its --seed, one scenario and property)
  --no-shrink                 report each failure with the plan that first failed, not shrunk to a minimal
                              one (for properties slow to check: shrinking checks a plan dozens of times)
  --out=DIR                   where counterexample plans and fuzz.json go (default: reports/fuzz)
  --allow-lint-errors         fuzz scenarios \`oneway lint\` finds errors in (skipped otherwise, exit 2);
                              fuzz.json lists the findings ("lint")
  -h, --help                  this help

Options also come from oneway.config.* ("fuzz", and "scenarios", "bundled", "seed", "guard", "workers",
"plannerOptions", "allowLintErrors"); a flag always wins over the config file's setting.

Properties:
${BUILTIN_PROPERTIES.map((p) => `  ${p.name.padEnd(24)}${p.description}`).join('\n')}

Exit status: 0 every property held; 1 a property failed (counterexamples under --out); 2 a usage or input
error (a scenario that did not load, or that lint refused: the others are still fuzzed).
Example: oneway fuzz --scenario=purge-inactive-accounts --runs=500 --seed=7`;

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;

/** The options `main` parses (also read by the `oneway` command, e.g. to catch a forgotten `--` after `npm run`). */
export const OPTIONS = {
  scenario: { type: 'string', multiple: true },
  runs: { type: 'string' },
  seed: { type: 'string' },
  'time-limit': { type: 'string' },
  bundled: { type: 'boolean' },
  property: { type: 'string', multiple: true },
  planner: { type: 'string' },
  'planner-opt': { type: 'string', multiple: true },
  'planner-env': { type: 'string', multiple: true },
  guard: { type: 'boolean' },
  transport: { type: 'string' },
  'max-items': { type: 'string' },
  workers: { type: 'string' },
  'allow-lint-errors': { type: 'boolean' },
  path: { type: 'string' },
  'no-shrink': { type: 'boolean' },
  out: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseCli<typeof OPTIONS>>['values'];
type Paints = ReturnType<typeof paints>;
type Planner = Awaited<ReturnType<typeof loadPlanner>>;
type Settings = FuzzRequest & { propertySpecs: string[] };

/** The command line's layer of the request: each flag as the setting it gives, nothing for a flag not given. */
function flagLayer(values: Values, io: Io, cerr: Paints['cerr']): Layer<FuzzSettings> {
  const options = plannerOpts(values['planner-opt']);
  const settings: FuzzSettings = {
    scenarios: values.scenario === undefined ? undefined : list(values.scenario, []),
    bundled: values.bundled,
    seed: values.seed,
    guard: values.guard,
    workers: values.workers,
    plannerOptions: values['planner-opt'] ? options : undefined,
    plannerEnv: values['planner-env'],
    allowLintErrors: values['allow-lint-errors'],
    runs: values.runs,
    // It took seconds at first: a value under 1000 is read as seconds, with a warning (common.ts, durationMs).
    timeLimitMs:
      values['time-limit'] === undefined
        ? undefined
        : durationMs(values['time-limit'], 'time-limit', 1, (m) =>
            io.stderr.write(`${cerr.yellow(`oneway: warning: ${m}`)}\n`),
          ),
    properties: values.property === undefined ? undefined : list(values.property, []),
    maxItems: values['max-items'],
    planner: values.planner,
    out: values.out,
    transport: values.transport,
    path: values.path,
    noShrink: values['no-shrink'],
  };
  return { from: { kind: 'flags' }, settings };
}

/** Fuzzes every scenario (on worker threads, or here under the seal); `finished` sees each report as it comes. */
async function fuzzAll(
  jobs: { scenario: Scenario; file: string }[],
  settings: Settings,
  io: Io,
  properties: Awaited<ReturnType<typeof resolveProperties>>,
  planner: Planner | undefined,
  finished: (index: number, report: FuzzReport) => void,
): Promise<void> {
  const { runs, seed, timeLimit, workers, transport, plannerOptions, maxItems, propertySpecs } = settings;
  const deadline = timeLimit === undefined ? undefined : Date.now() + timeLimit * 1000;
  // The time left is shared evenly among the scenarios still to come (those running side by side each get a share).
  const timeLimitFor = (remaining: number) =>
    deadline === undefined
      ? undefined
      : Math.max(0, ((deadline - Date.now()) * Math.min(workers, remaining)) / remaining);
  const options = {
    runs,
    seed,
    ...(settings.path !== undefined ? { path: settings.path } : {}),
    guard: settings.guard,
    transport,
    ...(planner ? { plannerOptions } : {}),
    arbitrary: { maxItems },
    shrink: settings.shrink,
  };
  if (workers > 1 && jobs.length > 1) {
    await fuzzOnWorkers(
      {
        scenarios: jobs,
        properties: propertySpecs,
        ...(settings.planner ? { planner: settings.planner, plannerEnv: settings.plannerEnv } : {}),
        options,
        cwd: io.cwd,
      },
      workers,
      finished,
      timeLimitFor,
    );
    return;
  }
  seal.acquire();
  try {
    for (const [i, job] of jobs.entries()) {
      const limit = timeLimitFor(jobs.length - i);
      finished(
        i,
        await fuzzScenario({
          ...options,
          scenario: job.scenario,
          scenarioFile: job.file,
          properties,
          ...(planner ? { planner } : {}),
          ...(limit !== undefined ? { timeLimitMs: limit } : {}),
        }),
      );
    }
  } finally {
    seal.release();
  }
}

/** fuzz.json: the configuration, the counts and every failure with its counterexample file. */
function writeFuzzJson(
  outDir: string,
  settings: Settings,
  properties: { name: string }[],
  planner: Planner | undefined,
  done: FuzzReport[],
  failures: FuzzFailure[],
  files: Map<FuzzFailure, string>,
  wallMs: number,
  shown: (p: string) => string,
  lint: LintFinding[],
): { plans: number; rate: number } {
  const plans = done.reduce((n, r) => n + r.plans, 0);
  const rate = plans / Math.max(wallMs / 1000, 1e-9);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(
    join(outDir, 'fuzz.json'),
    `${JSON.stringify(
      {
        schema_version: 1,
        config: {
          seed: settings.seed,
          runs: settings.runs,
          properties: properties.map((p) => p.name),
          planner: planner?.name ?? null,
          guard: settings.guard,
          transport: settings.transport,
          max_items: settings.maxItems,
          shrink: settings.shrink,
          time_limit_s: settings.timeLimit ?? null,
          workers: settings.workers,
        },
        // Lint errors the scenarios were fuzzed with (--allow-lint-errors).
        ...(lint.length ? { lint } : {}),
        plans,
        wall_ms: Math.round(wallMs),
        plans_per_second: Math.round(rate),
        scenarios: done.map((r) => ({
          id: r.scenario,
          plans: r.plans,
          wall_ms: Math.round(r.wallMs),
          interrupted: r.interrupted,
        })),
        failures: failures.map((f) => ({ ...f, file: files.has(f) ? shown(files.get(f) as string) : null })),
      },
      null,
      2,
    )}\n`,
  );
  return { plans, rate };
}

/**
 * Each failure's fault once its scenario is linted: a scenario with lint errors, or a goal no plan
 * reaches, is at fault for anything but oneway's own invariants. Only scenarios with such a
 * failure are linted.
 */
function judgeScenarios(
  failures: FuzzFailure[],
  scenarios: { scenario: Scenario; file: string }[],
  shown: (p: string) => string,
): void {
  const findings = new Map<string, LintFinding[]>();
  for (const f of failures) {
    if (f.fault.party === 'oneway') continue;
    const l = scenarios.find((x) => x.scenario.id === f.scenario);
    if (!l) continue;
    let found = findings.get(l.file);
    if (!found) {
      found = lintTexts([{ file: shown(l.file), text: readFileSync(l.file, 'utf8') }]);
      findings.set(l.file, found);
    }
    f.fault = withScenarioFindings(f.fault, found, commandLine('lint', [shown(l.file)]));
  }
}

/** Writes each failure's counterexample and prints its replay command; the counterexample files by failure. */
function reportFailures(
  failures: FuzzFailure[],
  ctx: {
    scenarios: { scenario: Scenario; file: string }[];
    home: { root: string };
    outDir: string;
    shown: (p: string) => string;
    settings: Settings;
    transport: TransportName;
    maxItems: number;
    properties: { name: string; source?: string }[];
  },
  io: Io,
  c: Paints['c'],
): Map<FuzzFailure, string> {
  const { scenarios, home, outDir, shown, settings, transport, maxItems, properties } = ctx;
  const files = new Map<FuzzFailure, string>();
  for (const f of failures) {
    const l = scenarios.find((x) => x.scenario.id === f.scenario);
    // A scenario where ids are looked up (the project's scenarios/) is replayed by id, any other by its file.
    const scenarioRef = l && !relative(home.root, l.file).startsWith('..') ? f.scenario : shown(l?.file ?? f.scenario);
    const propertyRef = properties.find((p) => p.name === f.property)?.source ?? f.property;
    const { lines, file } = reportFailure(
      f,
      {
        outDir,
        scenarioRef,
        propertyRef,
        ...(settings.planner ? { planner: settings.planner } : {}),
        guard: settings.guard,
        transport,
        maxItems,
        shrink: settings.shrink,
        shown,
      },
      c,
    );
    if (file) files.set(f, file);
    io.stdout.write(`\n${lines.join('\n')}\n`);
  }
  return files;
}

export async function main(argv: string[], io: Io = processIo(), config?: ConfigFile): Promise<number> {
  const { c, cerr } = paints(io);
  let lock: OutLock | undefined;
  try {
    const { values } = parseCli(argv, OPTIONS);
    if (values.help) {
      printHelp(io, HELP);
      return 0;
    }
    const request = fuzzRequest(
      [...(config ? [fuzzConfigLayer(config)] : []), flagLayer(values, io, cerr)],
      io.cwd,
      io.env,
    );
    const settings: Settings = { ...request, propertySpecs: request.properties ?? [...DEFAULT_PROPERTIES] };
    const { timeLimit, runs, seed, maxItems, transport } = settings;
    const properties = await resolveProperties(settings.propertySpecs, io.cwd);
    // A planner file runs in sealed processes, as in eval (docs/seal.md).
    const planner = request.planner
      ? await loadPlanner(request.planner, io.cwd, request.plannerOptions ?? {}, request.plannerEnv)
      : undefined;
    if (request.path !== undefined && planner)
      throw new UsageError('--path replays a generated plan; it does not go with --planner');

    const home = scenarioHome(io, request.bundled);
    // Lint errors are load errors here as in eval (harness/features/request/eval.ts, the lint gate).
    const loaded = await requestScenarios({ ...request, tags: [], filter: undefined, shard: undefined }, io.env);
    for (const p of loaded.problems) io.stderr.write(`${formatProblem(p)}\n`);
    const scenarios = loaded.selected;
    if (scenarios.length === 0) {
      io.stderr.write(
        cerr.red(`oneway: no scenario ${loaded.loaded ? 'passed lint' : 'could be loaded'}; nothing was fuzzed\n`),
      );
      return 2;
    }
    for (const f of loaded.lint) io.stderr.write(`${formatFinding(f)}\n`);
    if (loaded.lint.length)
      io.stderr.write(
        cerr.yellow(
          `oneway: --allow-lint-errors: fuzzing with ${plural(loaded.lint.length, 'lint error')}; fuzz.json lists them\n`,
        ),
      );
    if (request.path !== undefined && (scenarios.length > 1 || properties.length > 1)) {
      throw new UsageError(
        '--path replays one counterexample: give one --scenario and one --property',
        'the failure report prints the full command',
      );
    }

    const { outDir } = request;
    // One fuzz, evaluation or server per --out at a time: the evaluation pipeline's step.
    const taken = await lockOut(outDir, 'oneway fuzz');
    lock = taken.lock;
    for (const m of taken.warnings) io.stderr.write(`oneway: ${terminalText(m)}\n`);
    // Paths as the user would type them: relative inside the working directory, absolute outside it.
    const shown = (p: string) => {
      const r = relative(io.cwd, p);
      return r === '' ? '.' : r.startsWith('..') || isAbsolute(r) ? p : r;
    };
    io.stdout.write(
      `${c.bold('oneway fuzz')} ${planner ? `planner ${terminalText(planner.name)}` : 'generated plans'} · ${plural(scenarios.length, 'scenario')} · ${
        planner
          ? `seeds ${seed}..${timeLimit === undefined || request.runsGiven ? seed + runs - 1 : ''}`
          : `seed ${seed}`
      } · ${terminalText(properties.map((p) => p.name).join(', '))}${request.guard ? ' · guard' : ''} · ${transport}\n`,
    );
    const started = performance.now();
    const jobs = scenarios.map((l) => ({ scenario: l.scenario, file: relative(io.cwd, l.file) || l.file }));
    const reports: (FuzzReport | undefined)[] = new Array(jobs.length).fill(undefined);
    // Scenario lines come out in order, whichever worker finishes first.
    let printed = 0;
    const finished = (index: number, report: FuzzReport) => {
      reports[index] = report;
      for (let r = reports[printed]; printed < reports.length && r; r = reports[++printed]) {
        const status =
          r.failures.length === 0
            ? c.green('✓ every property held')
            : c.red(`✗ ${terminalText(r.failures.map((f) => f.property).join(', '))}`);
        const unit = `${planner ? 'run' : 'plan'}${r.plans === 1 ? '' : 's'}`;
        io.stdout.write(
          `  ${r.scenario.padEnd(40)} ${String(r.plans).padStart(6)} ${unit.padEnd(5)}  ${status}${r.interrupted ? c.dim(' (time limit)') : ''}\n`,
        );
      }
    };
    await fuzzAll(jobs, settings, io, properties, planner, finished);
    const wallMs = performance.now() - started;

    const done = reports.filter((r): r is FuzzReport => r !== undefined);
    const failures = done.flatMap((r) => r.failures);
    judgeScenarios(failures, scenarios, shown);
    const files = reportFailures(
      failures,
      { scenarios, home, outDir, shown, settings, transport, maxItems, properties },
      io,
      c,
    );

    const { plans, rate } = writeFuzzJson(
      outDir,
      settings,
      properties,
      planner,
      done,
      failures,
      files,
      wallMs,
      shown,
      loaded.lint,
    );
    io.stdout.write(
      `\n${plans} ${planner ? 'runs' : 'plans'} in ${seconds(wallMs)} (${Math.round(rate)} ${planner ? 'runs' : 'plans'}/s)\n`,
    );
    if (failures.length > 0)
      io.stdout.write(
        c.red(
          `${failures.length} propert${failures.length === 1 ? 'y' : 'ies'} failed; counterexamples in ${shown(outDir)}/\n`,
        ),
      );
    else io.stdout.write(c.green('no property failed\n'));
    // As with eval: a scenario that did not load, or that lint refused, is an input error, whatever the others showed.
    if (loaded.problems.length > 0) {
      const refused = loaded.problems.some((p) => p.code === 'lint');
      io.stderr.write(
        cerr.yellow(
          `oneway: ${plural(loaded.problems.length, 'problem')}; the files with errors were skipped${refused ? ' (lint errors: `oneway lint` explains them; --allow-lint-errors fuzzes them anyway)' : ''}\n`,
        ),
      );
      return 2;
    }
    return failures.length > 0 ? 1 : 0;
  } catch (e) {
    return commandFailed(e, io, 'oneway');
  } finally {
    lock?.release();
  }
}

await runIfEntry(import.meta.url, (argv: string[]) => main(argv));
