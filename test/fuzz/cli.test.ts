import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main as evalMain } from '../../harness/cli/eval.ts';
import { main as fuzzMain } from '../../harness/cli/fuzz.ts';
import { loadPlanFile } from '../../harness/engine/loader/load.ts';
import { LOCK_FILE, lockOutDir } from '../../harness/engine/results/lock.ts';
import { rollbackCompleteness, type PropertyContext } from '../../harness/features/fuzz/properties.ts';
import { runPlan } from '../../harness/features/fuzz/run-plan.ts';
import type { RecordEvent } from '../../harness/core/record.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { runCompiled } from '../helpers/compiled.ts';
import { CHANGED_FIELD_YAML, NOTES_YAML, changedField, notes, scenarioFile } from './fixtures.ts';

/**
 * The arguments of the eval command line printed after "replay:" (`npm run eval -- ...`: the tests
 * run oneway from source inside its repository; an installed oneway prints `npx oneway eval ...`).
 */
function replayArgs(stdout: string): string[] {
  const line = /replay: +npm run eval -- (.*)$/m.exec(stdout)?.[1];
  if (!line) throw new Error(`no replay command in:\n${stdout}`);
  return line.split(' ');
}

/** The JSONL record an eval run wrote (one run). */
function evalRecord(out: string): RecordEvent[] {
  const dir = join(out, 'runs');
  const [scenarioDir] = readdirSync(dir);
  const [file] = readdirSync(join(dir, scenarioDir ?? ''));
  return readFileSync(join(dir, scenarioDir ?? '', file ?? ''), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as RecordEvent);
}

const recordContext = (events: RecordEvent[], scenario = changedField): PropertyContext => ({
  scenario,
  run: { events, received: null },
  guarded: false,
  transport: 'msw',
  rerun: () => Promise.reject(new Error('not needed')),
});

describe('npm run fuzz', () => {
  it('prints help and exits 0', async () => {
    const r = await runCli(fuzzMain, ['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--property=NAME|PATH');
    expect(r.stdout).toMatch(/rollback-completeness +issuing the recorded compensations/);
  });

  it('exits 0 when every property holds, and prints the plans per second', async () => {
    const out = tempDir();
    const r = await runCli(fuzzMain, [
      `--scenario=${scenarioFile(NOTES_YAML)}`,
      '--runs=40',
      '--seed=2',
      `--out=${out}`,
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/archive-note +40 plans +✓ every property held/);
    expect(r.stdout).toMatch(/^40 plans in \d+\.\d+ s \(\d+ plans\/s\)$/m);
    expect(JSON.parse(readFileSync(join(out, 'fuzz.json'), 'utf8'))).toMatchObject({
      plans: 40,
      failures: [],
      config: { seed: 2, runs: 40 },
    });
  });

  it('takes the --out lock: refused while an evaluation holds it (exit 2, fuzz.json not written), released when done', async () => {
    const out = tempDir();
    const args = [`--scenario=${scenarioFile(NOTES_YAML)}`, '--runs=5', '--seed=2', `--out=${out}`];
    const held = lockOutDir(out);
    try {
      const r = await runCli(fuzzMain, args);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${out} is in use by another evaluation (pid ${process.pid}`);
      expect(existsSync(join(out, 'fuzz.json'))).toBe(false);
    } finally {
      held.release();
    }
    expect((await runCli(fuzzMain, args)).code).toBe(0);
    expect(existsSync(join(out, 'fuzz.json'))).toBe(true);
    expect(existsSync(join(out, LOCK_FILE))).toBe(false);
  });

  it('exits 1 on a failing property and writes a minimal plan that npm run eval replays to the same failure', async () => {
    const file = scenarioFile(CHANGED_FIELD_YAML);
    const out = tempDir();
    const r = await runCli(fuzzMain, [
      `--scenario=${file}`,
      '--property=rollback-completeness',
      '--runs=100',
      '--seed=1',
      `--out=${out}`,
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('✗ archive-note-changed-field: rollback-completeness');
    expect(r.stdout).toMatch(/minimal plan \(1 call\): /);
    expect(r.stdout).toMatch(/fast-check: seed 1, path [\d:]+ after \d+ plans?, \d+ shrinks?/);
    const planFile = join(out, 'archive-note-changed-field', 'rollback-completeness.yaml');
    const plan = loadPlanFile(planFile, changedField);
    expect(plan.ok).toBe(true);

    // The replay command, as printed, through the real eval: the same record, so the same failure.
    const args = replayArgs(r.stdout);
    expect(args).toEqual([
      '--planner=scripted',
      `--plan=${planFile}`,
      `--scenario=${file}`,
      expect.stringMatching(/^--seed=\d+$/),
    ]);
    const evalOut = tempDir();
    const e = await runCli(evalMain, [...args, `--out=${evalOut}`]);
    expect(e.code).toBe(0);
    const replayed = evalRecord(evalOut);
    const seed = Number(args[3]?.slice('--seed='.length));
    const fuzzed = await runPlan(changedField, plan.ok ? plan.value : [], {
      seed,
      scenarioFile: relative(process.cwd(), file),
    });
    expect(replayed).toEqual(fuzzed.events);
    const verdict = await rollbackCompleteness.check(recordContext(replayed));
    expect(verdict).toMatch(/restored_by/);
    expect(r.stdout).toContain(String(verdict).split('\n')[1]);
  });

  it('replays a fast-check counterexample with --seed and --path', async () => {
    const file = scenarioFile(CHANGED_FIELD_YAML);
    const [a, b] = [tempDir(), tempDir()];
    const first = await runCli(fuzzMain, [
      `--scenario=${file}`,
      '--property=rollback-completeness',
      '--runs=100',
      '--seed=4',
      `--out=${a}`,
    ]);
    const command = /^ +npm run fuzz -- (.*)$/m.exec(first.stdout)?.[1]?.split(' ') ?? [];
    expect(command).toContainEqual(expect.stringMatching(/^--path=[\d:]+$/));
    const again = await runCli(fuzzMain, [...command, `--out=${b}`]);
    expect(again.code).toBe(1);
    const planOf = (dir: string) =>
      readFileSync(join(dir, 'archive-note-changed-field', 'rollback-completeness.yaml'), 'utf8').replace(
        /^#.*\n/gm,
        '',
      );
    expect(planOf(b)).toEqual(planOf(a));
  });

  it('loads a user-defined property from a module and reports its message', async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'never-archive-twice.ts'),
      `import type { RecordProperty } from 'oneway/fuzz';
const property: RecordProperty = {
  name: 'never-archive-twice',
  description: 'a note is archived at most once per run',
  check(events) {
    const archived = events.filter((e) => e.type === 'call' && e.tool === 'archive_note' && e.status === 'ok');
    return archived.length <= 1 || \`archive_note called \${archived.length} times\`;
  },
};
export default property;
`,
    );
    const out = tempDir();
    const r = await runCli(
      fuzzMain,
      [
        `--scenario=${scenarioFile(NOTES_YAML)}`,
        '--property=./never-archive-twice.ts,seal',
        '--runs=50',
        `--out=${out}`,
      ],
      dir,
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('never-archive-twice, seal');
    expect(r.stdout).toContain('✗ archive-note: never-archive-twice');
    expect(r.stdout).toContain('archive_note called 2 times');
    expect(r.stdout).toMatch(/minimal plan \(2 calls\)/);
    expect(r.stdout).toContain('--property=./never-archive-twice.ts');
  });

  it('fuzzes a planner across seeds and shrinks what it did to a plan that replays without it', async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'no-restore.mjs'),
      `export default { name: 'no-restore', check: (events) => !events.some((e) => e.type === 'call' && e.tool === 'restore_note') || 'restore_note was called' };\n`,
    );
    const file = scenarioFile(NOTES_YAML);
    const out = tempDir();
    const r = await runCli(fuzzMain, [
      `--scenario=${file}`,
      '--planner=random',
      `--property=${join(dir, 'no-restore.mjs')}`,
      '--runs=30',
      `--out=${out}`,
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✗ archive-note: no-restore \(planner random, seed \d+\)/);
    expect(r.stdout).toMatch(/minimal plan \(1 call\)/);
    expect(r.stdout).toMatch(/planner run: npm run eval -- --planner=random --scenario=\S+ --seed=\d+/);
    const plan = loadPlanFile(join(out, 'archive-note', 'no-restore.yaml'), notes);
    expect(plan.ok && plan.value).toEqual([{ restore_note: expect.any(Object) }]);
  });

  it('reports a planner that escapes the sandbox, with no plan when none reproduces it', async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'phones-home.mjs'),
      `export default { name: 'phones-home', async next(view) { if (view.turn === 1) { try { await fetch('https://telemetry.example/ping'); } catch {} } return { type: 'finish' }; } };\n`,
    );
    const out = tempDir();
    const r = await runCli(fuzzMain, [
      `--scenario=${scenarioFile(NOTES_YAML)}`,
      `--planner=${join(dir, 'phones-home.mjs')}`,
      '--property=seal',
      '--runs=3',
      `--out=${out}`,
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('✗ archive-note: seal (planner phones-home, seed 1)');
    // The planner file runs in a sealed process: its fetch is refused where it meets the socket layer.
    expect(r.stdout).toContain('1 sandbox escape: CONNECT tcp://telemetry.example:443');
    expect(r.stdout).toContain('no plan reproduces it without the planner');
    expect(existsSync(join(out, 'archive-note'))).toBe(false);
  });

  // The --workers run is the compiled CLI's, in a process of its own: worker threads started from this
  // process (the source) would each compile the engine through tsx, most of what the test cost.
  it('gives the same reports with --workers=2 (the compiled CLI) as serially', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.yaml'), NOTES_YAML);
    writeFileSync(join(dir, 'b.yaml'), CHANGED_FIELD_YAML);
    const [serial, parallel] = [tempDir(), tempDir()];
    const s = await runCli(fuzzMain, [`--scenario=${dir}`, '--runs=30', '--seed=3', `--out=${serial}`]);
    const p = await runCompiled('fuzz', [
      `--scenario=${dir}`,
      '--runs=30',
      '--seed=3',
      '--workers=2',
      `--out=${parallel}`,
    ]);
    expect(p.code, p.stderr).toBe(1);
    expect(p.code).toBe(s.code);
    const report = (out: string) => {
      const r = JSON.parse(readFileSync(join(out, 'fuzz.json'), 'utf8')) as {
        plans: number;
        scenarios: { id: string; plans: number }[];
        failures: { file: string | null }[];
      };
      return {
        plans: r.plans,
        scenarios: r.scenarios.map((x) => [x.id, x.plans]),
        failures: r.failures.map((f) => ({ ...f, file: null })),
      };
    };
    expect(report(parallel)).toEqual(report(serial));
    const lines = (out: string) => out.split('\n').filter((l) => /^  \S/.test(l));
    expect(lines(p.stdout)).toEqual(lines(s.stdout));
  });

  it('stops at --time-limit when no --runs is given', async () => {
    // "(time limit)" says why it stopped; how long that took on a busy machine is not the point.
    const r = await runCli(fuzzMain, [
      `--scenario=${scenarioFile(NOTES_YAML)}`,
      '--time-limit=1',
      '--property=seal',
      `--out=${tempDir()}`,
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/archive-note +\d+ plans +✓ every property held \(time limit\)/);
  });

  it.each([
    [['--runz=5'], 'unknown option --runz', 'did you mean --runs?'],
    [
      ['--property=rollback-completness'],
      'unknown property "rollback-completness"',
      'did you mean "rollback-completeness"?',
    ],
    [['--runs=0'], '--runs must be an integer >= 1', ''],
    [['--transport=carrier-pigeon'], '--transport must be inprocess or msw', ''],
    [['--planner=eagr'], 'unknown planner "eagr"', 'did you mean "eager"?'],
    [['--property=./nowhere.ts'], 'property module not found: ./nowhere.ts', ''],
    [['--path=1:2'], '--path replays one counterexample', 'one --scenario and one --property'],
  ])('exits 2 on %j with a message and no stack trace', async (argv, message, hint) => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.yaml'), NOTES_YAML);
    writeFileSync(join(dir, 'b.yaml'), CHANGED_FIELD_YAML);
    const r = await runCli(fuzzMain, [`--scenario=${dir}`, ...argv, `--out=${tempDir()}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).toContain(hint);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('exits 2 when a property module exports no property', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'empty.mjs'), 'export const answer = 42;\n');
    const r = await runCli(fuzzMain, [`--property=${join(dir, 'empty.mjs')}`, `--out=${tempDir()}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('does not export a property');
  });

  it('exits 2 when a scenario does not load, after fuzzing the others', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'good.yaml'), NOTES_YAML);
    writeFileSync(
      join(dir, 'bad.yaml'),
      NOTES_YAML.replace('id: archive-note', 'id: bad-one').replace('read_only: true', 'read_only: maybe'),
    );
    const r = await runCli(fuzzMain, [`--scenario=${dir}`, '--runs=5', `--out=${tempDir()}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad\.yaml:\d+:\d+ error/);
    expect(r.stdout).toMatch(/archive-note +5 plans/);
  });

  it('writes no counterexample when nothing fails', async () => {
    const out = tempDir();
    await runCli(fuzzMain, [`--scenario=${scenarioFile(NOTES_YAML)}`, '--runs=10', `--out=${out}`]);
    expect(existsSync(join(out, 'archive-note'))).toBe(false);
  });
});
