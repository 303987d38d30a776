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
import { BUNDLED_SCENARIOS, REPO_ROOT, commandFailed, parseCli, processIo, runIfEntry, type Io } from '../cli/common.ts';
import { fuzzScenario } from '../fuzz/fuzz.ts';
import { scoringOracle, sealHolds } from '../fuzz/properties.ts';
import { resolveScenarios } from '../loader/resolve.ts';
import { memorySink } from '../record/writer.ts';
import { evaluate, type EvalScenario } from '../runner/evaluate.ts';
import { loadPlanner } from '../runner/planners.ts';
import { runOne } from '../runner/run.ts';
import { Sandbox } from '../sandbox/sandbox.ts';
import { seal } from '../sandbox/seal.ts';
import { inProcessTransport, mswTransport } from '../sandbox/transport.ts';
import type { Scenario } from '../schema/scenario.ts';

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

  const direct = new Sandbox(scenario, 1);
  out.push(await time('handler logic, called directly (lower bound)', () => direct.executeBatch(req())));
  const inproc = inProcessTransport(new Sandbox(scenario, 1));
  out.push(await time('oneway in-process transport', () => inproc.executeBatch(req())));

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
  const others = Array.from({ length: 500 }, (_, i) => mswTransport(new Sandbox(scenario, i), `bench-other-${i}`, () => {}));
  const crowded = mswTransport(new Sandbox(scenario, 1), 'bench-crowded', () => {});
  out.push(await time('  ... with 500 other runs served at once', () => crowded.executeBatch(req())));
  crowded.close();
  for (const o of others) o.close();
  seal.release();

  // What a user would otherwise pick: a plain MSW server with one trivial handler ...
  const plain = setupServer(http.post('http://tools.example/verify', () => HttpResponse.json({ ok: true })));
  plain.listen({ onUnhandledRequest: 'error' });
  out.push(await time('plain MSW fetch, one trivial handler', async () => (await fetch('http://tools.example/verify', { method: 'POST', body: '{}' })).json()));
  plain.close();

  // ... or a mock HTTP server on loopback.
  const server = createServer((_req, res) => {
    _req.resume();
    _req.on('end', () => res.end('{"ok":true}'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  out.push(await time('mock HTTP server on loopback, global fetch', async () => (await fetch(`http://127.0.0.1:${port}/verify`, { method: 'POST', body: '{}' })).json()));
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

/** Synthetic copies of the suite, ids made unique: how evaluation time grows with scenarios. */
function copies(suite: EvalScenario[], n: number): EvalScenario[] {
  const out: EvalScenario[] = [];
  for (let i = 0; i < n; i++) for (const s of suite) out.push({ ...s, scenario: { ...s.scenario, id: `${s.scenario.id}-x${i}` } });
  return out;
}

async function throughput(suite: EvalScenario[], label: string, opts: { concurrency?: number; workers?: number; transport?: 'msw' | 'inprocess'; planners?: string[]; outDir: string }) {
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
  return { name: label, runs: r.runs.length, seconds: Math.round(s * 1000) / 1000, runs_per_s: Math.round((r.runs.length / s) * 10) / 10 };
}

/** Generated plans through the in-process transport, checked by two cheap properties (no failures, so no shrinking). */
async function fuzzThroughput(scenarios: Scenario[]) {
  const properties = [scoringOracle, sealHolds];
  let plans = 0;
  const t0 = performance.now();
  for (const scenario of scenarios) plans += (await fuzzScenario({ scenario, properties, runs: 100, seed: 1 })).plans;
  const s = (performance.now() - t0) / 1000;
  return { properties: properties.map((p) => p.name), plans, seconds: Math.round(s * 100) / 100, plans_per_s: Math.round(plans / s) };
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
    planner: { name: 'long', create: () => ({ name: 'long', next: (v) => (v.turn <= n ? { type: 'call', call: { tool: tool.name, args } } : { type: 'finish' }) }) },
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
  return { name: `one run, plan of ${n} calls`, calls: n, ms: Math.round(ms), us_per_call: Math.round((ms * 1000) / n) };
}

const HELP = `oneway bench: what a sandboxed call costs and how evaluations scale, measured on this machine.

Usage: oneway bench [options]          (in a clone of oneway: npm run bench)

  --out=DIR                   where bench.json and the runs it made go (default: reports)
  -h, --help                  this help

Runs for a few minutes: the cost of one call (direct, in-process, over MSW, against plain MSW and a
loopback server), evaluation throughput (serial, --concurrency, --workers, 10× and 100× the bundled
scenarios), fuzzing throughput, plan length, and memory. Read the ratios: absolute times on a shared
machine are noise.

Exit status: 0 measured; 2 a usage error.`;

/** The options `main` parses. */
export const OPTIONS = { out: { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const;

export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  try {
    const { values } = parseCli(argv, OPTIONS);
    if (values.help) {
      io.stdout.write(`${HELP}\n`);
      return 0;
    }
    await bench(resolve(io.cwd, values.out ?? 'reports'), io);
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

async function bench(reportsDir: string, io: Io) {
  const runsDir = join(reportsDir, 'bench-runs');
  const { loaded, problems } = await resolveScenarios([BUNDLED_SCENARIOS], { cwd: REPO_ROOT, root: BUNDLED_SCENARIOS });
  if (problems.length) throw new Error(`bundled scenarios have problems: ${problems.length}`);
  const suite: EvalScenario[] = loaded.map((l) => ({ scenario: l.scenario, file: l.file }));
  const email = loaded.find((l) => l.scenario.tools.some((t) => t.name === ONE_CALL_YAML_TOOL))?.scenario ?? suite[0]!.scenario;

  io.stderr.write('bench: cost of one call ...\n');
  const calls = await callCost(email);
  const base = calls[0]!.per_op_us;

  io.stderr.write('bench: evaluation throughput ...\n');
  const evals = [
    await throughput(suite, `bundled suite (${suite.length} scenarios × eager, gated), serial, MSW`, { outDir: runsDir }),
    await throughput(suite, 'bundled suite, --concurrency=4, MSW', { concurrency: 4, outDir: runsDir }),
    await throughput(suite, 'bundled suite, serial, in-process transport', { transport: 'inprocess', outDir: runsDir }),
    await throughput(copies(suite, 10), `10× scenarios (${suite.length * 10}), serial, MSW`, { outDir: runsDir }),
    await throughput(copies(suite, 10), `10× scenarios, --workers=2 (threads), MSW`, { workers: 2, outDir: runsDir }),
  ];
  const largest = await throughput(copies(suite, 100), `100× scenarios (${suite.length * 100}), --concurrency=4, MSW`, { concurrency: 4, outDir: runsDir });
  evals.push(largest);
  // What the largest case left behind: MSW defers some work to timers, so let them run before a GC.
  await new Promise((r) => setTimeout(r, 500));
  const gc = collector();
  gc?.();
  const retainedMb = gc ? Math.round(process.memoryUsage().heapUsed / 2 ** 20) : null;

  io.stderr.write('bench: fuzzing ...\n');
  const fuzz = await fuzzThroughput(suite.map((s) => s.scenario));

  io.stderr.write('bench: plan length ...\n');
  const lengths = [];
  for (const n of [10, 100, 1000]) lengths.push(await planLength(email, n));

  const peakRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
  const report = {
    created_at: new Date().toISOString(),
    command: 'oneway bench',
    machine: { node: process.version, cpus: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', memory_gb: Math.round(totalmem() / 2 ** 30) },
    call_cost: calls.map((c) => ({ ...c, ratio_to_direct: Math.round((c.per_op_us / base) * 10) / 10 })),
    evaluation: evals,
    plan_length: lengths,
    fuzzing: fuzz,
    peak_rss_mb: peakRssMb,
    heap_after_largest_mb: retainedMb,
  };
  mkdirSync(reportsDir, { recursive: true });
  writeFileSync(join(reportsDir, 'bench.json'), `${JSON.stringify(report, null, 2)}\n`);

  const out: string[] = [];
  out.push(`machine: ${report.machine.cpus} × ${report.machine.cpu}, ${report.machine.memory_gb} GiB, Node ${report.machine.node}`);
  out.push('\none tool call                                          µs/call   × direct');
  for (const c of report.call_cost) out.push(`  ${c.name.padEnd(52)} ${String(c.per_op_us).padStart(8)}   ${String(c.ratio_to_direct).padStart(7)}`);
  out.push('\nevaluation                                                         runs   runs/s');
  for (const e of evals) out.push(`  ${e.name.padEnd(64)} ${String(e.runs).padStart(5)}   ${String(e.runs_per_s).padStart(6)}`);
  out.push(`\nfuzzing (${fuzz.properties.join(', ')}): ${fuzz.plans} plans in ${fuzz.seconds} s = ${fuzz.plans_per_s} plans/s, in process, one thread`);
  out.push('\nplan length (one run over MSW)          µs/call');
  for (const l of lengths) out.push(`  ${l.name.padEnd(38)} ${String(l.us_per_call).padStart(7)}`);
  out.push(`\npeak RSS: ${peakRssMb} MiB (largest case: ${largest.name}); heap still in use after it: ${retainedMb ?? '? (run with --expose-gc)'} MiB`);
  out.push(`written: ${relative(io.cwd, join(reportsDir, 'bench.json')) || join(reportsDir, 'bench.json')}`);
  io.stdout.write(`${out.join('\n')}\n`);
}

await runIfEntry(import.meta.url, (argv: string[]) => main(argv));
