/**
 * A planner file's faults end only its own run, and the evaluation exits when it is done: a throw
 * from a timer, an unhandled rejection, an interval left running, a synchronous endless loop. Runs
 * the real CLI (the compiled build, test/helpers/compiled.ts) in a child process, since whether
 * that process exits is part of the point, and waits for its 'exit' event (the test timeouts are
 * only a safety net). The endless loop is stuck on one scenario only: its other run shows the next
 * run gets a process that answers. Also: a global WebSocket from a planner file is refused and
 * counted, and one from a planner object (the API's, in the evaluation's process) is closed and
 * counted by MSW; Node 20 has the WebSocket global only behind a flag, so both planners run in one
 * evaluation (evaluate() of the compiled package) in a process started with it. The three processes
 * (the faults in one thread, over --workers=2, the WebSockets) run side by side, once for the file.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.ts';
import { REPO, runCompiled, runNode } from '../helpers/compiled.ts';
import { readResults, timeless } from '../helpers/results.ts';

// 'exit', not 'close': a process kept alive by a planner's leftovers would never get there.
const evalCli = (args: string[]) => runCompiled('eval', args, { endOn: 'exit' });

const PLANNERS: Record<string, string> = {
  'timer-throw.mjs': `export default { name: 'timer-throw', next() { setTimeout(() => { throw new Error('boom from a timer'); }, 1); return new Promise(() => {}); } };\n`,
  'unhandled.mjs': `export default { name: 'unhandled', next() { Promise.reject(new Error('nobody catches this')); return new Promise(() => {}); } };\n`,
  'interval.mjs': `setInterval(() => {}, 1000);\nexport default { name: 'interval', next() { setInterval(() => {}, 10); return { type: 'finish' }; } };\n`,
  // Stuck on one scenario only, in a synchronous loop that never returns nor lets its event loop turn
  // (blocked in Atomics.wait, where a busy loop would spin a core to the decision timeout for nothing);
  // its run on the other scenario answers only if that run got a process that is not the stuck one.
  'loop.mjs': `const blocked = new Int32Array(new SharedArrayBuffer(4));
export default { name: 'loop', next(view) { if (view.turn === 1 && view.scenario.id === 'invoice-and-notify') for (;;) Atomics.wait(blocked, 0, 0); return { type: 'finish' }; } };\n`,
};

let dir = '';
let serial: { code: number | null; stderr: string };
let serialOut = '';
let threaded: { code: number | null; stderr: string };
let threadedOut = '';

// A canary no WebSocket may reach (the last describe).
let canary: Server;
let hits = 0;
let port = 0;
let wsOut = '';
let wsEval: { printed: string; stderr: string };

/**
 * One evaluation, in a process started with Node 20's flag, of a planner file (its own sealed
 * process) and a planner object (the API's, run in the evaluation's process over MSW), each opening
 * a WebSocket to the canary.
 */
function evaluateWebSockets(): Promise<{ printed: string; stderr: string }> {
  const file = join(dir, 'ws.mjs');
  writeFileSync(
    file,
    `export default { name: 'ws-file', async next(view) {
  if (view.turn > 1) return { type: 'finish' };
  const got = await new Promise((r) => { const ws = new WebSocket('ws://127.0.0.1:${port}/'); ws.onopen = () => r('answered'); ws.onerror = () => r('failed'); });
  return { type: 'call', call: { tool: 'verify_recipient', args: { email: got + '@acme.example' } } };
} };
`,
  );
  const script = join(dir, 'ws-evaluate.mjs');
  wsOut = tempDir();
  // evaluate() from the compiled package's entry point.
  writeFileSync(
    script,
    `import { evaluate } from ${JSON.stringify(join(REPO, 'dist/harness/index.js'))};
await evaluate({ planners: [${JSON.stringify(file)}, { name: 'ws-in-process', async next(v) {
  if (v.turn === 1) await new Promise((res) => { const ws = new WebSocket('ws://127.0.0.1:${port}/'); ws.onclose = res; ws.onerror = res; });
  return { type: 'finish' };
} }], scenarios: ['invoice-and-notify'], transport: 'msw', out: ${JSON.stringify(wsOut)} });
process.stdout.write('done');
`,
  );
  // The WebSocket global: Node 22 has it; Node 20 behind a flag.
  return runNode(['--experimental-websocket', script], { cwd: REPO, endOn: 'exit' }).then((r) => ({
    printed: r.stdout,
    stderr: r.stderr,
  }));
}

// The same evaluation in one thread and over --workers=2, and the WebSocket one, side by side (the
// first two each wait out the stuck planner's decision timeout).
beforeAll(async () => {
  dir = tempDir('oneway-faults-');
  for (const [f, text] of Object.entries(PLANNERS)) writeFileSync(join(dir, f), text);
  canary = createServer((s) => {
    hits++;
    s.destroy();
  });
  await new Promise<void>((r) => canary.listen(0, '127.0.0.1', r));
  port = (canary.address() as AddressInfo).port;
  const args = [
    `--planner=${Object.keys(PLANNERS)
      .map((f) => join(dir, f))
      .join(',')},gated`,
    '--scenario=invoice-and-notify,purge-inactive-accounts',
    '--decision-timeout=3000',
  ];
  serialOut = tempDir();
  threadedOut = tempDir();
  [serial, threaded, wsEval] = await Promise.all([
    evalCli([...args, `--out=${serialOut}`]),
    evalCli([...args, '--workers=2', `--out=${threadedOut}`]),
    evaluateWebSockets(),
  ]);
}, 180_000);
afterAll(() => new Promise<void>((r) => canary.close(() => r())));

const run = (planner: string, scenario = 'invoice-and-notify') =>
  readResults(serialOut).runs.find((r) => r.planner === planner && r.scenario === scenario);

describe('planner faults end only their own run', () => {
  it('a throw from a planner timer ends that run with planner_error; the others complete, results.json is written, exit 0', () => {
    expect(serial.code).toBe(0);
    expect(existsSync(join(serialOut, 'results.json'))).toBe(true);
    expect(run('timer-throw')).toMatchObject({ end_reason: 'planner_error' });
    expect(run('timer-throw')?.error).toContain('boom from a timer');
    expect(run('unhandled')).toMatchObject({ end_reason: 'planner_error' });
    expect(run('unhandled')?.error).toContain('nobody catches this');
    expect(run('gated')).toMatchObject({ end_reason: 'finish', error: null, completed: true });
    expect(readResults(serialOut).runs).toHaveLength(10);
  });

  it('a planner that leaves intervals running does not keep the evaluation alive', () => {
    // The CLI exited (the 'exit' event arrived) with the interval planner's runs finished.
    expect(serial.code).toBe(0);
    expect(run('interval')).toMatchObject({ end_reason: 'finish', error: null });
  });

  it('a planner stuck in a synchronous endless loop is stopped at the decision timeout; its next run and the others go on', () => {
    expect(run('loop')).toMatchObject({ end_reason: 'decision_timeout' });
    // The next run of the same planner file decides (it is stuck on invoice-and-notify only): a process
    // other than the stuck one answered.
    expect(run('loop', 'purge-inactive-accounts')).toMatchObject({ end_reason: 'finish', error: null });
    expect(run('gated', 'purge-inactive-accounts')).toMatchObject({ end_reason: 'finish', completed: true });
  });

  it('gives the same results over --workers=2 as in one thread', () => {
    expect(threaded.code, threaded.stderr).toBe(0);
    expect(timeless(readResults(threadedOut))).toEqual(timeless(readResults(serialOut)));
  });
});

describe('a global WebSocket from a planner file', () => {
  const escapesOf = (planner: string) => {
    const run = readResults(wsOut).runs.find((r) => r.planner === planner);
    const record = run ? readFileSync(join(wsOut, run.record), 'utf8') : '';
    const events = record
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; method?: string; url?: string });
    return { run, record, escapes: events.filter((e) => e.type === 'escape') };
  };

  it('is refused and counted as a sandbox escape on its run', () => {
    expect(wsEval.printed, wsEval.stderr).toBe('done');
    const { run, record } = escapesOf('ws-file');
    expect(run?.error).toBeNull();
    expect(run?.sandbox_escapes).toBe(1);
    expect(record).toContain('failed@acme.example');
    expect(record).toContain(`"url":"tcp://127.0.0.1:${port}"`);
    expect(hits).toBe(0);
  });

  it('is closed and counted by MSW when the planner runs in process', () => {
    expect(wsEval.printed, wsEval.stderr).toBe('done');
    const { run, escapes } = escapesOf('ws-in-process');
    expect(escapes).toMatchObject([{ method: 'WEBSOCKET', url: `ws://127.0.0.1:${port}/` }]);
    expect(run).toMatchObject({ sandbox_escapes: 1 });
    expect(hits).toBe(0);
  });
});
