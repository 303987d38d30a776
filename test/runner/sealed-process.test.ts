/**
 * Sealed processes (runner/sealed-process.ts, runner/isolate.ts): the permission model's flag per
 * Node version (`--permission` where it is stable, 22.13+, 23.5+, 24; `--experimental-permission`
 * before it), when a planner's process serves another run, and that the process that loaded a
 * planner file serves its first run (one process start fewer a planner file).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { memorySink } from '../../harness/engine/record/writer.ts';
import { PlannerPool } from '../../harness/engine/runner/isolate.ts';
import { loadPlanner } from '../../harness/engine/runner/planners.ts';
import { runOne, type PlannerHandle } from '../../harness/engine/runner/run.ts';
import { permissionFlag } from '../../harness/engine/runner/sealed-process.ts';
import { tempDir } from '../helpers/cli.ts';
import { EMAIL_YAML, scenarioFrom } from '../helpers/run.ts';

describe('permissionFlag', () => {
  it.each([
    ['20.19.0', '--experimental-permission'],
    ['20.20.2', '--experimental-permission'],
    ['21.7.3', '--experimental-permission'],
    ['22.12.0', '--experimental-permission'],
    ['22.13.0', '--permission'],
    ['23.4.0', '--experimental-permission'],
    ['23.5.0', '--permission'],
    ['24.0.0', '--permission'],
    ['24.11.1', '--permission'],
  ])('Node %s: %s', (version, flag) => {
    expect(permissionFlag(version)).toBe(flag);
  });
});

/** A planner file whose module counts the runs its process served; `leftover` leaves a timer behind each run. */
function countingPlanner(dir: string, name: string, leftover: boolean): string {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(
    file,
    `let served = 0;
export default { name: '${name}', create() { served++; return { name: '${name}', next(view) {
  ${leftover ? 'if (view.turn === 1) setTimeout(() => {}, 600_000).unref();' : ''}
  return view.turn === 1 ? { type: 'call', call: { tool: 'verify_recipient', args: { email: 'run' + served + '@acme.example' } } } : { type: 'finish' };
} }; } };
`,
  );
  return file;
}

async function emailsOfRuns(
  handle: PlannerHandle,
  runs: number,
  options: Record<string, string> = {},
): Promise<{ emails: string[]; escapes: string[] }> {
  const scenario = scenarioFrom(EMAIL_YAML);
  const out: string[] = [];
  const escapes: string[] = [];
  for (let i = 1; i <= runs; i++) {
    const r = await runOne({
      scenario,
      scenarioFile: 'inline.yaml',
      planner: handle,
      plannerContext: { options },
      trial: i,
      seed: i,
      runId: `reuse/${i}`,
      sink: memorySink(),
      transport: 'inprocess',
      maxTurns: 5,
      decisionTimeoutMs: 20_000,
    });
    expect(r.error).toBeNull();
    out.push(...r.events.flatMap((e) => (e.type === 'call' ? [String(e.args.email)] : [])));
    escapes.push(...r.events.flatMap((e) => (e.type === 'escape' ? [`${e.method} ${e.url}`] : [])));
  }
  return { emails: out, escapes };
}

describe('a planner process serves the next run only if the last one left nothing pending', () => {
  it('a clean process is reused (its module state goes on); one with a timer left is replaced', async () => {
    const dir = tempDir('oneway-reuse-');
    const clean = await loadPlanner(countingPlanner(dir, 'clean', false), dir);
    expect((await emailsOfRuns(clean, 3)).emails).toEqual([
      'run1@acme.example',
      'run2@acme.example',
      'run3@acme.example',
    ]);
    const dirty = await loadPlanner(countingPlanner(dir, 'dirty', true), dir);
    expect((await emailsOfRuns(dirty, 3)).emails).toEqual([
      'run1@acme.example',
      'run1@acme.example',
      'run1@acme.example',
    ]);
  });
});

describe('a run whose planner failed to start leaves its process holding what the harness sent', () => {
  it('the runs after it on the same process see the whole view', async () => {
    const dir = tempDir('oneway-failed-create-');
    const file = join(dir, 'picky.mjs');
    // Its first run's planner throws in create; the view parts sent with that run's first request go by number after.
    writeFileSync(
      file,
      `export default { name: 'picky', create(ctx) { if (ctx.trial === 1) throw new Error('not this one');
  return { name: 'picky', next(view) {
    return view.turn === 1 ? { type: 'call', call: { tool: 'verify_recipient', args: { email: 'tools' + view.tools.length + '@acme.example' } } } : { type: 'finish' };
  } }; } };
`,
    );
    const spawned = vi.spyOn(PlannerPool.prototype, 'spawn');
    const scenario = scenarioFrom(EMAIL_YAML);
    const runs = [];
    try {
      const handle = await loadPlanner(file, dir, {});
      for (const trial of [1, 2, 3])
        runs.push(
          await runOne({
            scenario,
            scenarioFile: 'inline.yaml',
            planner: handle,
            plannerContext: { options: {} },
            trial,
            seed: trial,
            runId: `picky/${trial}`,
            sink: memorySink(),
            transport: 'inprocess',
            maxTurns: 5,
            decisionTimeoutMs: 20_000,
          }),
        );
      // One process served all three (what is tested is what it holds after the failed start): the failed
      // start and the first decision's answer come in one write, so the run ends with nothing outstanding.
      expect(spawned).toHaveBeenCalledTimes(1);
    } finally {
      spawned.mockRestore();
    }
    expect(runs[0]?.error).toContain('not this one');
    for (const r of runs.slice(1)) {
      expect(r.error).toBeNull();
      expect(r.events.flatMap((e) => (e.type === 'call' ? [e.args.email] : []))).toEqual([
        `tools${scenario.tools.length}@acme.example`,
      ]);
    }
  });
});

describe("a run's start is answered with its first decision, in one write", () => {
  it('what a planner reaches while it is created is charged to its run, not to the run its process served before', async () => {
    const dir = tempDir('oneway-held-');
    const file = join(dir, 'reach-at-create.mjs');
    // The process's answer to the create (the last run ended clean, this one is ready) is held back to go with the
    // decision; the escape made in create must go out after it, so that it is charged to this run.
    writeFileSync(
      file,
      `import net from 'node:net';
export default { name: 'reach', create(ctx) { if (ctx.trial === 2) net.connect({ host: '127.0.0.1', port: 7 }).on('error', () => {});
  return { name: 'reach', next(view) {
    return view.turn === 1 ? { type: 'call', call: { tool: 'verify_recipient', args: { email: 'run' + ctx.trial + '@acme.example' } } } : { type: 'finish' };
  } }; } };
`,
    );
    const handle = await loadPlanner(file, dir, {});
    const scenario = scenarioFrom(EMAIL_YAML);
    const escapes: string[][] = [];
    for (const trial of [1, 2, 3]) {
      const r = await runOne({
        scenario,
        scenarioFile: 'inline.yaml',
        planner: handle,
        plannerContext: { options: {} },
        trial,
        seed: trial,
        runId: `held/${trial}`,
        sink: memorySink(),
        transport: 'inprocess',
        maxTurns: 5,
        decisionTimeoutMs: 20_000,
      });
      expect(r.error).toBeNull();
      escapes.push(r.events.flatMap((e) => (e.type === 'escape' ? [`${e.method} ${e.url}`] : [])));
    }
    expect(escapes).toEqual([[], ['CONNECT tcp://127.0.0.1:7'], []]);
  });
});

describe('the process that loaded a planner file serves its first run', () => {
  afterEach(() => vi.restoreAllMocks());

  /** A planner file that reaches out at its top level (refused: an escape) and counts its module's loads in its process. */
  function reachesAtLoad(dir: string): string {
    const file = join(dir, 'top.mjs');
    writeFileSync(
      file,
      `import net from 'node:net';
net.connect({ host: '127.0.0.1', port: 7 }).on('error', () => {});
globalThis.loads = (globalThis.loads ?? 0) + 1;
export default { name: 'top', next(view) {
  return view.turn === 1 ? { type: 'call', call: { tool: 'verify_recipient', args: { email: 'loads' + globalThis.loads + '@acme.example' } } } : { type: 'finish' };
} };
`,
    );
    return file;
  }

  it('one process for loading and the first run; what its top level reached is charged to that run', async () => {
    const dir = tempDir('oneway-first-run-');
    const spawned = vi.spyOn(PlannerPool.prototype, 'spawn');
    const handle = await loadPlanner(reachesAtLoad(dir), dir, {});
    expect(spawned).toHaveBeenCalledTimes(1);
    const { emails, escapes } = await emailsOfRuns(handle, 1);
    // No second process: the module was loaded once, and its run sees that load's escape as its own.
    expect(spawned).toHaveBeenCalledTimes(1);
    expect(emails).toEqual(['loads1@acme.example']);
    expect(escapes).toEqual(['CONNECT tcp://127.0.0.1:7']);
  });

  it('a run allowed other origins (a model endpoint in its options) gets a process of its own', async () => {
    const dir = tempDir('oneway-first-run-');
    const spawned = vi.spyOn(PlannerPool.prototype, 'spawn');
    const handle = await loadPlanner(reachesAtLoad(dir), dir, {});
    const { emails, escapes } = await emailsOfRuns(handle, 1, { base_url: 'http://127.0.0.1:9/v1' });
    expect(spawned).toHaveBeenCalledTimes(2);
    expect(spawned.mock.calls[1]?.[0]).toContainEqual({ host: '127.0.0.1', port: 9 });
    expect(emails).toEqual(['loads1@acme.example']);
    expect(escapes).toEqual(['CONNECT tcp://127.0.0.1:7']);
  });

  it("loaded without the runs' options, the module runs allowed no origin, and its first run gets a process of its own", async () => {
    const dir = tempDir('oneway-first-run-');
    const spawned = vi.spyOn(PlannerPool.prototype, 'spawn');
    const handle = await loadPlanner(reachesAtLoad(dir), dir);
    expect(spawned.mock.calls[0]?.[0]).toEqual([]);
    const { escapes } = await emailsOfRuns(handle, 1);
    expect(spawned).toHaveBeenCalledTimes(2);
    expect(escapes).toEqual(['CONNECT tcp://127.0.0.1:7']);
  });
});
