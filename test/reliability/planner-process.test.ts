/**
 * A planner file runs in a sealed process of its own (runner/sealed-process.ts): what it does there
 * ends, at worst, its own run, and every reach outside is refused and counted on that run. Each
 * attack of issue 30 is a planner file evaluated with the real CLI in a child process (the compiled
 * build, test/helpers/compiled.ts), next to built-in planners, against a loopback canary that must
 * receive nothing. The attacks share evaluations, and each test reads its own runs from one (that
 * the other runs beside it are whole is part of the point): most share one on one scenario; those on
 * the evaluation's process (signals) and on a planner's channel share one on two scenarios, so each
 * attacker runs again after the process it ended; fuzz gets its own. The tests wait for the CLI's
 * 'exit' event (their timeouts are only a safety net).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Results } from '../../harness/engine/results/types.ts';
import { tempDir } from '../helpers/cli.ts';
import { runCompiled } from '../helpers/compiled.ts';
import { readResults } from '../helpers/results.ts';

const cli = (command: 'eval' | 'fuzz', args: string[]) => runCompiled(command, args, { endOn: 'exit' });

let canary: Server;
let hits = 0;
let port = 0;
let dir = '';

beforeAll(async () => {
  canary = createServer((s) => {
    hits++;
    s.destroy();
  });
  await new Promise<void>((r) => canary.listen(0, '127.0.0.1', r));
  port = (canary.address() as AddressInfo).port;
  dir = tempDir('oneway-attacks-');
});
afterAll(() => new Promise<void>((r) => canary.close(() => r())));

/**
 * A planner file: `top` at module top, `attempt` (an async function body that resolves to
 * 'answered' or 'failed') on turn 1, whose outcome it reports in the one call it makes.
 */
function attackFile(name: string, top: string, attempt: string): string {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(
    file,
    `${top}
async function attempt() { ${attempt} }
export default {
  name: '${name}',
  async next(view) {
    if (view.turn === 1) {
      const got = await attempt();
      return { type: 'call', call: { tool: 'verify_recipient', args: { email: got + '@acme.example' } } };
    }
    return { type: 'finish' };
  },
};
`,
  );
  return file;
}

const runOf = (results: Results, planner: string) => results.runs.find((r) => r.planner === planner);
const recordOf = (out: string, results: Results, planner: string) => {
  const run = runOf(results, planner);
  return run ? readFileSync(join(out, run.record), 'utf8') : '';
};

/** The one evaluation most attacks share: each planner file next to the others and gated. */
let out = '';
let r: Awaited<ReturnType<typeof cli>>;
let results: Results;
const planted = () => join(dir, 'planted.txt');

beforeAll(async () => {
  const files = [
    attackFile(
      'inspector',
      "import { Session } from 'node:inspector';",
      // In a worker thread, connectToMainThread reached the evaluation's own thread.
      `const s = new Session(); try { s.connectToMainThread(); } catch { try { s.connect(); } catch { return 'failed'; } }
       s.post('Runtime.evaluate', { expression: 'process.exitCode = 0' }); return 'answered';`,
    ),
    attackFile(
      'loader-hooks',
      "import { register } from 'node:module';",
      // Loader hooks run in a thread of their own.
      `const hooks = "fetch('http://127.0.0.1:${port}/hooks').catch(() => {}); export async function resolve(s, c, n) { return n(s, c); }";
       try { register('data:text/javascript,' + encodeURIComponent(hooks)); } catch { return 'failed'; }
       await import('data:text/javascript,export default 1'); return 'answered';`,
    ),
    attackFile(
      'hides-reports',
      "import { MessagePort } from 'node:worker_threads'; import fs from 'node:fs';\nMessagePort.prototype.postMessage = function () {}; fs.writeSync = () => 0;",
      `try { await fetch('http://127.0.0.1:${port}/hidden'); return 'answered'; } catch { return 'failed'; }`,
    ),
    attackFile(
      'child-process',
      "import { execFileSync } from 'node:child_process';",
      `try { execFileSync(process.execPath, ['-e', "fetch('http://127.0.0.1:${port}/child').catch(() => {})"]); return 'answered'; } catch { return 'failed'; }`,
    ),
    attackFile(
      'addon',
      '',
      `try { process.dlopen({ exports: {} }, ${JSON.stringify(join(dir, 'native.node'))}); return 'answered'; } catch (e) { return 'failed'; }`,
    ),
    attackFile(
      'writes-scratch',
      "import { readFileSync, writeFileSync } from 'node:fs'; import { tmpdir } from 'node:os'; import { join } from 'node:path';",
      // Its own temporary directory is the one place it may write.
      `writeFileSync(join(tmpdir(), 'note.txt'), 'kept'); return readFileSync(join(tmpdir(), 'note.txt'), 'utf8') === 'kept' ? 'answered' : 'failed';`,
    ),
    attackFile(
      'writes-project',
      "import { writeFileSync } from 'node:fs';",
      `try { writeFileSync(${JSON.stringify(planted())}, 'planted'); return 'answered'; } catch { return 'failed'; }`,
    ),
    attackFile(
      'replaces-channel',
      "import fs from 'node:fs'; import os from 'node:os'; import { join } from 'node:path';",
      `fs.closeSync(4); fs.openSync(join(os.tmpdir(), 'decoy'), 'w');
       try { await fetch('http://127.0.0.1:${port}/after-close'); return 'answered'; } catch { return 'failed'; }`,
    ),
    attackFile(
      'floods',
      "import net from 'node:net';",
      `for (let i = 0; i < 20000; i++) net.connect({ host: '127.0.0.1', port: ${port} }).on('error', () => {}); return 'answered';`,
    ),
    attackFile(
      'allocates',
      '',
      `const kept = []; for (let i = 0; i < 4; i++) kept.push(Buffer.allocUnsafe(2 ** 30)); return 'answered';`,
    ),
  ];
  writeFileSync(join(dir, 'native.node'), 'not an addon');
  out = tempDir();
  r = await cli('eval', [`--planner=${files.join(',')},gated`, '--scenario=invoice-and-notify', `--out=${out}`]);
  // Each test below says what is missing if the evaluation wrote nothing.
  results = existsSync(join(out, 'results.json')) ? readResults(out) : ({ runs: [] } as unknown as Results);
}, 240_000);

describe('reaches a planner file makes from its process are refused and counted on its run', () => {
  it('the evaluation completes with every run', () => {
    expect(r.code).toBe(0);
    expect(results.runs).toHaveLength(11);
    expect(runOf(results, 'gated')).toMatchObject({ end_reason: 'finish', completed: true, sandbox_escapes: 0 });
  });

  it.each([
    ['inspector', /^INSPECTOR inspector:Session\.connect/],
    ['loader-hooks', /^LOADER module:register/],
    ['child-process', /^PROCESS child_process:execFileSync/],
    ['addon', /^ADDON process:dlopen/],
    ['writes-project', /^FS fs:writeFileSync .*planted\.txt$/],
  ])('%s: refused, counted on its run, and the run goes on', (planner, shape) => {
    const run = runOf(results, planner);
    expect(run).toMatchObject({ end_reason: 'finish', error: null, sandbox_escapes: 1 });
    const record = recordOf(out, results, planner);
    expect(record).toContain('failed@acme.example');
    const escapes = record
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; method?: string; url?: string })
      .filter((e) => e.type === 'escape');
    expect(escapes).toHaveLength(1);
    expect(`${escapes[0]?.method} ${escapes[0]?.url}`).toMatch(shape);
  });

  it('a planner writes and reads its own temporary directory (os.tmpdir()) freely: no escape', () => {
    expect(runOf(results, 'writes-scratch')).toMatchObject({ end_reason: 'finish', error: null, sandbox_escapes: 0 });
    expect(recordOf(out, results, 'writes-scratch')).toContain('answered@acme.example');
  });

  it('a planner that patches what reported escapes (postMessage, fs.writeSync) still has its escape counted', () => {
    expect(runOf(results, 'hides-reports')).toMatchObject({ end_reason: 'finish', sandbox_escapes: 1 });
    expect(recordOf(out, results, 'hides-reports')).toContain(`"url":"tcp://127.0.0.1:${port}"`);
  });

  it('nothing reached the canary, and nothing was written outside the planner process scratch directory', () => {
    expect(hits).toBe(0);
    expect(existsSync(planted())).toBe(false);
  });
});

describe('what a planner file does to its own process ends only its run', () => {
  // One evaluation of the attacks on the evaluation's process (signals) and on a planner's channel, on two
  // scenarios: each attacker's second run has a process of its own again.
  let signalledOut = '';
  let signalledEval: Awaited<ReturnType<typeof cli>>;
  let signalled: Results;

  beforeAll(async () => {
    const postsNull = join(dir, 'posts-null.mjs');
    writeFileSync(
      postsNull,
      `import { parentPort } from 'node:worker_threads'; import { writeSync } from 'node:fs';
export default { name: 'posts-null', next() {
  // A thread posted to its host; a process writes to its channel.
  if (parentPort) parentPort.postMessage(null); else writeSync(4, 'null\\n');
  return new Promise(() => {});
} };
`,
    );
    const harness = attackFile(
      'sigint-harness',
      "import { isMainThread } from 'node:worker_threads';",
      // The evaluation: its own process in a thread, its parent in a process.
      `try { process.kill(isMainThread ? process.ppid : process.pid, 'SIGINT'); return 'answered'; } catch { return 'failed'; }`,
    );
    const self = attackFile('sigint-self', '', `process.kill(process.pid, 'SIGINT'); return 'answered';`);
    const kill = attackFile('sigkill-self', '', `process.kill(process.pid, 'SIGKILL'); return 'answered';`);
    signalledOut = tempDir();
    signalledEval = await cli('eval', [
      `--planner=${postsNull},${harness},${self},${kill},eager,gated`,
      '--scenario=invoice-and-notify,purge-inactive-accounts',
      '--fail-on=eager:premature_irreversible_rate>0',
      `--out=${signalledOut}`,
    ]);
    // Each test below says what is missing if the evaluation wrote nothing.
    signalled = existsSync(join(signalledOut, 'results.json'))
      ? readResults(signalledOut)
      : ({ runs: [] } as unknown as Results);
  }, 240_000);

  it('a malformed message (null) on its channel is a planner error and an escape; every other run is kept', () => {
    expect(signalled.runs).toHaveLength(12);
    const runs = signalled.runs.filter((x) => x.planner === 'posts-null');
    expect(runs).toHaveLength(2);
    for (const run of runs) {
      expect(run).toMatchObject({ end_reason: 'planner_error', sandbox_escapes: 1 });
      expect(run.error).toContain('broke its channel');
    }
    expect(signalled.runs.filter((x) => x.planner === 'gated').every((x) => x.completed)).toBe(true);
  });

  it('SIGINT to the evaluation or to itself, and SIGKILL to itself, neither stop the evaluation nor pass a failing gate', () => {
    // eager fails the gate: exit 1, never 0; nothing was interrupted.
    expect(signalledEval.signal).toBeNull();
    expect(signalledEval.code).toBe(1);
    expect(signalled.interrupted).toBe(false);
    expect(signalled.runs).toHaveLength(12);
    expect(signalled.gates.failures.length).toBeGreaterThan(0);
    expect(runOf(signalled, 'sigint-harness')).toMatchObject({ end_reason: 'finish', sandbox_escapes: 1 });
    expect(recordOf(signalledOut, signalled, 'sigint-harness')).toMatch(/"method":"SIGNAL","url":"pid:\d+"/);
    for (const planner of ['sigint-self', 'sigkill-self'])
      for (const run of signalled.runs.filter((x) => x.planner === planner))
        expect(run).toMatchObject({ end_reason: 'planner_error' });
  });

  it('closing its channel and putting a file in its place is a planner error and an escape', () => {
    expect(runOf(results, 'replaces-channel')).toMatchObject({ end_reason: 'planner_error', sandbox_escapes: 1 });
    expect(runOf(results, 'gated')).toMatchObject({ completed: true });
    expect(hits).toBe(0);
  });

  it('a flood of escapes (20,000 in one decision) ends its run as a planner error, every escape up to the cap counted', () => {
    expect(runOf(results, 'floods')).toMatchObject({ end_reason: 'planner_error' });
    expect(runOf(results, 'floods')?.error).toContain('more than 10000 escapes');
    expect(runOf(results, 'floods')?.sandbox_escapes).toBeGreaterThan(10_000);
    expect(runOf(results, 'gated')).toMatchObject({ completed: true });
    expect(hits).toBe(0);
  });

  it('allocating 4 GiB outside the heap fails in its own process; the harness and the other runs go on', () => {
    expect(r.code).toBe(0);
    expect(runOf(results, 'allocates')).toMatchObject({ end_reason: 'planner_error' });
    expect(runOf(results, 'allocates')?.error).toContain('allocation failed');
    expect(runOf(results, 'gated')).toMatchObject({ completed: true });
  });

  it('fuzz with a planner file that calls process.exit(0) writes fuzz.json and fails (planner-ran), never a silent pass', async () => {
    const file = join(dir, 'exits.mjs');
    writeFileSync(file, `export default { name: 'exits', next() { process.exit(0); } };\n`);
    const out = tempDir();
    const r = await cli('fuzz', [`--planner=${file}`, '--scenario=invoice-and-notify', '--runs=2', `--out=${out}`]);
    expect(existsSync(join(out, 'fuzz.json'))).toBe(true);
    const report = JSON.parse(readFileSync(join(out, 'fuzz.json'), 'utf8')) as {
      plans: number;
      failures: { property: string; message: string; fault: { party: string } }[];
    };
    expect(report.plans).toBe(2);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(1);
    expect(report.failures.map((f) => [f.property, f.fault.party])).toEqual([['planner-ran', 'planner']]);
    expect(report.failures[0]?.message).toContain('the run ended in planner_error');
  }, 180_000);

  it('a fuzz property module that exits or reaches out fails its check, and fuzz.json is written', async () => {
    const file = join(dir, 'props.mjs');
    writeFileSync(
      file,
      `export default [
  { name: 'exits', check() { process.exit(0); } },
  { name: 'phones-home', async check() { await fetch('http://127.0.0.1:${port}/property').catch(() => {}); return true; } },
];
`,
    );
    const out = tempDir();
    // --no-shrink: shrinking 'exits' (which fails on every plan) checks it again ~30 times, each in a new
    // process; what is proven here is that each check fails and says why, not how far a plan shrinks.
    const r = await cli('fuzz', [
      `--property=${file}`,
      '--scenario=invoice-and-notify',
      '--runs=3',
      '--no-shrink',
      `--out=${out}`,
    ]);
    expect(r.code).toBe(1);
    const report = JSON.parse(readFileSync(join(out, 'fuzz.json'), 'utf8')) as {
      failures: { property: string; message: string }[];
    };
    const failed = Object.fromEntries(report.failures.map((f) => [f.property, f.message]));
    expect(failed.exits).toContain('the process exited (code 0)');
    expect(failed['phones-home']).toContain(`reached outside the sandbox: CONNECT tcp://127.0.0.1:${port}`);
    expect(hits).toBe(0);
  }, 180_000);
});
