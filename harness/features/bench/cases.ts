/**
 * `oneway bench`'s cases beyond the cost of one call (round 2 of the performance work): fuzzing
 * per property, memory at 1×, 10× and 100× the bundled scenarios (each in a process of its own, so
 * each peak RSS is its own), an LLM-bound evaluation against a loopback fake model, `--workers=2`
 * against serial on compiled code, and start-up as whole-process runs.
 *
 * Child processes run the compiled engine: the bench compiles the working tree into
 * reports/bench-build/ (the same tsc as `npm run build`, another output directory), so what is
 * measured is the source as it is now, as an installed package runs it, without touching dist/.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import { fuzzScenario } from '../fuzz/fuzz.ts';
import { BUILTIN_PROPERTIES, scoringOracle, sealHolds, type FuzzProperty } from '../fuzz/properties.ts';
import { evaluate, type EvalScenario } from '../../engine/runner/evaluate.ts';
import { loadPlanner, toHandle } from '../../engine/runner/planners.ts';
import type { PlannerHandle } from '../../engine/runner/run.ts';
import { seal, type Escape } from '../../engine/sandbox/seal.ts';
import { SealedProcess } from '../../engine/runner/sealed-process.ts';
import type { Scenario } from '../../core/scenario.ts';
import { ownExtension, ownModule } from '../../util/module-url.ts';
import { PACKAGE_ROOT } from '../../util/package-root.ts';
import { median, round } from './stats.ts';
import { withThreadCpu, type ThreadCpu } from './threads.ts';

/** Synthetic copies of the suite, ids made unique: how cost grows with scenarios. */
export function copies(suite: readonly EvalScenario[], n: number): EvalScenario[] {
  const out: EvalScenario[] = [];
  for (let i = 0; i < n; i++)
    for (const s of suite) out.push({ ...s, scenario: { ...s.scenario, id: `${s.scenario.id}-x${i}` } });
  return out;
}

// ------------------------------------------------------------------------------------------------
// Fuzzing

export interface FuzzRow {
  properties: string[];
  plans: number;
  seconds: number;
  plans_per_s: number;
  /** Plans per second of the process's CPU time (less sensitive to other work on the machine). */
  plans_per_cpu_s: number;
}

async function fuzzPass(
  scenarios: readonly Scenario[],
  properties: readonly FuzzProperty[],
  runs: number,
): Promise<FuzzRow> {
  let plans = 0;
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  // The seal held for the whole pass, as `oneway fuzz` holds it across its scenarios (MSW set up once).
  seal.acquire();
  try {
    for (const scenario of scenarios) plans += (await fuzzScenario({ scenario, properties, runs, seed: 1 })).plans;
  } finally {
    seal.release();
  }
  const s = (performance.now() - t0) / 1000;
  const cu = process.cpuUsage(c0);
  return {
    properties: properties.map((p) => p.name),
    plans,
    seconds: round(s, 2),
    plans_per_s: Math.round(plans / s),
    plans_per_cpu_s: Math.round(plans / ((cu.user + cu.system) / 1e6)),
  };
}

/**
 * The fuzz case (scoring-oracle and seal, 100 plans per scenario, in process, one thread) twice in
 * one process: first cold, as a default `oneway fuzz` of the bundled scenarios runs from start to
 * end (V8 still compiling the engine for most of it), then again at steady state (the target's
 * row); then each built-in property alone.
 */
export async function fuzzing(
  scenarios: readonly Scenario[],
): Promise<{ cold: FuzzRow; warm: FuzzRow; per_property: FuzzRow[] }> {
  const cold = await fuzzPass(scenarios, [scoringOracle, sealHolds], 100);
  const warm = await fuzzPass(scenarios, [scoringOracle, sealHolds], 100);
  const per_property: FuzzRow[] = [];
  for (const p of BUILTIN_PROPERTIES)
    per_property.push(await fuzzPass(scenarios, [p], p.name === 'transport-equivalence' ? 10 : 25));
  return { cold, warm, per_property };
}

// ------------------------------------------------------------------------------------------------
// The compiled engine, for child processes

export interface Build {
  /** The package root of the build: dist/ under it, scenarios/ and package.json beside. */
  root: string;
  ok: boolean;
  seconds: number;
  note?: string;
}

/** Compiles harness/ and planners/ to DIR/dist (as scripts/build.mjs does), assets copied. */
export function compiledBuild(dir: string): Build {
  const t0 = performance.now();
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
  const r = spawnSync(
    process.execPath,
    [tsc, '-p', join(PACKAGE_ROOT, 'tsconfig.build.json'), '--outDir', join(dir, 'dist'), '--declaration', 'false'],
    { cwd: PACKAGE_ROOT, encoding: 'utf8' },
  );
  const walk = (from: string) => {
    for (const name of readdirSync(from)) {
      const path = join(from, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (!/\.(m|c)?ts$/.test(name) || name.endsWith('.d.cts')) {
        const to = join(dir, 'dist', relative(PACKAGE_ROOT, path));
        mkdirSync(dirname(to), { recursive: true });
        cpSync(path, to);
      }
    }
  };
  walk(join(PACKAGE_ROOT, 'harness'));
  // The package around it: its package.json, scenarios and dependencies.
  cpSync(join(PACKAGE_ROOT, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(PACKAGE_ROOT, 'scenarios'), join(dir, 'scenarios'), 'dir');
  symlinkSync(join(PACKAGE_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const entry = join(dir, 'dist', 'harness', 'cli', 'oneway.js');
  const ok = existsSync(entry) && existsSync(join(dir, 'dist', 'harness', 'cli', 'bench.js'));
  const errors = (r.stdout ?? '').split('\n').filter((l) => /error TS/.test(l));
  return {
    root: dir,
    ok,
    seconds: round((performance.now() - t0) / 1000, 1),
    ...(r.status !== 0
      ? {
          note: `tsc reported ${errors.length} type error(s) in the working tree (output emitted anyway)${errors[0] ? `, first: ${errors[0].slice(0, 160)}` : ''}`,
        }
      : {}),
  };
}

/** Runs the compiled bench in a child process as `--child=ROLE`; its last stdout line is JSON. */
async function child<T>(build: Build, role: string, outDir: string, extraArgs: string[] = []): Promise<T> {
  const bench = join(build.root, 'dist', 'harness', 'cli', 'bench.js');
  const p = spawn(process.execPath, [...extraArgs, bench, `--child=${role}`, `--out=${outDir}`], {
    cwd: PACKAGE_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  p.stdout.on('data', (d: Buffer) => (out += String(d)));
  p.stderr.on('data', (d: Buffer) => (err += String(d)));
  const [code] = (await once(p, 'close')) as [number | null];
  const last = out.trim().split('\n').pop() ?? '';
  if (code !== 0 || !last.startsWith('{'))
    throw new Error(`bench child ${role} failed (exit ${code}): ${err.slice(-800)}`);
  return JSON.parse(last) as T;
}

// ------------------------------------------------------------------------------------------------
// Child roles (run by `oneway bench --child=ROLE`, compiled)

export interface MemoryRow {
  copies: number;
  runs: number;
  seconds: number;
  runs_per_s: number;
  peak_rss_mib: number;
  /** Heap in use once the evaluation is over and a collection ran (the results object, mostly). */
  heap_after_mib: number;
}

/** The bundled suite `copies` times (eager and gated, --concurrency=4, MSW), in this process. */
export async function memoryChild(
  suite: readonly EvalScenario[],
  copiesN: number,
  outDir: string,
  gc: (() => void) | undefined,
): Promise<MemoryRow> {
  const planners = await Promise.all(['eager', 'gated'].map((p) => loadPlanner(p, PACKAGE_ROOT)));
  const t0 = performance.now();
  const r = await evaluate({
    scenarios: copies(suite, copiesN),
    planners,
    trials: 1,
    seed: 1,
    outDir,
    transport: 'msw',
    maxTurns: 50,
    decisionTimeoutMs: 30_000,
    plannerOptions: {},
    concurrency: 4,
  });
  const s = (performance.now() - t0) / 1000;
  const peak = Math.round(process.resourceUsage().maxRSS / 1024);
  await new Promise((res) => setTimeout(res, 200));
  gc?.();
  return {
    copies: copiesN,
    runs: r.runs.length,
    seconds: round(s, 2),
    runs_per_s: round(r.runs.length / s),
    peak_rss_mib: peak,
    heap_after_mib: Math.round(process.memoryUsage().heapUsed / 2 ** 20),
  };
}

export interface WorkersRow {
  runs: number;
  /** Serial, as the process's first evaluation (cold, as `oneway eval` starts). */
  serial_runs_per_s: number;
  /** `--workers=2`: this thread and a worker thread (which starts cold, loading the compiled engine). */
  workers2_runs_per_s: number;
  /** workers=2 ÷ serial. */
  speedup: number;
  /** The process's CPU-seconds with `--workers=2` ÷ serially (cpu.*.process_s): what the worker adds. */
  cpu_ratio: number;
  /** Serial again, warm: what the main thread does once its code is compiled. */
  serial_warm_runs_per_s: number;
  /**
   * CPU-seconds by thread in each pass (Linux). A serial evaluation is not one core's work: V8
   * compiles and collects on background threads beside the main thread, so on two cores its wall
   * time is about its main thread's, and two threads (wall at least all CPU ÷ 2) can be at most
   * 2 × main ÷ (main + background) as fast, and that only if they add no CPU of their own.
   */
  cpu: { serial: ThreadCpu; workers2: ThreadCpu; serial_warm: ThreadCpu };
}

/** One evaluation of `scenarios` × eager and gated over MSW, on `workers` threads (1: this one), with its CPU by thread. */
async function workersPass(scenarios: EvalScenario[], workers: number, outDir: string) {
  const planners = await Promise.all(['eager', 'gated'].map((p) => loadPlanner(p, PACKAGE_ROOT)));
  const t0 = performance.now();
  const { value: r, cpu } = await withThreadCpu(() =>
    evaluate({
      scenarios,
      planners,
      trials: 1,
      seed: 1,
      outDir: join(outDir, `w${workers}`),
      transport: 'msw',
      maxTurns: 50,
      decisionTimeoutMs: 30_000,
      plannerOptions: {},
      workers,
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  return { runs: r.runs.length, seconds, perS: r.runs.length / seconds, cpu };
}

/** 10× the bundled suite (eager and gated, MSW) serially, with `--workers=2`, serially again; in this process. */
export async function workersChild(suite: readonly EvalScenario[], outDir: string): Promise<WorkersRow> {
  const scenarios = copies(suite, 10);
  const pass = (workers: number) => workersPass(scenarios, workers, outDir);
  // Serial first, in a fresh process, as the workers start fresh: both cold. Then serial again, warm.
  const serial = await pass(1);
  const two = await pass(2);
  const warm = await pass(1);
  return {
    runs: serial.runs,
    serial_runs_per_s: round(serial.perS),
    workers2_runs_per_s: round(two.perS),
    speedup: round(two.perS / serial.perS, 2),
    cpu_ratio: round(two.cpu.process_s / serial.cpu.process_s, 2),
    serial_warm_runs_per_s: round(warm.perS),
    cpu: { serial: serial.cpu, workers2: two.cpu, serial_warm: warm.cpu },
  };
}

// ------------------------------------------------------------------------------------------------
// A planner file in its own process against the same module in this one

export interface IsolationRow {
  /** The module evaluated: the bundled gated planner, given as a file (what eval runs sealed). */
  planner: string;
  runs: number;
  /** Decisions the planner made in one evaluation (the same in both). */
  decisions: number;
  /** Runs per second, the planner file in a sealed process of its own (as `eval --planner=FILE` runs it); the median pass. */
  sealed_runs_per_s: number;
  /** The same module imported into this process (as a built-in runs); the median pass. */
  in_process_runs_per_s: number;
  /** 1 - sealed ÷ in process runs/s: the share of throughput isolation costs (the median of each adjacent pair's). */
  cost: number;
  /** The extra wall time per decision, in microseconds (sealed - in process, ÷ decisions; the median passes). */
  us_per_decision: number;
  /**
   * A bare round trip, in microseconds: a process started as a planner's is (the same shell, seal,
   * permissions and channel) with no module behind it, answering each one-line request with itself,
   * one request at a time; as many as the decisions, right after each pair (the median pass).
   */
  bare_round_trip_us: number;
  /**
   * The extra wall time per decision ÷ the bare round trip, the median of each pair's with the
   * round trips measured right after it (what load slows down slows down both): the target is ≤ 2.
   */
  per_decision_over_round_trip: number;
  /**
   * The same round trips paced as an evaluation paces its decisions: the echo process busy for as
   * long as the planner's `next` took in process, this one for the rest of an in-process decision
   * before each request; what a round trip adds to that work, in microseconds (the median pass). A
   * process that slept longer wakes up slower: this is the floor of a channel that did no work.
   */
  paced_round_trip_us: number;
  /** The extra wall time per decision ÷ the paced round trip's (the median of each pair's). */
  per_decision_over_paced_round_trip: number;
  /** The planner's `next` in process, microseconds a decision (the mean over the in-process passes). */
  planner_us: number;
  /** Every pass, seconds, in the order run (`bare`, `paced`: the round trips, as many as the decisions). */
  passes: { how: 'sealed' | 'in-process' | 'bare' | 'paced'; seconds: number }[];
  /**
   * The machine's 1-minute load average before and after: a round trip between two processes
   * waits for the scheduler, so on a busy machine this row moves more than in-process ones.
   */
  load: [number, number];
}

const echoMessage = z.object({ t: z.enum(['loaded', 'echo']), n: z.number().optional() });

/** Keeps this thread busy for `us` microseconds. */
function busy(us: number): void {
  const until = performance.now() + us / 1000;
  while (performance.now() < until);
}

/**
 * A process started as a planner's is (runner/sealed-process.ts: the same shell, seal, permission
 * flags and channel), with no module: child-host.mjs answers every request with itself. `rounds`
 * resolves with the seconds `n` round trips took, one at a time, each a JSON line each way; paced,
 * this process is busy `pace.here` µs before each request, and the echo `pace.there` µs before it answers.
 */
async function echoProcess(
  dir: string,
): Promise<{ rounds(n: number, pace?: { here: number; there: number }): Promise<number>; close(): void }> {
  const escapes: Escape[] = [];
  const route = { escape: (e: Escape) => void escapes.push(e) };
  const p = new SealedProcess(
    {
      init: { kind: 'echo', file: '', spec: 'echo', what: 'the bench echo process', fallbackName: 'echo' },
      dir,
      allow: [],
      nodeFlags: [],
      read: [],
    },
    echoMessage,
    route.escape,
  );
  const loaded = await p.request(undefined, route);
  if (loaded.t !== 'loaded') throw new Error(`the echo process said ${loaded.t} before it loaded`);
  return {
    async rounds(n, pace) {
      const t0 = performance.now();
      for (let i = 0; i < n; i++) {
        if (pace) busy(pace.here);
        const m = await p.request({ t: 'echo', n: i, ...(pace ? { busy: pace.there } : {}) }, route);
        if (m.n !== i) throw new Error(`the echo process answered ${JSON.stringify(m)} to round ${i}`);
      }
      const s = (performance.now() - t0) / 1000;
      if (escapes.length > 0) throw new Error(`the echo process escaped: ${escapes[0]?.reason}`);
      return s;
    },
    close: () => p.kill(),
  };
}

/**
 * The bundled suite × 3 trials (serial, MSW, as `oneway eval` runs) with the same planner module
 * twice: as a planner file, in a sealed process (runner/isolate.ts), and imported into this process.
 * Both evaluations are the same runs (the same seed), so their records match; after a warm-up of
 * each, five passes each, alternating, each pair followed by as many bare round trips as decisions
 * to a process started the same way (echoProcess). Runs/s is each one's median pass, and the cost
 * and the ratio to a round trip the median of the five pairs' (a pair and its round trips run back
 * to back, so what else the machine does weighs on all three).
 */
export async function isolationChild(suite: readonly EvalScenario[], outDir: string): Promise<IsolationRow> {
  const dir = mkdtempSync(join(tmpdir(), 'oneway-bench-isolation-'));
  const loadBefore = loadavg()[0] ?? 0;
  let echo: Awaited<ReturnType<typeof echoProcess>> | undefined;
  try {
    const builtin = fileURLToPath(new URL(`../../../planners/gated${ownExtension(import.meta.url)}`, import.meta.url));
    const file = join(dir, 'gated-file.mjs');
    writeFileSync(file, `export { default } from ${JSON.stringify(pathToFileURL(builtin).href)};\n`);
    const sealed = await loadPlanner(file, dir);
    let decisions = 0;
    let runs = 0;
    let deciding = 0; // milliseconds in the planner's next, in process
    const imported = toHandle((await import(pathToFileURL(file).href)) as Record<string, unknown>, 'gated', file);
    const inProcess: PlannerHandle = {
      ...imported,
      create(ctx) {
        const p = imported.create(ctx);
        return {
          name: p.name,
          next: (v) => {
            decisions++;
            const t0 = performance.now();
            const d = p.next(v); // gated decides synchronously
            deciding += performance.now() - t0;
            return d;
          },
        };
      },
    };
    const pass = async (how: 'sealed' | 'in-process') => {
      const t0 = performance.now();
      const r = await evaluate({
        scenarios: [...suite],
        planners: [how === 'sealed' ? sealed : inProcess],
        trials: 3,
        seed: 1,
        outDir: join(outDir, how),
        transport: 'msw',
        maxTurns: 50,
        decisionTimeoutMs: 30_000,
        plannerOptions: {},
      });
      const errors = r.runs.filter((x) => x.error !== null);
      if (errors.length > 0)
        throw new Error(`isolation bench: ${errors.length} runs ended in an error (${errors[0]?.error})`);
      runs = r.runs.length;
      return { how, seconds: (performance.now() - t0) / 1000 };
    };
    await pass('sealed');
    await pass('in-process');
    const perPass = decisions; // the warm-up's in-process pass counted them
    echo = await echoProcess(dir);
    await echo.rounds(perPass);
    const passes: { how: 'sealed' | 'in-process' | 'bare' | 'paced'; seconds: number }[] = [];
    const PAIRS = 5;
    deciding = 0;
    for (let i = 0; i < PAIRS; i++) {
      passes.push(await pass('sealed'));
      const ipPass = await pass('in-process');
      // Paced as this pair's in-process pass decided: the planner's mean next there, the rest here.
      const there = (deciding * 1000) / ((i + 1) * perPass);
      const here = Math.max(0, (ipPass.seconds * 1e6) / perPass - there);
      const paced = await echo.rounds(perPass, { here, there });
      passes.push(ipPass, { how: 'bare', seconds: await echo.rounds(perPass) }, { how: 'paced', seconds: paced });
    }
    const plannerUs = (deciding * 1000) / (PAIRS * perPass);
    decisions /= PAIRS + 1; // every in-process pass counted
    if (decisions !== perPass) throw new Error('isolation bench: the passes made different numbers of decisions');
    const of = (how: string) => passes.filter((p) => p.how === how).map((p) => p.seconds);
    const [s, ip, bare] = [median(of('sealed')), median(of('in-process')), median(of('bare'))];
    const pairs = Array.from({ length: PAIRS }, (_, i) => passes.slice(4 * i, 4 * i + 4).map((p) => p.seconds));
    // A paced pass's round trips beyond the work they were paced with (that pair's in-process pass, all of it).
    const pacedExtra = pairs.map(([, ipp = 0, , paced = 0]) => paced - ipp);
    return {
      planner: 'gated, as a planner file',
      runs,
      decisions,
      sealed_runs_per_s: round(runs / s),
      in_process_runs_per_s: round(runs / ip),
      cost: round(median(pairs.map(([sp = 0, ipp = 0]) => 1 - ipp / sp)), 3),
      us_per_decision: Math.round(((s - ip) / decisions) * 1e6),
      bare_round_trip_us: Math.round((bare / decisions) * 1e6),
      per_decision_over_round_trip: round(median(pairs.map(([sp = 0, ipp = 0, b = 1]) => (sp - ipp) / b)), 2),
      paced_round_trip_us: Math.round((median(pacedExtra) / decisions) * 1e6),
      per_decision_over_paced_round_trip: round(
        median(pairs.map(([sp = 0, ipp = 0], i) => (sp - ipp) / (pacedExtra[i] ?? 1))),
        2,
      ),
      planner_us: Math.round(plannerUs),
      passes: passes.map((p) => ({ how: p.how, seconds: round(p.seconds, 3) })),
      load: [round(loadBefore, 2), round(loadavg()[0] ?? 0, 2)],
    };
  } finally {
    echo?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The isolation rows, measured in a process of their own (compiled, as `oneway eval` runs). */
export const isolation = (build: Build, outDir: string) =>
  child<IsolationRow>(build, 'isolation', join(outDir, 'isolation'));

// ------------------------------------------------------------------------------------------------
// Fuzzing, memory and workers, from the parent

/** The fuzz rows, measured in a process of their own (compiled, a fresh heap: as `oneway fuzz` runs). */
export const fuzzingCompiled = (build: Build, outDir: string) =>
  child<Awaited<ReturnType<typeof fuzzing>>>(build, 'fuzz', join(outDir, 'fuzz'));

/**
 * Peak RSS at 1×, 10× and 100× the bundled scenarios: each case three times, in a process of its
 * own each time (a peak moves by 10-20% from one process to the next); the median and the range.
 */
export async function memory(
  build: Build,
  outDir: string,
): Promise<{ rows: (MemoryRow & { ratio_to_1x: number; peak_rss_range_mib: [number, number] })[] }> {
  const rows: (MemoryRow & { peak_rss_range_mib: [number, number] })[] = [];
  for (const k of [1, 10, 100]) {
    const tries: MemoryRow[] = [];
    for (let i = 0; i < 3; i++) tries.push(await child<MemoryRow>(build, `memory:${k}`, join(outDir, `memory-${k}x`)));
    const peaks = tries.map((t) => t.peak_rss_mib);
    const mid = tries.find((t) => t.peak_rss_mib === median(peaks)) as MemoryRow;
    rows.push({ ...mid, peak_rss_range_mib: [Math.min(...peaks), Math.max(...peaks)] });
  }
  const base = rows[0]?.peak_rss_mib ?? 1;
  return { rows: rows.map((r) => ({ ...r, ratio_to_1x: round(r.peak_rss_mib / base, 2) })) };
}

export const workers = (build: Build, outDir: string) => child<WorkersRow>(build, 'workers', join(outDir, 'workers'));

/** One pass of the long workers case: what `oneway eval` does with 100× the bundled suite, serially or on workers. */
export interface LongWorkersPass {
  workers: number;
  runs: number;
  seconds: number;
  runs_per_s: number;
  /** The whole process's, main thread and workers. */
  peak_rss_mib: number;
  cpu: ThreadCpu;
}

/**
 * `times`× the bundled suite (eager and gated, MSW: 8,000 runs at the bench's 100×) on `workers`
 * threads, in this (fresh) process; the results and records go to `outDir`/w`workers`.
 */
export async function longWorkersChild(
  suite: readonly EvalScenario[],
  workers: number,
  outDir: string,
  times = 100,
): Promise<LongWorkersPass> {
  const r = await workersPass(copies(suite, times), workers, outDir);
  return {
    workers,
    runs: r.runs,
    seconds: round(r.seconds, 2),
    runs_per_s: round(r.perS),
    peak_rss_mib: Math.round(process.resourceUsage().maxRSS / 1024),
    cpu: r.cpu,
  };
}

/**
 * A long evaluation, where `eval` goes to workers by default (runner/workers.ts, autoWorkers):
 * 8,000 runs serially and with `--workers=2`, each in a process of its own (each starts cold, and each
 * peak RSS is its own). `cpu_ratio`: the process's CPU-seconds with `--workers=2` ÷ serially, the CPU
 * the workers add for the same runs; unlike `speedup` it hardly moves with the machine's load.
 */
export async function workersLong(
  build: Build,
  outDir: string,
): Promise<{ serial: LongWorkersPass; workers2: LongWorkersPass; speedup: number; cpu_ratio: number }> {
  const serial = await child<LongWorkersPass>(build, 'workers-long:1', join(outDir, 'workers-long'));
  const workers2 = await child<LongWorkersPass>(build, 'workers-long:2', join(outDir, 'workers-long'));
  return {
    serial,
    workers2,
    speedup: round(workers2.runs_per_s / serial.runs_per_s, 2),
    cpu_ratio: round(workers2.cpu.process_s / serial.cpu.process_s, 2),
  };
}

// ------------------------------------------------------------------------------------------------
// Start-up

export interface StartupRow {
  command: string;
  runtime: 'compiled' | 'tsx';
  median_s: number;
  runs_s: number[];
}

function timeProcess(args: string[], cwd: string, n: number, env: () => NodeJS.ProcessEnv = () => ({})): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const extra = env();
    const t0 = performance.now();
    const r = spawnSync(process.execPath, args, {
      cwd,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', ...extra },
    });
    if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${String(r.stderr).slice(-400)}`);
    out.push((performance.now() - t0) / 1000);
  }
  return out;
}

/** The start-up commands timed, and the cache of loaded scenarios each starts with. */
export const STARTUP_COMMANDS = [
  { command: 'oneway --help', args: ['--help'], cache: 'none' },
  // A first run: every scenario file parsed, validated and checked, and written to an empty cache.
  { command: 'oneway eval --list, empty cache', args: ['eval', '--list'], cache: 'empty' },
  // Later runs: the files unchanged since a run before this one (harness/engine/loader/scenario-cache.ts).
  { command: 'oneway eval --list, cached', args: ['eval', '--list'], cache: 'filled' },
] as const;

/**
 * Start-up as whole processes (median of 7), compiled and under tsx: `oneway --help`, and `oneway eval
 * --list` twice, with an empty cache of loaded scenarios (a fresh directory each run) and with one that
 * a run before filled (ONEWAY_CACHE_DIR, in a temporary directory: the project's own cache is left alone).
 */
export function startup(build: Build): StartupRow[] {
  const bin = join(build.root, 'dist', 'harness', 'cli', 'oneway.js');
  const src = join(PACKAGE_ROOT, 'harness', 'cli', 'oneway.ts');
  const tsx = ['--import', 'tsx'];
  const caches = mkdtempSync(join(tmpdir(), 'oneway-bench-cache-'));
  const rows: StartupRow[] = [];
  try {
    for (const { command, args, cache } of STARTUP_COMMANDS) {
      for (const runtime of ['compiled', 'tsx'] as const) {
        const argv = runtime === 'compiled' ? [bin, ...args] : [...tsx, src, ...args];
        const filled = join(caches, `filled-${runtime}`);
        const env = (): NodeJS.ProcessEnv =>
          cache === 'empty'
            ? { ONEWAY_CACHE: 'on', ONEWAY_CACHE_DIR: mkdtempSync(join(caches, 'empty-')) }
            : cache === 'filled'
              ? { ONEWAY_CACHE: 'on', ONEWAY_CACHE_DIR: filled }
              : {};
        if (cache === 'filled') timeProcess(argv, PACKAGE_ROOT, 1, env); // fills it
        const runs = timeProcess(argv, PACKAGE_ROOT, 7, env);
        rows.push({ command, runtime, median_s: round(median(runs), 3), runs_s: runs.map((r) => round(r, 3)) });
      }
    }
  } finally {
    rmSync(caches, { recursive: true, force: true });
  }
  return rows;
}

// ------------------------------------------------------------------------------------------------
// LLM-bound

export interface LlmRow {
  concurrency: number;
  runs: number;
  requests: number;
  latency_ms: number;
  wall_s: number;
  /** requests × latency ÷ concurrency. */
  ideal_s: number;
  wall_over_ideal: number;
  /** ideal ÷ wall. */
  efficiency: number;
  /** The harness's CPU time (process.cpuUsage) per model request. */
  cpu_ms_per_request: number;
  errors: number;
}

const LATENCY_MS = 200;

/** The fake model (harness/features/bench/fake-model.ts) in a process of its own; resolves with its base URL. */
async function fakeModel(): Promise<{ baseURL: string; stop(): void }> {
  const file = fileURLToPath(ownModule('./fake-model', import.meta.url));
  const p = spawn(process.execPath, [...process.execArgv, file, `--latency=${LATENCY_MS}`], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const [line] = (await once(p.stdout, 'data')) as [Buffer];
  const { baseURL } = JSON.parse(String(line).trim().split('\n')[0] as string) as { baseURL: string };
  return { baseURL, stop: () => void p.stdin.end() };
}

/**
 * 248 runs of openai-aware on invoice-and-notify (248 trials, each its own seed) against the fake
 * model (3 requests a run, 744 in all), MSW transport, at --concurrency 8, 32 and 128 (the median of
 * three at 32 and 128); start-up excluded (after a warm-up evaluation).
 */
export async function llmBound(scenario: EvalScenario, outDir: string): Promise<LlmRow[]> {
  const model = await fakeModel();
  try {
    const planner = await loadPlanner('openai-aware', PACKAGE_ROOT);
    const run = async (n: number, concurrency: number): Promise<LlmRow> => {
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      const r = await evaluate({
        scenarios: [scenario],
        planners: [planner],
        trials: n,
        seed: 1,
        outDir: join(outDir, `llm-c${concurrency}`),
        transport: 'msw',
        maxTurns: 50,
        decisionTimeoutMs: 60_000,
        plannerOptions: { base_url: model.baseURL, model: 'fake-1' },
        concurrency,
      });
      const wall = (performance.now() - t0) / 1000;
      const cpu = process.cpuUsage(c0);
      const requests = r.runs.reduce((s, x) => s + (x.usage?.requests ?? 0), 0);
      const ideal = (requests * LATENCY_MS) / 1000 / concurrency;
      return {
        concurrency,
        runs: r.runs.length,
        requests,
        latency_ms: LATENCY_MS,
        wall_s: round(wall, 2),
        ideal_s: round(ideal, 2),
        wall_over_ideal: round(wall / ideal, 2),
        efficiency: round(ideal / wall, 2),
        cpu_ms_per_request: round((cpu.user + cpu.system) / 1000 / Math.max(1, requests), 2),
        errors: r.runs.filter((x) => x.error !== null).length,
      };
    };
    await run(32, 32);
    const rows: LlmRow[] = [];
    // 8 once (it takes 19 s); 32 and 128 three times each, the median by wall time (they move most).
    for (const [c, times] of [
      [8, 1],
      [32, 3],
      [128, 3],
    ] as const) {
      const tries: LlmRow[] = [];
      for (let i = 0; i < times; i++) tries.push(await run(248, c));
      rows.push(tries.find((t) => t.wall_s === median(tries.map((x) => x.wall_s))) as LlmRow);
    }
    return rows;
  } finally {
    model.stop();
  }
}

/** Where the bench's compiled build and runs go (inside the reports directory, which git ignores). */
export function childDirs(reportsDir: string): { build: string; runs: string } {
  const runs = join(reportsDir, 'bench-runs');
  mkdirSync(runs, { recursive: true });
  return { build: join(reportsDir, 'bench-build'), runs };
}
