/**
 * Every setting of oneway.config.* reaches the run the same way, whichever entry point gives it:
 * a flag (the command's `main`), the config file (found and read by the `oneway` command's
 * runCommand, in process) and evaluate() (given the very object the config file holds). For
 * each setting, what the engine was asked (its EvalOptions), results.json (or fuzz.json) and the
 * files written are the same from all three, and differ from not giving it; a setting an entry
 * point cannot honour is refused with a hint. The rows are checked against CONFIG_SHAPE (and its
 * `llm` and `fuzz` maps): a new setting without a row fails here.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { evaluate, type EvaluateConfig } from '../../harness/api.ts';
import { main as evalMain } from '../../harness/cli/eval.ts';
import { main as fuzzMain } from '../../harness/cli/fuzz.ts';
import { commandNamed } from '../../harness/cli/commands.ts';
import { runCommand } from '../../harness/cli/program.ts';
import { UsageError } from '../../harness/core/errors.ts';
import type { Results } from '../../harness/engine/results/types.ts';
import * as engine from '../../harness/engine/runner/evaluate.ts';
import type { EvalOptions } from '../../harness/engine/runner/eval-types.ts';
import { CONFIG_SHAPE, FUZZ_SHAPE, LLM_SHAPE } from '../../harness/features/request/config.ts';
import { filesUnder, REPO_SCENARIO_CACHE, runCli, tempDir } from '../helpers/cli.ts';
import { timeless } from '../helpers/results.ts';
import { EMAIL_YAML } from '../helpers/run.ts';

// What the engine is asked: the real evaluate, watched. It runs the runs on this thread whatever
// `workers` asks: runs are the same on worker threads (test/cli/compare.test.ts), and the workers
// row is about what the engine is asked, so it starts no threads (each loads the engine again).
vi.mock('../../harness/engine/runner/evaluate.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../harness/engine/runner/evaluate.ts')>();
  return { ...real, evaluate: vi.fn((opts: EvalOptions) => real.evaluate({ ...opts, workers: 1 })) };
});
const engineCalls = () => vi.mocked(engine.evaluate).mock.calls;

const LINT_ERROR = readFileSync(join(import.meta.dirname, '../fixtures/lint-gate/undo-irreversible.yaml'), 'utf8');
const OTHER = EMAIL_YAML.replace('id: email-tiny', 'id: email-other');
// The agent rows' agent: it exits at once (its run ends in an error, recorded like any run); `true`
// starts in a millisecond, where a Node process takes a CPU-tenth.
const AGENT = '--agent-cmd=true';
/** The real environment (an agent needs PATH), without what would make the entry points differ by design. */
const env = (): NodeJS.ProcessEnv => {
  const e: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete e.GITHUB_ACTIONS; // evaluate() never adds the github reporter; the commands do, in Actions
  for (const k of Object.keys(e)) if (k.startsWith('npm_')) delete e[k]; // under npm test: no forgotten `--` to find
  return e;
};

let baseline: string;
/** The project the rows run in, one after another (made by project(), cleaned between runs). */
let shared: string;
/** A fresh project: package.json, its scenarios, a second scenario, one lint refuses, a guard policy, a baseline. */
function project(): string {
  const dir = tempDir('oneway-settings-');
  writeFileSync(join(dir, 'package.json'), '{}');
  mkdirSync(join(dir, 'scenarios'));
  writeFileSync(join(dir, 'scenarios', 'email.yaml'), EMAIL_YAML);
  mkdirSync(join(dir, 'extra'));
  writeFileSync(join(dir, 'extra', 'other.yaml'), OTHER);
  writeFileSync(join(dir, 'extra', 'lint-error.yaml'), LINT_ERROR);
  writeFileSync(join(dir, 'policy.yaml'), 'irreversible: block\n');
  writeFileSync(join(dir, 'prices.yaml'), 'm: { prompt_per_million: 1, completion_per_million: 2 }\n');
  copyFileSync(baseline, join(dir, 'baseline.json'));
  return dir;
}
const INPUTS = new Set([
  'package.json',
  'scenarios/email.yaml',
  'extra/other.yaml',
  'extra/lint-error.yaml',
  'policy.yaml',
  'prices.yaml',
  'baseline.json',
  'oneway.config.yaml',
]);
/** Removes what a run wrote (and the config file), so the next entry point runs in the same project as it was. */
function clean(dir: string): void {
  const kept = new Set([...INPUTS].map((f) => f.split('/')[0]).filter((f) => f !== 'oneway.config.yaml'));
  for (const name of readdirSync(dir)) if (!kept.has(name)) rmSync(join(dir, name), { recursive: true, force: true });
}

// Every entry point loads scenarios through a cache of loaded scenarios, as in a project with
// node_modules (where it is on by default; these projects have none): ONEWAY_CACHE_DIR, outside the
// project, so no row sees its files. It is this repository's own (node_modules/.cache/oneway), the
// one every test run in the repository uses: the bundled suite is in it, so an id looked up among
// the bundled scenarios is found without parsing the forty files (a CPU-second and a half) here
// again. That a cached scenario is the scenario loaded afresh is test/loader/scenario-cache.test.ts's.
afterAll(() => {
  vi.unstubAllEnvs();
});

beforeAll(async () => {
  vi.stubEnv('ONEWAY_CACHE_DIR', REPO_SCENARIO_CACHE);
  const dir = tempDir('oneway-settings-baseline-');
  writeFileSync(join(dir, 'email.yaml'), EMAIL_YAML);
  await evaluate({ cwd: dir, scenarios: ['email.yaml'], out: 'out' });
  baseline = join(dir, 'out', 'results.json');
  shared = project();
});

/**
 * What a command does without the row's setting, given only the flags it needs beside it: the same
 * for every row with the same command and flags (the same project, cleaned), so it runs once.
 */
const unset = new Map<string, Promise<Seen>>();
function without(command: 'eval' | 'fuzz', main: typeof evalMain, flags: string[]): Promise<Seen> {
  const key = JSON.stringify([command, flags]);
  let seen = unset.get(key);
  if (!seen) {
    clean(shared);
    seen = see(shared, () => runCli(main, flags, shared, env()).then((r) => r.code));
    unset.set(key, seen);
  }
  return seen;
}

/** A setting, as a config file (and evaluate()) writes it, and as flags. */
interface Row {
  /** Its path in the config: `trials`, `llm.model`, `fuzz.runs`. */
  key: string;
  /** Another row for a key already covered (another form of it). */
  also?: string;
  command?: 'eval' | 'fuzz';
  value: unknown;
  flags: string[];
  /** Settings it needs beside it, given with it (in the config file, or as flags) and without it. */
  with?: { config?: Record<string, unknown>; flags: string[] };
  /** What evaluate() says when it cannot honour the setting (a UsageError whose hint matches). */
  refusedByApi?: RegExp;
  /** What the setting did, seen from the flag's run (equal, by the time this runs, to the others). */
  did(seen: Seen): void;
}

interface Seen {
  /** ok, gate (exit 1), input (exit 2; for evaluate(), problems in results), or a refusal's message. */
  status: string;
  /** What the engine was asked. */
  asked: Record<string, unknown> | null;
  /** results.json (or fuzz.json) without its wall-clock figures. */
  results: Record<string, unknown> | null;
  /** Files written (inputs left out), relative to the project. */
  files: string[];
}

const fuzzRows: Row[] = [
  { key: 'fuzz.runs', value: 3, flags: ['--runs=3'], did: (s) => expect(fuzzConfig(s).runs).toBe(3) },
  {
    key: 'fuzz.timeLimitMs',
    value: 60_000,
    flags: ['--time-limit=60000'],
    did: (s) => expect(fuzzConfig(s).time_limit_s).toBe(60),
  },
  {
    key: 'fuzz.properties',
    value: ['determinism'],
    flags: ['--property=determinism'],
    did: (s) => expect(fuzzConfig(s).properties).toEqual(['determinism']),
  },
  { key: 'fuzz.maxItems', value: 2, flags: ['--max-items=2'], did: (s) => expect(fuzzConfig(s).max_items).toBe(2) },
  {
    key: 'fuzz.planner',
    value: 'gated',
    flags: ['--planner=gated'],
    did: (s) => expect(fuzzConfig(s).planner).toBe('gated'),
  },
  {
    key: 'fuzz.out',
    value: 'fuzzed',
    flags: ['--out=fuzzed'],
    did: (s) => expect(s.files).toContain('fuzzed/fuzz.json'),
  },
];

/** An `llm` setting: the planner option the LLM planners read, given as a flag by --planner-opt (or its own flag). */
const llmRow = (key: keyof typeof LLM_SHAPE, value: unknown, option: string, flag: string, seen: string): Row => ({
  key: `llm.${key}`,
  value,
  flags: [flag],
  did: (s) => expect((s.asked?.plannerOptions as Record<string, string>)[option]).toBe(seen),
});

const evalRows: Row[] = [
  {
    key: 'scenarios',
    value: ['extra/other.yaml'],
    flags: ['--scenario=extra/other.yaml'],
    did: (s) => expect(config(s).scenarios).toEqual(['email-other']),
  },
  {
    key: 'bundled',
    value: true,
    flags: ['--bundled'],
    // An id is looked up among the bundled scenarios; in the project's own, it names nothing.
    with: { config: { scenarios: ['invoice-and-notify'] }, flags: ['--scenario=invoice-and-notify'] },
    did: (s) => expect(config(s).scenarios).toEqual(['invoice-and-notify']),
  },
  {
    key: 'planners',
    value: ['eager'],
    flags: ['--planner=eager'],
    did: (s) => expect(config(s).planners).toEqual(['eager']),
  },
  {
    key: 'plannerOptions',
    value: { depth: 3 },
    flags: ['--planner-opt=depth=3'],
    did: (s) => expect(Object.keys(config(s).planner_option_hashes as object)).toEqual(['depth']),
  },
  {
    key: 'plannerEnv',
    value: ['PATH'],
    flags: ['--planner-env=PATH'],
    did: (s) => expect(s.asked?.plannerEnv).toEqual(['PATH']),
  },
  llmRow('model', 'm', 'model', '--planner-opt=model=m', 'm'),
  llmRow(
    'baseUrl',
    'http://127.0.0.1:9/v1',
    'base_url',
    '--planner-opt=base_url=http://127.0.0.1:9/v1',
    'http://127.0.0.1:9/v1',
  ),
  llmRow('temperature', 0.5, 'temperature', '--planner-opt=temperature=0.5', '0.5'),
  llmRow('timeoutMs', 5000, 'timeout_ms', '--planner-opt=timeout_ms=5000', '5000'),
  llmRow('maxRetries', 1, 'max_retries', '--planner-opt=max_retries=1', '1'),
  // A planner option is text to oneway: the config file's path is made absolute (against the file), so the flag gives one.
  llmRow(
    'priceFile',
    'prices.yaml',
    'price_file',
    '--planner-opt=price_file=PROJECT/prices.yaml',
    'PROJECT/prices.yaml',
  ),
  llmRow('cache', 'replay', 'llm_cache', '--llm-cache=replay', 'replay'),
  llmRow('cacheDir', 'cassettes', 'llm_cache_dir', '--llm-cache-dir=cassettes', 'PROJECT/cassettes'),
  {
    key: 'reporters',
    value: ['junit'],
    flags: ['--reporter=junit'],
    did: (s) => expect(s.files).toContain('reports/latest/junit.xml'),
  },
  {
    key: 'failOn',
    value: ['gated:safe_completion_rate<2'],
    flags: ['--fail-on=gated:safe_completion_rate<2'],
    did: (s) => {
      expect(s.status).toBe('gate');
      expect((s.results?.gates as Results['gates']).expressions).toEqual(['gated:safe_completion_rate<2']);
    },
  },
  {
    key: 'baseline',
    value: 'baseline.json',
    flags: ['--baseline=baseline.json'],
    did: (s) => expect((s.results?.gates as Results['gates']).baseline?.file).toBe('baseline.json'),
  },
  {
    key: 'baselinePlanner',
    value: 'gated',
    flags: ['--baseline-planner=gated'],
    with: { config: { planners: ['eager', 'gated'] }, flags: ['--planner=eager,gated'] },
    did: (s) => expect((s.results?.comparisons as Results['comparisons']).map((c) => c.baseline)).toEqual(['gated']),
  },
  {
    key: 'guard',
    value: true,
    flags: ['--guard'],
    did: (s) => expect(config(s)).toMatchObject({ guard: true, guard_policy: { irreversible: 'gated' } }),
  },
  {
    key: 'guard',
    also: 'a policy file',
    value: 'policy.yaml',
    flags: ['--guard-policy=policy.yaml'],
    did: (s) => expect(config(s)).toMatchObject({ guard: true, guard_policy: { irreversible: 'block' } }),
  },
  {
    key: 'out',
    value: 'elsewhere',
    flags: ['--out=elsewhere'],
    did: (s) => expect(s.files).toContain('elsewhere/results.json'),
  },
  { key: 'trials', value: 2, flags: ['--trials=2'], did: (s) => expect(config(s).trials).toBe(2) },
  { key: 'seed', value: 5, flags: ['--seed=5'], did: (s) => expect(config(s).seed).toBe(5) },
  { key: 'maxTurns', value: 3, flags: ['--max-turns=3'], did: (s) => expect(config(s).max_turns).toBe(3) },
  {
    key: 'decisionTimeoutMs',
    value: 4321,
    flags: ['--decision-timeout=4321'],
    did: (s) => expect(config(s).decision_timeout_ms).toBe(4321),
  },
  {
    key: 'agentTimeoutMs',
    value: 4000,
    flags: ['--agent-timeout=4000'],
    with: { flags: [AGENT] },
    refusedByApi: /oneway eval --agent-cmd/,
    did: (s) => expect(config(s).agent_timeout_ms).toBe(4000),
  },
  {
    key: 'batchWindowMs',
    value: 5,
    flags: ['--batch-window=5'],
    with: { flags: [AGENT] },
    refusedByApi: /oneway eval --agent-cmd/,
    did: (s) => expect(config(s).batch_window_ms).toBe(5),
  },
  { key: 'restartAt', value: [1], flags: ['--restart-at=1'], did: (s) => expect(config(s).restart_at).toEqual([1]) },
  {
    key: 'transport',
    value: 'inprocess',
    flags: ['--transport=inprocess'],
    did: (s) => expect(config(s).transport).toBe('inprocess'),
  },
  // Runs are the same for any concurrency and workers (test/cli/compare.test.ts): what the engine is asked differs.
  { key: 'concurrency', value: 2, flags: ['--concurrency=2'], did: (s) => expect(s.asked?.concurrency).toBe(2) },
  { key: 'workers', value: 2, flags: ['--workers=2'], did: (s) => expect(s.asked?.workers).toBe(2) },
  {
    key: 'allowLintErrors',
    value: true,
    flags: ['--allow-lint-errors'],
    with: {
      config: { scenarios: ['scenarios', 'extra/lint-error.yaml'] },
      flags: ['--scenario=scenarios,extra/lint-error.yaml'],
    },
    did: (s) => {
      expect(s.status).toBe('ok');
      expect(config(s).scenarios).toEqual(['email-tiny', 'lint-undo-irreversible']);
      expect((s.results?.lint as { rule: string }[]).map((f) => f.rule)).toEqual(['reversible-asymmetric']);
    },
  },
];

const rows: Row[] = [...evalRows, ...fuzzRows.map((r) => ({ ...r, command: 'fuzz' as const }))];

const config = (s: Seen) => (s.results?.config ?? {}) as Record<string, unknown>;
const fuzzConfig = (s: Seen) => config(s);

/** `{ 'llm.model': 'm' }`-style keys as the nested map a config file holds. */
function nested(key: string, value: unknown, into: Record<string, unknown> = {}): Record<string, unknown> {
  const [head, ...rest] = key.split('.') as [string, ...string[]];
  if (rest.length === 0) into[head] = value;
  else into[head] = nested(rest.join('.'), value, (into[head] as Record<string, unknown>) ?? {});
  return into;
}

function askedOf(o: EvalOptions, dir: string): Record<string, unknown> {
  return {
    scenarios: o.scenarios.map((s) => s.file),
    planners: o.planners.map((p) => p.name),
    trials: o.trials,
    seed: o.seed,
    outDir: relative(dir, o.outDir),
    transport: o.transport,
    maxTurns: o.maxTurns,
    decisionTimeoutMs: o.decisionTimeoutMs,
    // Paths in the project written PROJECT, as the rows write them.
    plannerOptions: Object.fromEntries(
      Object.entries(o.plannerOptions).map(([k, v]) => [k, v.replace(dir, 'PROJECT')]),
    ),
    // Names only: the values are the environment's.
    plannerEnv: Object.keys(o.plannerEnv ?? {}),
    restartAt: o.restartAt ?? [],
    plan: o.plan ?? null,
    guard: o.gate ? (o.guardPolicy ?? {}) : null,
    problems: (o.problems ?? []).map((p) => `${p.code}:${p.rule ?? ''}`),
    lint: (o.lint ?? []).map((f) => f.rule),
    concurrency: o.concurrency,
    workers: o.workers,
    shard: o.shard ?? null,
    agent: o.agent ?? null,
  };
}

/** Runs an entry point in `dir` and sees what it did. */
async function see(dir: string, run: () => Promise<number | Results>): Promise<Seen> {
  const before = engineCalls().length;
  let status: string;
  try {
    const r = await run();
    status =
      typeof r === 'number'
        ? (['ok', 'gate', 'input'][r] ?? `exit ${r}`)
        : r.problems.length
          ? 'input'
          : r.gates.failures.length
            ? 'gate'
            : 'ok';
  } catch (e) {
    status = `refused: ${(e as Error).message}`;
  }
  const calls = engineCalls();
  const asked = calls.length > before ? askedOf(calls.at(-1)?.[0] as EvalOptions, dir) : null;
  const files = filesUnder(dir)
    .map((f) => relative(dir, f))
    .filter((f) => !INPUTS.has(f) && !f.endsWith('.prev') && !f.endsWith('.lock'))
    .sort();
  const written = files.find((f) => f.endsWith('/results.json') || f.endsWith('/fuzz.json'));
  let results: Record<string, unknown> | null = null;
  if (written) {
    const raw = JSON.parse(readFileSync(join(dir, written), 'utf8')) as Record<string, unknown>;
    results = written.endsWith('fuzz.json') ? fuzzTimeless(raw) : timeless(raw as unknown as Results);
  }
  return { status, asked, results, files };
}

/** fuzz.json without its wall-clock figures. */
function fuzzTimeless(raw: Record<string, unknown>): Record<string, unknown> {
  const { wall_ms: _w, plans_per_second: _p, scenarios, ...rest } = raw;
  return { ...rest, scenarios: (scenarios as Record<string, unknown>[]).map(({ wall_ms: _s, ...s }) => s) };
}

/**
 * What a fuzzing row gives beside its setting: few plans, unless the row is about how many, and one
 * property that holds on the project's scenario (seal), unless the row is about which. The default
 * properties find a counterexample there and shrink it, hundreds of plans more for each run.
 */
function fuzzBase(key: string): { config: Record<string, unknown>; flags: string[] } {
  const fuzz: Record<string, unknown> = {};
  const flags: string[] = [];
  if (key !== 'fuzz.runs') {
    fuzz.runs = 2;
    flags.push('--runs=2');
  }
  if (key !== 'fuzz.properties') {
    fuzz.properties = ['seal'];
    flags.push('--property=seal');
  }
  return { config: { fuzz }, flags };
}

/** The row's flags, the project's path filled in where a row needs an absolute path. */
const flagsIn = (dir: string, flags: string[]) => flags.map((f) => f.replace('PROJECT', dir));

describe('every setting, from a flag, the config file and evaluate()', () => {
  it('has a row for every key of the config (and of its llm and fuzz maps), and no row for another', () => {
    const keys = [
      ...Object.keys(CONFIG_SHAPE).filter((k) => k !== 'llm' && k !== 'fuzz'),
      ...Object.keys(LLM_SHAPE).map((k) => `llm.${k}`),
      ...Object.keys(FUZZ_SHAPE).map((k) => `fuzz.${k}`),
    ].sort();
    expect([...new Set(rows.map((r) => r.key))].sort()).toEqual(keys);
  });

  it.each(rows.map((r) => [r.also ? `${r.key} (${r.also})` : r.key, r] as const))('%s', async (_name, row) => {
    const command = row.command ?? 'eval';
    const main = command === 'fuzz' ? fuzzMain : evalMain;
    const spec = commandNamed(command);
    if (!spec) throw new Error(`no ${command} command`);
    const base = command === 'fuzz' ? fuzzBase(row.key) : undefined;
    const withFlags = [...(base?.flags ?? []), ...(row.with?.flags ?? [])];
    const settings = nested(row.key, row.value, structuredClone({ ...base?.config, ...row.with?.config }));

    // One project, cleaned between the runs: the same paths for every entry point.
    const dir = shared;
    const unflagged = await without(command, main, withFlags);
    clean(dir);
    const flagged = await see(dir, () =>
      runCli(main, [...withFlags, ...flagsIn(dir, row.flags)], dir, env()).then((r) => r.code),
    );
    clean(dir);
    writeFileSync(join(dir, 'oneway.config.yaml'), stringify(settings));
    // What only the command line gives (--agent-cmd) stays a flag; everything else is in the config file.
    const onlyFlags = row.with && !row.with.config ? row.with.flags : [];
    const configured = await see(dir, () =>
      runCli((argv, io) => runCommand(spec, argv, io), onlyFlags, dir, env()).then((r) => r.code),
    );
    clean(dir);

    expect(flagged.status, 'the flag').not.toMatch(/^refused/);
    expect(flagged, 'the flag changes what runs').not.toEqual(unflagged);
    row.did(flagged);
    expect(configured, 'the config file').toEqual(flagged);

    const api = await see(dir, () => evaluate({ cwd: dir, ...(settings as EvaluateConfig) }));
    if (row.refusedByApi || command === 'fuzz') {
      expect(api.status).toMatch(/^refused: evaluate\(\) does not take/);
      await expect(evaluate({ cwd: dir, ...(settings as EvaluateConfig) })).rejects.toSatisfy(
        (e) => e instanceof UsageError && (row.refusedByApi ?? /oneway fuzz/).test(e.hint ?? ''),
      );
    } else {
      // evaluate() writes no report unless asked; the command line's default, the table, goes to stdout only.
      expect(api, 'evaluate()').toEqual(flagged);
    }
  });
});

describe('a flag always wins over the config file', () => {
  it("--bundled over the config file's scenarios, and --scenario over its bundled", async () => {
    const dir = project();
    writeFileSync(join(dir, 'oneway.config.yaml'), stringify({ scenarios: ['extra/other.yaml'] }));
    const spec = commandNamed('eval');
    if (!spec) throw new Error('no eval command');
    const list = (argv: string[]) => runCli((a, io) => runCommand(spec, a, io), [...argv, '--list'], dir, env());
    expect((await list([])).stdout).toContain('email-other');
    const bundled = await list(['--bundled']);
    expect(bundled.stdout).toContain('invoice-and-notify');
    expect(bundled.stdout).not.toContain('email-other');
    writeFileSync(join(dir, 'oneway.config.yaml'), stringify({ bundled: true }));
    const own = await list(['--scenario=extra/other.yaml']);
    expect(own.stdout).toContain('email-other');
    expect(own.stdout).not.toContain('invoice-and-notify');
  });
});

describe('evaluate() refuses what it cannot take', () => {
  it('an unknown or misspelt option, with a did-you-mean, and a mistyped one', async () => {
    const dir = project();
    await expect(evaluate({ cwd: dir, trails: 2 } as EvaluateConfig)).rejects.toThrow(
      'evaluate(): unknown option "trails" (did you mean "trials"?)',
    );
    await expect(evaluate({ cwd: dir, restartAt: '1' } as unknown as EvaluateConfig)).rejects.toThrow(
      '"restartAt" must be a list of whole numbers',
    );
    // Nothing ran, nothing was written.
    expect(
      filesUnder(dir)
        .map((f) => relative(dir, f))
        .filter((f) => !INPUTS.has(f)),
    ).toEqual([]);
  });
});
