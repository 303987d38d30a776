/**
 * `oneway bench` (`npm run bench`): what a sandboxed call costs and how evaluations scale,
 * measured in one run on this machine. Read the ratios; absolute times on a
 * shared machine are noise. Writes reports/bench.json and prints a table.
 */
import { createServer, request as httpRequest, Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { BUNDLED_SCENARIOS, REPO_ROOT, commandFailed, parseCli, processIo, runIfEntry, type Io } from './common.ts';
import { resolveScenarios } from '../engine/loader/resolve.ts';
import { memorySink } from '../engine/record/writer.ts';
import { evaluate, type EvalScenario } from '../engine/runner/evaluate.ts';
import { loadPlanner } from '../engine/runner/planners.ts';
import { AUTO_WORKERS_MIN_RUNS } from '../engine/runner/workers.ts';
import { runOne } from '../engine/runner/run.ts';
import { Sandbox } from '../engine/sandbox/sandbox.ts';
import { seal } from '../engine/sandbox/seal.ts';
import { inProcessTransport, mswTransport } from '../engine/sandbox/transport.ts';
import type { Scenario } from '../core/scenario.ts';
import {
  childDirs,
  compiledBuild,
  copies,
  fuzzing,
  fuzzingCompiled,
  isolation,
  isolationChild,
  llmBound,
  memory,
  memoryChild,
  startup,
  STARTUP_COMMANDS,
  workers,
  workersChild,
  workersLong,
  longWorkersChild,
} from '../features/bench/cases.ts';
import type { ThreadCpu } from '../features/bench/threads.ts';
import { guardOverhead, type GuardBench } from '../features/bench/guard.ts';
import { parallelScaling } from '../features/bench/ceiling.ts';
import { loaderWork, SUPER_LINEAR, type SiteWork } from '../features/bench/loader-work.ts';
import { printHelp } from './help.ts';

interface Measure {
  name: string;
  per_op_us: number;
  ops: number;
}

/** Runs `op` for about `ms` milliseconds after a warm-up; returns microseconds per op. */
async function time(name: string, op: () => Promise<unknown> | unknown, ms = 1500): Promise<Measure> {
  for (let i = 0; i < 200; i++) await op();
  let ops = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < ms) {
    for (let i = 0; i < 50; i++) await op();
    ops += 50;
    // As an evaluation does between runs: the event loop turns (else fetch's WeakRef targets pile up).
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  const per = ((performance.now() - t0) * 1000) / ops;
  return { name, per_op_us: Math.round(per * 100) / 100, ops };
}

const ONE_CALL_YAML_TOOL = 'verify_recipient';

async function callCost(scenario: Scenario): Promise<Measure[]> {
  const tool = scenario.tools.find((t) => t.name === ONE_CALL_YAML_TOOL) ?? scenario.tools[0]!;
  const args = Object.fromEntries(tool.parameters.required.map((p) => [p, 'bench@acme.example']));
  const calls = [{ tool: tool.name, args }];
  const out: Measure[] = [];
  let batch = 0;
  const req = () => ({ turn: 1, batch: batch++, firstStep: batch, calls });

  // A fresh sandbox every 1,000 calls: one sandbox keeps every call it served (its ledger), and these
  // loops make hundreds of thousands, which no run does.
  let direct = new Sandbox(scenario, 1);
  let n = 0;
  out.push(
    await time('handler logic, called directly (lower bound)', () =>
      (++n % 1000 === 0 ? (direct = new Sandbox(scenario, 1)) : direct).executeBatch(req()),
    ),
  );
  let inproc = inProcessTransport(new Sandbox(scenario, 1));
  out.push(
    await time('oneway in-process transport', () =>
      (++n % 1000 === 0 ? (inproc = inProcessTransport(new Sandbox(scenario, 1))) : inproc).executeBatch(req()),
    ),
  );

  seal.acquire();
  const msw = mswTransport(new Sandbox(scenario, 1), 'bench', () => {});
  out.push(await time('oneway sandbox call over MSW (global fetch)', () => msw.executeBatch(req())));
  msw.close();
  // The cost must not grow with tools or concurrent runs: 60 more tools, and 500 other runs' hosts served.
  const padded: Scenario = {
    ...scenario,
    tools: [...scenario.tools, ...Array.from({ length: 60 }, (_, i) => ({ ...tool, name: `${tool.name}_copy${i}` }))],
  };
  const wide = mswTransport(new Sandbox(padded, 1), 'bench-wide', () => {});
  out.push(await time('  ... with 60 more tools in the scenario', () => wide.executeBatch(req())));
  wide.close();
  const others = Array.from({ length: 500 }, (_, i) =>
    mswTransport(new Sandbox(scenario, i), `bench-other-${i}`, () => {}),
  );
  const crowded = mswTransport(new Sandbox(scenario, 1), 'bench-crowded', () => {});
  out.push(await time('  ... with 500 other runs served at once', () => crowded.executeBatch(req())));
  crowded.close();
  for (const o of others) o.close();
  seal.release();

  // What a user would otherwise pick: a plain MSW server with one trivial handler ...
  const plain = setupServer(http.post('http://tools.example/verify', () => HttpResponse.json({ ok: true })));
  plain.listen({ onUnhandledRequest: 'error' });
  out.push(
    await time('plain MSW fetch, one trivial handler', async () =>
      (await fetch('http://tools.example/verify', { method: 'POST', body: '{}' })).json(),
    ),
  );
  plain.close();

  // ... or a mock HTTP server on loopback.
  const server = createServer((_req, res) => {
    _req.resume();
    _req.on('end', () => res.end('{"ok":true}'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  out.push(
    await time('mock HTTP server on loopback, global fetch', async () =>
      (await fetch(`http://127.0.0.1:${port}/verify`, { method: 'POST', body: '{}' })).json(),
    ),
  );
  const agent = new Agent({ keepAlive: true });
  out.push(
    await time(
      'mock HTTP server on loopback, node:http keep-alive',
      () =>
        new Promise<void>((resolve, reject) => {
          const r = httpRequest({ host: '127.0.0.1', port, path: '/verify', method: 'POST', agent }, (res) => {
            res.resume();
            res.on('end', resolve);
          });
          r.on('error', reject);
          r.end('{}');
        }),
    ),
  );
  agent.destroy();
  await new Promise((r) => server.close(r));
  return out;
}

/**
 * The sandbox call over MSW against a plain MSW fetch, and with 60 more tools and 500 other runs
 * served: measured in alternating rounds (medians of 7), so other work on the machine moves both
 * sides of each ratio alike.
 */
async function mswRatios(scenario: Scenario) {
  const tool = scenario.tools.find((t) => t.name === ONE_CALL_YAML_TOOL) ?? scenario.tools[0]!;
  const args = Object.fromEntries(tool.parameters.required.map((p) => [p, 'bench@acme.example']));
  const calls = [{ tool: tool.name, args }];
  let batch = 0;
  const req = () => ({ turn: 1, batch: batch++, firstStep: batch, calls });
  const padded: Scenario = {
    ...scenario,
    tools: [...scenario.tools, ...Array.from({ length: 60 }, (_, i) => ({ ...tool, name: `${tool.name}_copy${i}` }))],
  };
  const perOp = async (op: () => Promise<unknown>, n = 400) => {
    for (let i = 0; i < 50; i++) await op();
    await new Promise<void>((resolve) => setImmediate(resolve));
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await op();
    const us = ((performance.now() - t0) * 1000) / n;
    await new Promise<void>((resolve) => setImmediate(resolve));
    return us;
  };
  const sides: Record<'sandbox' | 'wide' | 'crowded' | 'plain', number[]> = {
    sandbox: [],
    wide: [],
    crowded: [],
    plain: [],
  };
  for (let round = 0; round < 7; round++) {
    seal.acquire();
    const msw = mswTransport(new Sandbox(scenario, 1), 'bench', () => {});
    sides.sandbox.push(await perOp(() => msw.executeBatch(req())));
    msw.close();
    const wide = mswTransport(new Sandbox(padded, 1), 'bench-wide', () => {});
    sides.wide.push(await perOp(() => wide.executeBatch(req())));
    wide.close();
    const others = Array.from({ length: 500 }, (_, i) =>
      mswTransport(new Sandbox(scenario, i), `bench-other-${i}`, () => {}),
    );
    const crowded = mswTransport(new Sandbox(scenario, 1), 'bench-crowded', () => {});
    sides.crowded.push(await perOp(() => crowded.executeBatch(req())));
    crowded.close();
    for (const o of others) o.close();
    seal.release();
    const plain = setupServer(http.post('http://tools.example/verify', () => HttpResponse.json({ ok: true })));
    plain.listen({ onUnhandledRequest: 'error' });
    sides.plain.push(
      await perOp(async () => (await fetch('http://tools.example/verify', { method: 'POST', body: '{}' })).json()),
    );
    plain.close();
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;
  const [sandbox, wide, crowded, plain] = [med(sides.sandbox), med(sides.wide), med(sides.crowded), med(sides.plain)];
  const r2 = (x: number) => Math.round(x * 100) / 100;
  return {
    sandbox_us: Math.round(sandbox),
    plain_msw_us: Math.round(plain),
    sandbox_over_plain: r2(sandbox / plain),
    with_60_more_tools_over_sandbox: r2(wide / sandbox),
    with_500_runs_served_over_sandbox: r2(crowded / sandbox),
  };
}

async function throughput(
  suite: EvalScenario[],
  label: string,
  opts: {
    concurrency?: number;
    workers?: number;
    transport?: 'msw' | 'inprocess';
    planners?: string[];
    outDir: string;
  },
) {
  const planners = await Promise.all((opts.planners ?? ['eager', 'gated']).map((p) => loadPlanner(p, REPO_ROOT)));
  const outDir = opts.outDir;
  const t0 = performance.now();
  const r = await evaluate({
    scenarios: suite,
    planners,
    trials: 1,
    seed: 1,
    outDir,
    transport: opts.transport ?? 'msw',
    maxTurns: 50,
    decisionTimeoutMs: 30_000,
    plannerOptions: {},
    concurrency: opts.concurrency ?? 1,
    workers: opts.workers ?? 1,
  });
  const s = (performance.now() - t0) / 1000;
  return {
    name: label,
    runs: r.runs.length,
    seconds: Math.round(s * 1000) / 1000,
    runs_per_s: Math.round((r.runs.length / s) * 10) / 10,
  };
}

/** A long plan: the same cheap call N times, through the real run loop over MSW. */
async function planLength(scenario: Scenario, n: number) {
  const tool = scenario.tools.find((t) => t.name === ONE_CALL_YAML_TOOL) ?? scenario.tools[0]!;
  const args = Object.fromEntries(tool.parameters.required.map((p) => [p, 'bench@acme.example']));
  const long = { ...scenario, max_steps: n + 1 };
  seal.acquire();
  const t0 = performance.now();
  await runOne({
    scenario: long,
    scenarioFile: 'bench',
    planner: {
      name: 'long',
      create: () => ({
        name: 'long',
        next: (v) => (v.turn <= n ? { type: 'call', call: { tool: tool.name, args } } : { type: 'finish' }),
      }),
    },
    plannerContext: { options: {} },
    trial: 1,
    seed: 1,
    runId: `bench-long-${n}`,
    sink: memorySink(),
    transport: 'msw',
    maxTurns: n + 2,
    decisionTimeoutMs: 30_000,
  });
  const ms = performance.now() - t0;
  seal.release();
  return {
    name: `one run, plan of ${n} calls`,
    calls: n,
    ms: Math.round(ms),
    us_per_call: Math.round((ms * 1000) / n),
  };
}

const HELP = `oneway bench: what a sandboxed call costs and how evaluations scale, measured on this machine.

Usage: oneway bench [options]          (in a clone of oneway: npm run bench)

  --out=DIR                   where bench.json and the runs it made go (default: reports)
  -h, --help                  this help

Runs for a few minutes: the cost of one call (direct, in-process, over MSW, against plain MSW and a
loopback server), evaluation throughput (serial, --concurrency, 10× and 100× the bundled scenarios),
fuzzing (the fuzz case, and each property), plan length, how the loader's and parsers' CPU time grows
with adversarial strings 4× as long, peak memory at 1×, 10× and 100× the
bundled scenarios, an LLM-bound evaluation against a loopback fake model at --concurrency 8, 32 and
128, --workers=2 against serial (800 runs, and 8,000 where eval picks workers itself), a planner file in
its own sealed process against the same module in process (and a round trip to such a process), what oneway guard adds to a call (read-only
and write calls to server-memory, through the guard and directly over stdio), and start-up (--help; eval --list with an empty and with a filled
cache of loaded scenarios). Child processes run the working tree compiled into DIR/bench-build (dist/
is left alone). Read the ratios: absolute times on a shared machine are noise.

Exit status: 0 measured; 2 a usage error.`;

/** The options `main` parses (`--child` is the bench's own: a case run in a process of its own). */
export const OPTIONS = {
  out: { type: 'string' },
  child: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  try {
    const { values } = parseCli(argv, OPTIONS);
    if (values.help) {
      printHelp(io, HELP);
      return 0;
    }
    const reportsDir = resolve(io.cwd, values.out ?? 'reports');
    if (values.child !== undefined) {
      io.stdout.write(`${JSON.stringify(await runChild(values.child, reportsDir))}\n`);
      return 0;
    }
    await bench(reportsDir, io);
    return 0;
  } catch (e) {
    return commandFailed(e, io, 'oneway bench');
  }
}

/** The heap still in use after a collection needs gc(): from --expose-gc, or switched on here. */
function collector(): (() => void) | undefined {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  } catch {
    return undefined;
  }
}

async function bundledSuite(): Promise<EvalScenario[]> {
  const { loaded, problems } = await resolveScenarios([BUNDLED_SCENARIOS], { cwd: REPO_ROOT, root: BUNDLED_SCENARIOS });
  if (problems.length) throw new Error(`bundled scenarios have problems: ${problems.length}`);
  return loaded.map((l) => ({ scenario: l.scenario, file: l.file }));
}

/** A case in a process of its own (`--child=memory:K`, `--child=workers`, `--child=isolation`, `--child=loader-work`, ...): its result, for the parent. */
async function runChild(role: string, outDir: string): Promise<unknown> {
  const suite = await bundledSuite();
  const [name, arg] = role.split(':');
  if (name === 'memory') return memoryChild(suite, Number(arg), outDir, collector());
  if (name === 'workers') return workersChild(suite, outDir);
  if (name === 'workers-long') return longWorkersChild(suite, Number(arg), outDir);
  if (name === 'fuzz') return fuzzing(suite.map((s) => s.scenario));
  if (name === 'guard') return guardOverhead(join(outDir, 'guard'));
  if (name === 'isolation') return isolationChild(suite, outDir);
  if (name === 'loader-work') return loaderWork();
  throw new Error(`unknown bench child: ${role}`);
}

async function bench(reportsDir: string, io: Io) {
  const phase = (what: string) =>
    io.stderr.write(
      `bench: ${what} ... (this process: ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB peak RSS so far)\n`,
    );
  const { runs: runsDir, build: buildDir } = childDirs(reportsDir);
  const suite = await bundledSuite();
  const email =
    suite.find((s) => s.scenario.tools.some((t) => t.name === ONE_CALL_YAML_TOOL))?.scenario ?? suite[0]!.scenario;
  const invoice = suite.find((s) => s.scenario.id === 'invoice-and-notify') ?? suite[0]!;

  phase('cost of one call');
  const calls = await callCost(email);
  const base = calls[0]!.per_op_us;
  phase('sandbox call over MSW against a plain MSW fetch, alternating rounds');
  const msw = await mswRatios(email);

  phase('loader work: CPU time for adversarial strings 4× as long, every place a scenario string is parsed');
  const loader = loaderWork();

  phase('evaluation throughput');
  const evals = [
    await throughput(suite, `bundled suite (${suite.length} scenarios × eager, gated), serial, MSW`, {
      outDir: runsDir,
    }),
    await throughput(suite, 'bundled suite, --concurrency=4, MSW', { concurrency: 4, outDir: runsDir }),
    await throughput(suite, 'bundled suite, serial, in-process transport', { transport: 'inprocess', outDir: runsDir }),
    await throughput(copies(suite, 10), `10× scenarios (${suite.length * 10}), serial, MSW`, { outDir: runsDir }),
  ];
  const largest = await throughput(copies(suite, 100), `100× scenarios (${suite.length * 100}), --concurrency=4, MSW`, {
    concurrency: 4,
    outDir: runsDir,
  });
  evals.push(largest);
  // What the largest case left behind: MSW defers some work to timers, so let them run before a GC.
  await new Promise((r) => setTimeout(r, 500));
  const gc = collector();
  gc?.();
  const retainedMb = gc ? Math.round(process.memoryUsage().heapUsed / 2 ** 20) : null;

  phase('plan length');
  const lengths = [];
  for (const n of [10, 100, 1000]) lengths.push(await planLength(email, n));

  phase('LLM-bound evaluation against a loopback fake model (200 ms a request)');
  const llm = await llmBound(invoice, runsDir);

  phase(`compiling the working tree into ${relative(io.cwd, buildDir) || buildDir}`);
  const build = compiledBuild(buildDir);
  if (!build.ok)
    throw new Error(`the compiled build in ${buildDir} is incomplete${build.note ? `: ${build.note}` : ''}`);
  phase('fuzzing, the fuzz case then each property (compiled, a process of its own)');
  const fuzz = await fuzzingCompiled(build, runsDir);
  phase('peak memory at 1×, 10× and 100× the bundled scenarios (three processes each)');
  const mem = await memory(build, runsDir);
  phase('--workers=2 against serial (compiled)');
  const work = await workers(build, runsDir);
  phase('a long evaluation (100× scenarios, 8,000 runs) serially and on 2 workers (compiled, a process each)');
  const long = await workersLong(build, runsDir);
  phase('a planner file in its own process against the same module in process (compiled, a process of its own)');
  const sealed = await isolation(build, runsDir);
  phase('what two threads gain on this machine (fixed arithmetic and allocation work, 1 thread against 2)');
  const scaling = await parallelScaling();
  phase('oneway guard: read-only calls and writes through the guard against direct stdio to server-memory');
  const guard = await guardOverhead(join(runsDir, 'guard'));
  phase('start-up (whole processes, median of 7)');
  const start = startup(build);

  const peakRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
  const report = {
    created_at: new Date().toISOString(),
    command: 'oneway bench',
    machine: {
      node: process.version,
      cpus: cpus().length,
      cpu: cpus()[0]?.model ?? 'unknown',
      memory_gb: Math.round(totalmem() / 2 ** 30),
    },
    call_cost: calls.map((c) => ({ ...c, ratio_to_direct: Math.round((c.per_op_us / base) * 10) / 10 })),
    msw_ratios: msw,
    evaluation: evals,
    plan_length: lengths,
    loader_work: loader,
    fuzzing: fuzz,
    llm_bound: llm,
    memory: mem.rows,
    workers: { ...work, long, machine_scaling: scaling },
    isolation: sealed,
    startup: start,
    guard,
    build: {
      dir: relative(io.cwd, build.root) || build.root,
      seconds: build.seconds,
      ...(build.note ? { note: build.note } : {}),
    },
    peak_rss_mb: peakRssMb,
    heap_after_largest_mb: retainedMb,
  };
  mkdirSync(reportsDir, { recursive: true });
  writeFileSync(join(reportsDir, 'bench.json'), `${JSON.stringify(report, null, 2)}\n`);

  const out: string[] = [];
  const pad = (x: unknown, n: number) => String(x).padStart(n);
  out.push(
    `machine: ${report.machine.cpus} × ${report.machine.cpu}, ${report.machine.memory_gb} GiB, Node ${report.machine.node}`,
  );
  out.push('\none tool call                                          µs/call   × direct');
  for (const c of report.call_cost)
    out.push(`  ${c.name.padEnd(52)} ${pad(c.per_op_us, 8)}   ${pad(c.ratio_to_direct, 7)}`);
  out.push(
    `  alternating rounds: sandbox over MSW ÷ plain MSW fetch ${msw.sandbox_over_plain} (${msw.sandbox_us} vs ${msw.plain_msw_us} µs); ` +
      `× ${msw.with_60_more_tools_over_sandbox} with 60 more tools, × ${msw.with_500_runs_served_over_sandbox} with 500 runs served`,
  );
  out.push('\nevaluation                                                         runs   runs/s');
  for (const e of evals) out.push(`  ${e.name.padEnd(64)} ${pad(e.runs, 5)}   ${pad(e.runs_per_s, 6)}`);
  out.push(
    `  --workers=2 against serial, 10× scenarios, compiled, both cold: ${work.workers2_runs_per_s} vs ${work.serial_runs_per_s} runs/s = ${work.speedup}×, CPU-s ${work.cpu.workers2.process_s} vs ${work.cpu.serial.process_s} = ${work.cpu_ratio}× (${work.runs} runs; serial warm: ${work.serial_warm_runs_per_s})`,
  );
  const cpuOf = (c: ThreadCpu) =>
    (c.main_s === null ? '' : `main ${c.main_s}, workers ${c.started_s}, V8 background ${c.background_s}; `) +
    `main thread idle ${c.main_idle_s} s`;
  out.push(`    CPU-s by thread: serial ${cpuOf(work.cpu.serial)}; --workers=2 ${cpuOf(work.cpu.workers2)}`);
  out.push(
    `  --workers=2 against serial, 100× scenarios (eval's default from ${AUTO_WORKERS_MIN_RUNS.toLocaleString('en-US')} runs): ${long.workers2.runs_per_s} vs ${long.serial.runs_per_s} runs/s = ${long.speedup}×, CPU-s ${long.workers2.cpu.process_s} vs ${long.serial.cpu.process_s} = ${long.cpu_ratio}× (${long.serial.runs} runs; peak RSS ${long.workers2.peak_rss_mib} vs ${long.serial.peak_rss_mib} MiB)`,
  );
  out.push(`    CPU-s by thread: serial ${cpuOf(long.serial.cpu)}; --workers=2 ${cpuOf(long.workers2.cpu)}`);
  out.push(
    `  two threads against one on this machine, the same fixed work, no oneway code: arithmetic ${scaling.arithmetic}×, allocation-heavy ${scaling.allocation}× (cores busy, one thread → two: ${scaling.cores.arithmetic.one_thread} → ${scaling.cores.arithmetic.two_threads} and ${scaling.cores.allocation.one_thread} → ${scaling.cores.allocation.two_threads})`,
  );
  out.push(
    `\nplanner file in a sealed process against in process (${sealed.planner}, ${sealed.runs} runs, ${sealed.decisions} decisions, serial, MSW): ${sealed.sealed_runs_per_s} vs ${sealed.in_process_runs_per_s} runs/s, isolation costs ${Math.round(sealed.cost * 100)}% (${sealed.us_per_decision} µs a decision; load ${sealed.load.join(' → ')})`,
    `  a bare round trip to a process started the same way: ${sealed.bare_round_trip_us} µs; a decision's extra ÷ a round trip: ${sealed.per_decision_over_round_trip} (target ≤ 2)`,
    `  the same round trips paced as the evaluation (echo busy ${sealed.planner_us} µs, the planner's next in process): ${sealed.paced_round_trip_us} µs beyond the work; a decision's extra ÷ it: ${sealed.per_decision_over_paced_round_trip}`,
  );
  out.push(`\n${'fuzzing, one thread (compiled)'.padEnd(60)} plans   plans/s   plans/CPU-s`);
  const fuzzRow = (label: string, r: { plans: number; plans_per_s: number; plans_per_cpu_s: number }) =>
    out.push(`  ${label.padEnd(58)} ${pad(r.plans, 6)}   ${pad(r.plans_per_s, 7)}   ${pad(r.plans_per_cpu_s, 11)}`);
  fuzzRow(`fuzz case (${fuzz.warm.properties.join(', ')}), 100/scenario, warm`, fuzz.warm);
  fuzzRow('  ... the same from a cold start (a default oneway fuzz)', fuzz.cold);
  for (const p of fuzz.per_property) fuzzRow(`  ${p.properties.join(', ')} alone`, p);
  out.push('\nplan length (one run over MSW)          µs/call');
  for (const l of lengths) out.push(`  ${l.name.padEnd(38)} ${pad(l.us_per_call, 7)}`);
  out.push(...loaderLines(loader));
  out.push(
    `\nLLM-bound: ${llm[0]?.runs ?? 0} runs of openai-aware, a fake model on loopback answering in ${llm[0]?.latency_ms ?? 0} ms, MSW transport`,
  );
  out.push('  concurrency   requests   wall s   ideal s   wall ÷ ideal   harness CPU ms/request');
  for (const r of llm)
    out.push(
      `  ${pad(r.concurrency, 11)}   ${pad(r.requests, 8)}   ${pad(r.wall_s, 6)}   ${pad(r.ideal_s, 7)}   ${pad(r.wall_over_ideal, 12)}   ${pad(r.cpu_ms_per_request, 22)}`,
    );
  out.push(
    '\npeak RSS (compiled, a process each, median of 3)   runs   peak RSS MiB   (range)   × 1×   heap after, MiB',
  );
  for (const m of mem.rows) {
    const range = `${m.peak_rss_range_mib[0]}-${m.peak_rss_range_mib[1]}`;
    out.push(
      `  ${`${m.copies}× scenarios, --concurrency=4, MSW`.padEnd(46)} ${pad(m.runs, 6)}   ${pad(m.peak_rss_mib, 12)}   ${pad(range, 7)}   ${pad(m.ratio_to_1x, 4)}   ${pad(m.heap_after_mib, 15)}`,
    );
  }
  out.push(...guardLines(guard));
  out.push('\nstart-up (whole process, median of 7)     compiled s   tsx s');
  for (const { command } of STARTUP_COMMANDS) {
    const at = (rt: string) => start.find((r) => r.command === command && r.runtime === rt)?.median_s ?? '?';
    out.push(`  ${command.padEnd(38)} ${pad(at('compiled'), 10)}   ${pad(at('tsx'), 5)}`);
  }
  out.push(
    `\nthis process: peak RSS ${peakRssMb} MiB; heap still in use after the largest case: ${retainedMb ?? '? (run with --expose-gc)'} MiB`,
  );
  if (build.note) out.push(`compiled build: ${build.note}`);
  out.push(`written: ${relative(io.cwd, join(reportsDir, 'bench.json')) || join(reportsDir, 'bench.json')}`);
  io.stdout.write(`${out.join('\n')}\n`);
}

/** The loader-work rows of the printed table: each site's worst growth for an input 4× as long. */
function loaderLines(rows: readonly SiteWork[]): string[] {
  const out = [
    '\nloader work: CPU time for an input 4× as long (linear 4, quadratic 16, cubic 64)',
    `  ${'where'.padEnd(24)} ${'worst ×'.padStart(7)}   ${'chars'.padEnd(15)}  ms`,
  ];
  for (const r of rows) {
    const w = r.worst;
    const at = w ? `${w.n} → ${4 * w.n}` : `all ${r.measured} pairs too fast to time`;
    const ms = w ? `${w.small_ms} → ${w.large_ms}` : '';
    const flag = r.super_linear ? `   SUPER-LINEAR (≥ ${SUPER_LINEAR}) on ${JSON.stringify(w?.shape)}` : '';
    out.push(`  ${r.site.padEnd(24)} ${String(w?.ratio ?? '-').padStart(7)}   ${at.padEnd(15)}  ${ms}${flag}`);
  }
  return out;
}

/** The guard rows of the printed table. */
function guardLines(g: GuardBench): string[] {
  if ('skipped' in g) return [`\noneway guard: skipped (${g.skipped})`];
  const row = (label: string, c: { direct_us: number; guard_us: number; added_us: number }) =>
    `  ${label.padEnd(44)} ${String(c.direct_us).padStart(8)}   ${String(c.guard_us).padStart(8)}   ${String(c.added_us).padStart(8)}`;
  return [
    `\noneway guard in front of ${g.server} (stdio, ${g.rounds} alternating rounds)   direct µs   guard µs   added µs`,
    row(`read-only call (read_graph), ${g.calls_per_round}/round`, g.read_only),
    row('write (create_entities), journaled with its compensation', g.write),
    `  journaling one call alone (intent + outcome, written through): ${g.journal_us_per_call} µs`,
  ];
}

await runIfEntry(import.meta.url, (argv: string[]) => main(argv));
