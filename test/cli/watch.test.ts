/**
 * `oneway eval --watch`, in process through the `oneway` command's runCommand (so oneway.config.*
 * is found and read as a user's command reads it), in a real project in a temporary directory: a
 * change to a file re-runs what it affects and no more, the results of the rest are kept and
 * results.json is rewritten whole, a scenario that stops loading is reported while the watching
 * goes on, and q (a key on a terminal) ends it with the last evaluation's exit status; Ctrl-C in a
 * process of its own (the compiled CLI) ends it the same way. Every wait is for a line the command
 * writes ("waiting for changes"), never for a duration.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { evaluate } from '../../harness/api.ts';
import { commandNamed } from '../../harness/cli/commands.ts';
import { main as evalMain } from '../../harness/cli/eval.ts';
import { run, runCommand } from '../../harness/cli/program.ts';
import { changeOf } from '../../harness/cli/watch.ts';
import { localImports, type Watched } from '../../harness/features/pipeline/read.ts';
import * as engine from '../../harness/engine/runner/evaluate.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { cli } from '../helpers/compiled.ts';
import { readResults, timeless } from '../helpers/results.ts';
import { EMAIL_YAML } from '../helpers/run.ts';

// What the engine is asked each time: the real evaluate, watched (its `resume` is the runs kept).
vi.mock('../../harness/engine/runner/evaluate.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../harness/engine/runner/evaluate.ts')>();
  return { ...real, evaluate: vi.fn(real.evaluate) };
});
beforeEach(() => {
  vi.mocked(engine.evaluate).mockClear();
});
/** The runs the engine was told to keep at its n-th call (from 1), as scenario/planner. */
const keptAt = (n: number) =>
  (vi.mocked(engine.evaluate).mock.calls[n - 1]?.[0].resume ?? []).map((r) => `${r.scenario}/${r.planner}`).sort();

const TWO = EMAIL_YAML.replace('id: email-tiny', 'id: email-two');
const BROKEN = TWO.replace('reversibility: irreversible', 'reversibility: irreversable');

/** A project: package.json, ./scenarios with two scenarios, and whatever else a test writes. */
function project(files: Record<string, string> = {}): string {
  const dir = tempDir('oneway-watch-');
  writeFileSync(join(dir, 'package.json'), '{}');
  mkdirSync(join(dir, 'scenarios'));
  writeFileSync(join(dir, 'scenarios', 'email.yaml'), EMAIL_YAML);
  writeFileSync(join(dir, 'scenarios', 'two.yaml'), TWO);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/**
 * `oneway eval --watch ARGS` in `cwd`, with a terminal's stdin (to press q) and captured output
 * (stdout a terminal too with `tty`).
 * `waiting(n)` resolves once the n-th "waiting for changes" line is written (the first comes after
 * the first evaluation); `press('q')` quits.
 */
function watchEval(args: string[], cwd: string, o: { tty?: boolean } = {}) {
  const stdout = Object.assign(new PassThrough(), { isTTY: o.tty === true });
  const stderr = new PassThrough();
  const stdin = Object.assign(new PassThrough(), { isTTY: true });
  let out = '';
  let err = '';
  const waiters: { n: number; resolve: () => void }[] = [];
  const waits = () => err.split('waiting for changes').length - 1;
  stdout.on('data', (d) => (out += String(d)));
  stderr.on('data', (d) => {
    err += String(d);
    for (const w of waiters.filter((x) => waits() >= x.n)) w.resolve();
  });
  const spec = commandNamed('eval');
  if (!spec) throw new Error('no eval command');
  const code = runCommand(spec, ['--watch', ...args], { stdout, stderr, stdin, cwd, env: { NO_COLOR: '1' } });
  return {
    code,
    waiting: (n: number) =>
      new Promise<void>((r, reject) => {
        if (waits() >= n) return r();
        waiters.push({ n, resolve: r });
        // The command ended before the line came: say what it wrote instead of waiting for ever.
        void code.then((c) => reject(new Error(`eval --watch exited ${c} before waiting #${n}:\n${err}`)));
      }),
    press: (key: string) => stdin.write(key),
    stdout: () => out,
    stderr: () => err,
  };
}

const ids = (dir: string) => readResults(join(dir, 'reports/latest')).runs.map((r) => `${r.scenario}/${r.planner}`);

describe('oneway eval --watch', () => {
  it('re-runs only the scenario whose file changed, for every planner, and keeps the rest in results.json', async () => {
    const dir = project();
    const w = watchEval(['--planner=eager,gated'], dir);
    await w.waiting(1);
    expect(ids(dir)).toEqual(['email-tiny/eager', 'email-tiny/gated', 'email-two/eager', 'email-two/gated']);

    writeFileSync(join(dir, 'scenarios', 'two.yaml'), TWO.replace('title: Email a customer', 'title: Changed'));
    await w.waiting(2);
    // The engine kept email-tiny's runs and ran email-two's, for both planners.
    expect(keptAt(2)).toEqual(['email-tiny/eager', 'email-tiny/gated']);
    expect(w.stderr()).toContain('scenarios/two.yaml changed');
    expect(w.stderr()).toContain('ran 2 runs (email-two × eager, gated); kept 2 from the evaluation before');
    const results = readResults(join(dir, 'reports/latest'));
    expect(results.runs.map((r) => `${r.scenario}/${r.planner}`)).toEqual(ids(dir));
    expect(results.runs).toHaveLength(4);
    expect(results.scenarios.find((s) => s.id === 'email-two')?.title).toBe('Changed');
    expect(results.summary.map((s) => s.planner)).toEqual(['eager', 'gated']);
    // What a fresh evaluation of the files as they are now gives, apart from wall-clock figures.
    const fresh = tempDir('oneway-watch-fresh-');
    expect((await runCli(evalMain, ['--planner=eager,gated', `--out=${fresh}`], dir)).code).toBe(0);
    expect(timeless(results)).toEqual(timeless(readResults(fresh)));
    // Not a terminal: the table printed again, after a separator line.
    expect(w.stdout()).toContain('── oneway eval --watch: evaluation 2 (scenarios/two.yaml changed) ──');
    expect(w.stdout().split('│ email-two ').length - 1).toBe(2);

    w.press('q');
    expect(await w.code).toBe(0);
  }, 60_000);

  it('reports a scenario that stops loading (file:line:col), keeps watching, and runs it again once it loads', async () => {
    const dir = project();
    const w = watchEval(['--planner=eager'], dir);
    await w.waiting(1);

    writeFileSync(join(dir, 'scenarios', 'two.yaml'), BROKEN);
    await w.waiting(2);
    expect(w.stderr()).toMatch(/scenarios\/two\.yaml:\d+:\d+ error \[invalid_enum\] tools\[2\]\.reversibility/);
    // The other scenario's run stays, without running again; the broken one is listed as a problem.
    expect(keptAt(2)).toEqual(['email-tiny/eager']);
    expect(ids(dir)).toEqual(['email-tiny/eager']);
    expect(readResults(join(dir, 'reports/latest')).problems).toHaveLength(1);

    writeFileSync(join(dir, 'scenarios', 'two.yaml'), TWO);
    await w.waiting(3);
    expect(ids(dir)).toEqual(['email-tiny/eager', 'email-two/eager']);
    expect(readResults(join(dir, 'reports/latest')).problems).toEqual([]);

    w.press('q');
    expect(await w.code).toBe(0); // the last evaluation's status, not the broken one's
  }, 60_000);

  it('runs a scenario file added to a watched directory, and re-runs everything when the config file changes', async () => {
    const config = 'planners: [eager, gated]\n';
    const dir = project({ 'oneway.config.yaml': config });
    const w = watchEval([], dir);
    await w.waiting(1);
    expect(ids(dir)).toHaveLength(4);

    writeFileSync(join(dir, 'scenarios', 'three.yaml'), EMAIL_YAML.replace('id: email-tiny', 'id: email-three'));
    await w.waiting(2);
    expect(keptAt(2)).toHaveLength(4);
    expect(ids(dir)).toHaveLength(6);

    // A change that changes no result still re-runs everything: the config is every run's.
    writeFileSync(join(dir, 'oneway.config.yaml'), `${config}# a comment\n`);
    await w.waiting(3);
    expect(keptAt(3)).toEqual([]);
    expect(w.stderr()).toContain('ran 6 runs');

    // The config now asks for another line-up: read again, not taken from the module or config cache.
    writeFileSync(join(dir, 'oneway.config.yaml'), 'planners: [gated]\nfailOn: ["gated:safe_completion_rate<2"]\n');
    await w.waiting(4);
    expect(ids(dir)).toEqual(['email-three/gated', 'email-tiny/gated', 'email-two/gated']);

    w.press('q');
    expect(await w.code).toBe(1); // the last evaluation's gate failed
  }, 60_000);

  it("re-runs a planner file's planner on every scenario when a file it imports changes; a re-runs everything", async () => {
    const planner = `import { reason } from './reason.mjs';
export default { name: 'mine', create: () => ({ name: 'mine', next: () => ({ type: 'finish', reason: reason() }) }) };
`;
    const dir = project({ 'mine.mjs': planner, 'reason.mjs': "export const reason = () => 'one';\n" });
    const w = watchEval(['--planner=gated,./mine.mjs'], dir, { tty: true });
    await w.waiting(1);

    writeFileSync(join(dir, 'reason.mjs'), "export const reason = () => 'two';\n");
    await w.waiting(2);
    expect(keptAt(2)).toEqual(['email-tiny/gated', 'email-two/gated']);
    expect(w.stderr()).toContain('reason.mjs changed');

    w.press('a');
    await w.waiting(3);
    expect(keptAt(3)).toEqual([]);
    expect(w.stderr()).toContain('re-running everything (a)');
    // On a terminal the screen is cleared before each re-run, and the table drawn afresh: no separator lines.
    expect(w.stdout().split('\u001b[2J\u001b[3J\u001b[H')).toHaveLength(3);
    expect(w.stdout()).not.toContain('── oneway eval --watch');

    w.press('q');
    expect(await w.code).toBe(0);
  }, 60_000);

  it.each([
    ['--list', /--watch cannot go with --list/],
    ['--shard=1/2', /--watch cannot go with --shard/],
  ])('refuses --watch with %s, with a hint', async (flag, message) => {
    const r = await runCli(run, ['eval', '--watch', flag], project());
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toContain('hint: ');
  });

  it('is no setting: watch in oneway.config.* and evaluate({ watch }) are refused, saying where watching is asked for', async () => {
    const r = await runCli(run, ['eval'], project({ 'oneway.config.yaml': 'watch: true\n' }));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('"watch" is no setting: watch mode is asked for on the command line only');
    await expect(evaluate({ cwd: project(), watch: true } as never)).rejects.toThrow(
      /"watch" is no option: watch mode is asked for on the command line only \(oneway eval --watch\)/,
    );
  });

  it("ends on Ctrl-C (SIGINT) while waiting with the last evaluation's status, not 130", async () => {
    const dir = project();
    // A real process (a signal is the point), of the compiled CLI users run: it starts in half the time tsx takes.
    const child = spawn(
      process.execPath,
      [cli('eval'), '--watch', '--planner=eager', '--fail-on=premature_irreversible_rate>0'],
      { cwd: dir, env: { ...process.env, NO_COLOR: '1' }, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stdout.resume();
    const code = new Promise<number | null>((r) => child.on('close', (c) => r(c)));
    child.stderr.on('data', (d) => {
      stderr += String(d);
      if (stderr.includes('waiting for changes')) child.kill('SIGINT');
    });
    expect(await code, stderr).toBe(1); // the gate failed; watching was ended by the user, not interrupted
    expect(stderr).toContain('(Ctrl-C to quit)'); // stdin is no terminal: no keys offered
  }, 60_000);
});

describe('what a change affects', () => {
  const w: Watched = {
    scenarios: new Map([
      ['/p/scenarios/a.yaml', ['a']],
      ['/p/scenarios/bad.yaml', []],
    ]),
    scenarioDirs: ['/p/scenarios'],
    planners: new Map([
      ['/p/mine.ts', ['mine']],
      ['/p/rules.ts', ['mine', 'other']],
    ]),
    everything: ['/p/oneway.config.yaml', '/p/plan.yaml'],
    analysis: ['/p/baseline.json'],
    ignore: ['/p/scenarios/out'],
  };

  it('a scenario file: its scenarios; a planner file or one it imports: its planners; the config: everything', () => {
    expect(changeOf(['/p/scenarios/a.yaml'], w)).toEqual({
      files: ['/p/scenarios/a.yaml'],
      all: false,
      scenarios: new Set(['a']),
      planners: new Set(),
    });
    expect(changeOf(['/p/rules.ts'], w)?.planners).toEqual(new Set(['mine', 'other']));
    expect(changeOf(['/p/scenarios/a.yaml', '/p/oneway.config.yaml'], w)?.all).toBe(true);
    expect(changeOf(['/p/plan.yaml'], w)?.all).toBe(true);
  });

  it('a new scenario file or one that did not load, and the baseline: a change that keeps every run', () => {
    for (const f of ['/p/scenarios/new.yaml', '/p/scenarios/deep/new.yml', '/p/scenarios/bad.yaml', '/p/baseline.json'])
      expect(changeOf([f], w), f).toEqual({ files: [f], all: false, scenarios: new Set(), planners: new Set() });
  });

  it('an editor swap file, a file beside the watched ones, and what oneway writes are no change', () => {
    expect(
      changeOf(
        ['/p/scenarios/.a.yaml.swp', '/p/scenarios/a.yaml~', '/p/notes.txt', '/p/scenarios/out/results.yaml'],
        w,
      ),
    ).toBeUndefined();
    expect(changeOf([], w, true)?.all).toBe(true); // `a`: everything, with no file changed
  });

  it("follows a planner file's local imports, whatever their extension, and not node_modules", () => {
    const dir = tempDir('oneway-imports-');
    mkdirSync(join(dir, 'lib'));
    writeFileSync(
      join(dir, 'mine.ts'),
      "import { a } from './lib/a.js';\nimport x from 'some-package';\nexport * from './lib';\nconst c = await import('./c.mjs');\n",
    );
    writeFileSync(join(dir, 'lib', 'a.ts'), "import '../b.mts';\n");
    writeFileSync(join(dir, 'lib', 'index.ts'), '');
    writeFileSync(join(dir, 'b.mts'), "import { a } from './lib/a.js'; // a cycle\n");
    writeFileSync(join(dir, 'c.mjs'), "const d = require('./missing.cjs');\n");
    expect(localImports(join(dir, 'mine.ts')).sort()).toEqual(
      ['mine.ts', 'lib/a.ts', 'lib/index.ts', 'b.mts', 'c.mjs'].map((f) => join(dir, f)).sort(),
    );
  });
});
