/**
 * Results never lost: results.json is written atomically and a failed write
 * (a full disk, an --out that is a file) is the user's error with exit 2 and
 * leaves the previous file whole; --resume falls back to the last good
 * checkpoint when results.json is damaged; one evaluation per --out (a lock,
 * stale locks taken over, released on Ctrl-C); --resume refuses a different
 * configuration. Evaluations run eval's `main` in process, but the one Ctrl-C
 * stops: the compiled CLI in a child process.
 */
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../harness/cli/eval.ts';
import { LOCK_FILE, lockOutDir, processStart } from '../../harness/engine/results/lock.ts';
import { RESULTS_SCHEMA_VERSION, type Results } from '../../harness/engine/results/types.ts';
import { PREVIOUS_RESULTS_FILE, writeResults } from '../../harness/engine/results/write.ts';
import { atomicFs, writeFileAtomic } from '../../harness/engine/io/atomic-write.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { cli, REPO } from '../helpers/compiled.ts';
import { timeless } from '../helpers/results.ts';
import { EMAIL_YAML } from '../helpers/run.ts';

const read = (dir: string, file = 'results.json') => JSON.parse(readFileSync(join(dir, file), 'utf8')) as Results;
const ARGS = ['--planner=gated', '--scenario=invoice-and-notify,purge-inactive-accounts', '--seed=4'];
const errno = (code: string) => Object.assign(new Error(`${code}: simulated, write`), { code });
const leftovers = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.tmp') || f.includes('.stale'));

/** Makes every write to a temporary results file (or report: `file`) fail with `code` (through the writer's file-system seam). */
function failResultsWrites(code: string, file = 'results.json') {
  const fds = new Set<number>();
  const open = atomicFs.openSync;
  const write = atomicFs.writeSync;
  vi.spyOn(atomicFs, 'openSync').mockImplementation(((path: string, ...rest: unknown[]) => {
    const fd = (open as (...a: unknown[]) => number)(path, ...rest);
    if (String(path).includes(`.${file}.`)) fds.add(fd);
    return fd;
  }) as typeof atomicFs.openSync);
  vi.spyOn(atomicFs, 'writeSync').mockImplementation(((fd: number, ...rest: unknown[]) => {
    if (fds.has(fd)) throw errno(code);
    return (write as (...a: unknown[]) => number)(fd, ...rest);
  }) as typeof atomicFs.writeSync);
}

afterEach(() => vi.restoreAllMocks());

describe('atomic results.json', () => {
  it('a failed write (ENOSPC) keeps the previous results.json byte for byte, cleans up, and exits 2 with the cause', async () => {
    const out = tempDir();
    expect((await runCli(main, [...ARGS, `--out=${out}`])).code).toBe(0);
    const before = readFileSync(join(out, 'results.json'), 'utf8');

    failResultsWrites('ENOSPC');
    const r = await runCli(main, [...ARGS, '--trials=2', `--out=${out}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`cannot write ${join(out, 'results.json')}: no space left on the device (ENOSPC)`);
    expect(r.stderr).toContain(
      'hint: free some space or choose another --out; results.json there still holds the last complete checkpoint',
    );
    expect(r.stderr).not.toContain('internal error');
    expect(r.stderr).not.toContain('bug in oneway');
    expect(readFileSync(join(out, 'results.json'), 'utf8')).toBe(before);
    expect(leftovers(out)).toEqual([]);
    expect(existsSync(join(out, LOCK_FILE))).toBe(false);

    // With room again, the evaluation runs (and replaces the intact file).
    vi.restoreAllMocks();
    expect((await runCli(main, [...ARGS, '--trials=2', `--out=${out}`])).code).toBe(0);
    expect(read(out).runs).toHaveLength(4);
  }, 60_000);

  it('a report is written whole or not at all: a failed write keeps the previous report.md byte for byte', async () => {
    const out = tempDir();
    expect((await runCli(main, [...ARGS, '--reporter=markdown', `--out=${out}`])).code).toBe(0);
    const before = readFileSync(join(out, 'report.md'), 'utf8');

    failResultsWrites('ENOSPC', 'report.md');
    const r = await runCli(main, [...ARGS, '--trials=2', '--reporter=markdown', `--out=${out}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`cannot write ${join(out, 'report.md')}: no space left on the device (ENOSPC)`);
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toBe(before);
    expect(leftovers(out)).toEqual([]);
  }, 60_000);

  it('writeFileAtomic leaves the target untouched when the rename fails (EROFS)', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'f.json'), 'old\n');
    vi.spyOn(atomicFs, 'renameSync').mockImplementation(() => {
      throw errno('EROFS');
    });
    expect(() => writeFileAtomic(join(dir, 'f.json'), 'new\n')).toThrow(/EROFS/);
    expect(readFileSync(join(dir, 'f.json'), 'utf8')).toBe('old\n');
    expect(readdirSync(dir)).toEqual(['f.json']);
  });

  it('writeResults keeps the previous checkpoint as results.json.prev, never a damaged one', () => {
    const results = (runs: number) =>
      ({
        schema_version: RESULTS_SCHEMA_VERSION,
        config: {},
        runs: Array.from({ length: runs }, () => ({})),
      }) as unknown as Results;
    const dir = tempDir();
    writeResults(dir, results(1));
    writeResults(dir, results(2));
    expect(read(dir, PREVIOUS_RESULTS_FILE).runs).toHaveLength(1);
    expect(read(dir).runs).toHaveLength(2);
    // Something else cut results.json short: the good .prev is not replaced by it.
    writeFileSync(join(dir, 'results.json'), '{"schema_version": 1, "ru');
    writeResults(dir, results(3));
    expect(read(dir, PREVIOUS_RESULTS_FILE).runs).toHaveLength(1);
    expect(read(dir).runs).toHaveLength(3);
    expect(leftovers(dir)).toEqual([]);
  });

  it.each([
    ['an existing file', (f: string) => f, 'it is a file, not a directory (EEXIST)'],
    ['a path under a file', (f: string) => join(f, 'sub'), 'a part of the path is a file, not a directory (ENOTDIR)'],
  ])('--out naming %s is a usage error (exit 2) naming the path and the cause', async (_, outOf, cause) => {
    const file = join(tempDir(), 'not-a-dir');
    writeFileSync(file, 'keep me\n');
    const r = await runCli(main, [...ARGS, `--out=${outOf(file)}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`cannot write ${outOf(file)}: ${cause}`);
    expect(r.stderr).toContain('hint: --out must name a directory');
    expect(r.stderr).not.toContain('internal error');
    expect(readFileSync(file, 'utf8')).toBe('keep me\n');
  });

  it('--resume on a damaged results.json falls back to results.json.prev, says so, and finishes to the uninterrupted results', async () => {
    const full = tempDir();
    expect((await runCli(main, [...ARGS, `--out=${full}`])).code).toBe(0);
    const out = tempDir();
    expect((await runCli(main, [...ARGS, `--out=${out}`])).code).toBe(0);
    // The last good checkpoint held the first run; results.json was cut short.
    const complete = read(out);
    writeFileSync(
      join(out, PREVIOUS_RESULTS_FILE),
      `${JSON.stringify({ ...complete, interrupted: true, runs: complete.runs.slice(0, 1) }, null, 2)}\n`,
    );
    const text = readFileSync(join(out, 'results.json'), 'utf8');
    writeFileSync(join(out, 'results.json'), text.slice(0, text.length / 2));

    const r = await runCli(main, [...ARGS, `--out=${out}`, '--resume']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`cannot read ${join(out, 'results.json')}`);
    expect(r.stderr).toContain(`resuming from the last good checkpoint, ${join(out, PREVIOUS_RESULTS_FILE)} (1 run)`);
    expect(timeless(read(out))).toEqual(timeless(read(full)));
  }, 60_000);
});

describe('one evaluation per --out', () => {
  it('refuses an --out locked by a live evaluation (exit 2, with a hint), and runs once it is released', async () => {
    const out = tempDir();
    const lock = lockOutDir(out);
    try {
      const r = await runCli(main, [...ARGS, `--out=${out}`]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`oneway: ${out} is in use by another evaluation (pid ${process.pid}`);
      expect(r.stderr).toContain(`if no evaluation is running there, delete ${join(out, LOCK_FILE)}`);
      expect(existsSync(join(out, 'results.json'))).toBe(false);
      expect(existsSync(join(out, LOCK_FILE))).toBe(true);
    } finally {
      lock.release();
    }
    expect(existsSync(join(out, LOCK_FILE))).toBe(false);
    expect((await runCli(main, [...ARGS, `--out=${out}`])).code).toBe(0);
    expect(existsSync(join(out, LOCK_FILE))).toBe(false);
  }, 30_000);

  it('takes over a stale lock whose process is gone, with a warning', async () => {
    const dead = await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, ['-e', '']);
      child.on('exit', () => resolve(child.pid as number));
    });
    const out = tempDir();
    writeFileSync(
      join(out, LOCK_FILE),
      JSON.stringify({
        pid: dead,
        process_start: null,
        host: hostname(),
        started_at: '2020-01-01T00:00:00.000Z',
        command: 'oneway eval',
      }),
    );
    const r = await runCli(main, [...ARGS, `--out=${out}`]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      `took over a stale lock on ${out}: its evaluation (pid ${dead}, started 2020-01-01T00:00:00.000Z) is no longer running`,
    );
    expect(existsSync(join(out, LOCK_FILE))).toBe(false);
    expect(leftovers(out)).toEqual([]);
  }, 30_000);

  it.skipIf(processStart(process.pid) === null)(
    'takes over a lock whose pid now belongs to another process (reused pid)',
    () => {
      const out = tempDir();
      writeFileSync(
        join(out, LOCK_FILE),
        JSON.stringify({
          pid: process.pid,
          process_start: '1',
          host: hostname(),
          started_at: 'then',
          command: 'oneway eval',
        }),
      );
      const warnings: string[] = [];
      const lock = lockOutDir(out, { warn: (m) => warnings.push(m) });
      expect(warnings).toEqual([
        `took over a stale lock on ${out}: its evaluation (pid ${process.pid}, started then) is no longer running`,
      ]);
      expect(JSON.parse(readFileSync(lock.path, 'utf8'))).toMatchObject({
        pid: process.pid,
        process_start: processStart(process.pid),
      });
      lock.release();
      expect(existsSync(lock.path)).toBe(false);
    },
  );

  it('a second evaluation on a running one is refused; Ctrl-C twice (process.exit) still releases the lock', async () => {
    const dir = tempDir();
    // gated, slowed down; after the first Ctrl-C its run in flight never ends, so only the second one stops it.
    writeFileSync(
      join(dir, 'slow.mjs'),
      `import gated from '${join(REPO, 'dist/planners/gated.js')}';
let hang = false;
process.on('SIGINT', () => { hang = true; setInterval(() => {}, 1000); });
export default { name: 'slow-gated', create(ctx) { const p = gated.create(ctx); return { name: 'slow-gated', next: async (v) => { await new Promise((r) => setTimeout(r, 20)); if (hang) await new Promise(() => {}); return p.next(v); } }; } };
`,
    );
    const out = tempDir();
    const args = [
      `--planner=${join(dir, 'slow.mjs')}`,
      // Enough runs (160, 20 ms a decision) that the evaluation cannot end on its own before it is interrupted,
      // however slowly the second evaluation below starts on a loaded machine.
      '--trials=40',
      '--scenario=invoice-and-notify,purge-inactive-accounts,webhook-timeout-reconcile,release-with-migration',
      `--out=${out}`,
    ];
    // A real process (the compiled CLI): the lock must go when Ctrl-C's process.exit ends it.
    const child = spawn(process.execPath, [cli('eval'), ...args], {
      env: { ...process.env, NO_COLOR: '1' },
    });
    child.stdout.resume();
    let stderr = '';
    const waiters: { text: string; resolve: () => void }[] = [];
    child.stderr.on('data', (d) => {
      stderr += String(d);
      for (const w of waiters.filter((x) => stderr.includes(x.text))) w.resolve();
    });
    const said = (text: string) =>
      new Promise<void>((resolve) => (stderr.includes(text) ? resolve() : waiters.push({ text, resolve })));
    const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    // Running: its lock is there and its first checkpoint is written (its Ctrl-C handler is installed by then).
    await new Promise<void>((resolve, reject) => {
      const poll = setInterval(() => {
        if (child.exitCode !== null) {
          clearInterval(poll);
          reject(new Error(`the evaluation ended early: ${stderr}`));
        }
        try {
          if (existsSync(join(out, LOCK_FILE)) && read(out).runs.length > 0) {
            clearInterval(poll);
            resolve();
          }
        } catch {
          /* no checkpoint yet */
        }
      }, 20);
    });
    const second = await runCli(main, ['--planner=gated', '--scenario=invoice-and-notify', `--out=${out}`]);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain(`is in use by another evaluation (pid ${child.pid}`);

    try {
      child.kill('SIGINT');
      await said('stopping after the runs in flight');
      child.kill('SIGINT');
      expect(await closed).toBe(130);
      expect(existsSync(join(out, LOCK_FILE))).toBe(false);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }, 60_000);
});

describe('--resume refuses a different configuration', () => {
  const setup = async (extra: string[] = []) => {
    const dir = tempDir();
    writeFileSync(join(dir, 'email.yaml'), EMAIL_YAML);
    const out = tempDir();
    const base = ['--planner=gated', `--scenario=${join(dir, 'email.yaml')}`, `--out=${out}`];
    expect((await runCli(main, [...base, ...extra], dir)).code).toBe(0);
    return { dir, out, base };
  };

  it('accepts the same configuration', async () => {
    const { dir, base } = await setup(['--guard']);
    expect((await runCli(main, [...base, '--guard', '--resume'], dir)).code).toBe(0);
  }, 30_000);

  it.each([
    [['--guard'], 'the guard was off, now on'],
    [['--transport=inprocess'], '--transport msw, now inprocess'],
    [['--max-turns=7'], '--max-turns 50, now 7'],
    [['--planner-opt=depth=2'], 'planner options differ (depth)'],
    [['--seed=9'], 'seed 1, now 9'],
  ])(
    'refuses %s',
    async (extra, message) => {
      const { dir, base, out } = await setup();
      const r = await runCli(main, [...base, ...extra, '--resume'], dir);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`--resume: ${out} holds a different evaluation: ${message}`);
      expect(r.stderr).toContain('hint: resume with the options and scenarios of the interrupted evaluation');
    },
    30_000,
  );

  it('refuses a different guard policy, naming the class', async () => {
    const policies = tempDir();
    writeFileSync(join(policies, 'a.yaml'), 'irreversible: gated\n');
    writeFileSync(join(policies, 'b.yaml'), 'irreversible: approval\n');
    const { dir, base } = await setup([`--guard-policy=${join(policies, 'a.yaml')}`]);
    const r = await runCli(main, [...base, `--guard-policy=${join(policies, 'b.yaml')}`, '--resume'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the guard policy differs (irreversible: gated → approval)');
  }, 30_000);

  it('refuses a scenario whose content changed, and a different scenario set', async () => {
    const { dir, base } = await setup();
    writeFileSync(
      join(dir, 'email.yaml'),
      EMAIL_YAML.replace('title: Email a customer', 'title: Email a customer, changed'),
    );
    const changed = await runCli(main, [...base, '--resume'], dir);
    expect(changed.code).toBe(2);
    expect(changed.stderr).toContain('scenario content changed: email-tiny');

    writeFileSync(join(dir, 'email.yaml'), EMAIL_YAML);
    const more = await runCli(main, [...base, '--scenario=invoice-and-notify', '--resume'], dir);
    expect(more.code).toBe(2);
    expect(more.stderr).toContain('scenarios added: invoice-and-notify');
  }, 30_000);
});

describe('no symbolic link inside --out is followed', () => {
  const GATED = ['--planner=gated', '--scenario=invoice-and-notify', '--seed=4'];

  it('a link planted at a record path is refused (exit 2, naming it); its target is untouched', async () => {
    const out = tempDir();
    const target = join(tempDir(), 'victim.txt');
    writeFileSync(target, 'precious\n');
    mkdirSync(join(out, 'runs', 'invoice-and-notify'), { recursive: true });
    symlinkSync(target, join(out, 'runs', 'invoice-and-notify', 'gated-t1.jsonl'));
    const r = await runCli(main, [...GATED, `--out=${out}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`cannot write ${join(out, 'runs', 'invoice-and-notify', 'gated-t1.jsonl')}`);
    expect(r.stderr).toContain('symbolic link');
    expect(r.stderr).not.toContain('internal error');
    expect(readFileSync(target, 'utf8')).toBe('precious\n');
  });

  it('a link in place of a directory on the way to a record is refused; nothing is written where it points', async () => {
    const out = tempDir();
    const elsewhere = tempDir();
    symlinkSync(elsewhere, join(out, 'runs'));
    const r = await runCli(main, [...GATED, `--out=${out}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(out, 'runs')} is a symbolic link`);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('a link at results.json, or at a report, is refused; its target is untouched', async () => {
    for (const name of ['results.json', 'report.md']) {
      const out = tempDir();
      const target = join(tempDir(), 'victim.txt');
      writeFileSync(target, 'precious\n');
      symlinkSync(target, join(out, name));
      const r = await runCli(main, [...GATED, '--reporter=markdown', `--out=${out}`]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`cannot write ${join(out, name)}`);
      expect(readFileSync(target, 'utf8')).toBe('precious\n');
      expect(lstatSync(join(out, name)).isSymbolicLink()).toBe(true);
    }
  });

  it('an --out that is itself a link to a directory works', async () => {
    const real = tempDir();
    const link = join(tempDir(), 'latest');
    symlinkSync(real, link);
    const r = await runCli(main, [...GATED, '--reporter=markdown', `--out=${link}`]);
    expect(r.code).toBe(0);
    expect(read(real).runs).toHaveLength(1);
    expect(existsSync(join(real, 'runs', 'invoice-and-notify', 'gated-t1.jsonl'))).toBe(true);
    expect(existsSync(join(real, 'report.md'))).toBe(true);
  });
});
