/**
 * A planner file's faults end only its own run, and the evaluation exits when it is done: a throw
 * from a timer, an unhandled rejection, an interval left running, a synchronous endless loop. Runs
 * the real CLI (the compiled build, test/helpers/compiled.ts) in a child process, since whether
 * that process exits is part of the point, and waits for its 'exit' event (the test timeouts are
 * only a safety net). Also: a global WebSocket from a planner file is refused and counted, and one
 * from a planner object (the API's, in the evaluation's process) is closed and counted by MSW;
 * Node 20 has the WebSocket global only behind a flag, so both run in processes started with it.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.ts';
import { cli, REPO } from '../helpers/compiled.ts';
import { readResults, timeless } from '../helpers/results.ts';

function evalCli(args: string[], nodeArgs: string[] = []): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...nodeArgs, cli('eval'), ...args], {
      cwd: process.cwd(),
      env: { ...process.env, NO_COLOR: '1' },
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    child.stdout.resume();
    // 'exit', not 'close': a process kept alive by a planner's leftovers would never get here.
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

const PLANNERS: Record<string, string> = {
  'timer-throw.mjs': `export default { name: 'timer-throw', next() { setTimeout(() => { throw new Error('boom from a timer'); }, 1); return new Promise(() => {}); } };\n`,
  'unhandled.mjs': `export default { name: 'unhandled', next() { Promise.reject(new Error('nobody catches this')); return new Promise(() => {}); } };\n`,
  'interval.mjs': `setInterval(() => {}, 1000);\nexport default { name: 'interval', next() { setInterval(() => {}, 10); return { type: 'finish' }; } };\n`,
  'loop.mjs': `export default { name: 'loop', next(view) { if (view.turn === 1) for (;;) {} return { type: 'finish' }; } };\n`,
};

let dir = '';
let serial: { code: number | null; stderr: string };
let serialOut = '';

beforeAll(async () => {
  dir = tempDir('oneway-faults-');
  for (const [f, text] of Object.entries(PLANNERS)) writeFileSync(join(dir, f), text);
  serialOut = tempDir();
  serial = await evalCli([
    `--planner=${Object.keys(PLANNERS)
      .map((f) => join(dir, f))
      .join(',')},gated`,
    '--scenario=invoice-and-notify,purge-inactive-accounts',
    '--decision-timeout=3000',
    `--out=${serialOut}`,
  ]);
}, 180_000);

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

  it('a planner stuck in a synchronous endless loop is stopped at the decision timeout; the other runs complete', () => {
    expect(run('loop')).toMatchObject({ end_reason: 'decision_timeout' });
    expect(run('loop', 'purge-inactive-accounts')).toMatchObject({ end_reason: 'decision_timeout' });
    expect(run('gated', 'purge-inactive-accounts')).toMatchObject({ end_reason: 'finish', completed: true });
  });

  it('gives the same results over --workers=2 as in one thread', async () => {
    const out = tempDir();
    const r = await evalCli([
      `--planner=${Object.keys(PLANNERS)
        .map((f) => join(dir, f))
        .join(',')},gated`,
      '--scenario=invoice-and-notify,purge-inactive-accounts',
      '--decision-timeout=3000',
      '--workers=2',
      `--out=${out}`,
    ]);
    expect(r.code).toBe(0);
    expect(timeless(readResults(out))).toEqual(timeless(readResults(serialOut)));
  }, 180_000);
});

describe('a global WebSocket from a planner file', () => {
  let canary: Server;
  let hits = 0;
  beforeAll(async () => {
    canary = createServer((s) => {
      hits++;
      s.destroy();
    });
    await new Promise<void>((r) => canary.listen(0, '127.0.0.1', r));
  });
  afterAll(() => new Promise<void>((r) => canary.close(() => r())));

  it('is refused and counted as a sandbox escape on its run', async () => {
    const port = (canary.address() as AddressInfo).port;
    writeFileSync(
      join(dir, 'ws.mjs'),
      `export default { name: 'ws', async next(view) {
  if (view.turn > 1) return { type: 'finish' };
  const got = await new Promise((r) => { const ws = new WebSocket('ws://127.0.0.1:${port}/'); ws.onopen = () => r('answered'); ws.onerror = () => r('failed'); });
  return { type: 'call', call: { tool: 'verify_recipient', args: { email: got + '@acme.example' } } };
} };
`,
    );
    const out = tempDir();
    // The WebSocket global: Node 22 has it; Node 20 behind a flag.
    const r = await evalCli(
      [`--planner=${join(dir, 'ws.mjs')}`, '--scenario=invoice-and-notify', `--out=${out}`],
      ['--experimental-websocket'],
    );
    expect(r.code).toBe(0);
    const result = readResults(out).runs[0];
    expect(result?.error).toBeNull();
    expect(result?.sandbox_escapes).toBe(1);
    const record = readFileSync(join(out, result!.record), 'utf8');
    expect(record).toContain('failed@acme.example');
    expect(record).toContain(`"url":"tcp://127.0.0.1:${port}"`);
    expect(hits).toBe(0);
  }, 120_000);

  it('is closed and counted by MSW when the planner runs in process', async () => {
    const port = (canary.address() as AddressInfo).port;
    const script = join(dir, 'ws-in-process.mjs');
    const out = tempDir();
    // A planner object given to evaluate() (the compiled package's entry point) runs in this process, over MSW.
    writeFileSync(
      script,
      `import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { evaluate } from ${JSON.stringify(join(REPO, 'dist/harness/index.js'))};
const out = ${JSON.stringify(out)};
const results = await evaluate({ planners: [{ name: 'ws', async next(v) {
  if (v.turn === 1) await new Promise((res) => { const ws = new WebSocket('ws://127.0.0.1:${port}/'); ws.onclose = res; ws.onerror = res; });
  return { type: 'finish' };
} }], scenarios: ['invoice-and-notify'], transport: 'msw', out });
const events = readFileSync(join(out, results.runs[0].record), 'utf8').trim().split('\\n').map((l) => JSON.parse(l));
process.stdout.write(JSON.stringify(events.filter((e) => e.type === 'escape')));
`,
    );
    const { printed, stderr } = await new Promise<{ printed: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ['--experimental-websocket', script], { cwd: REPO });
      let text = '';
      let err = '';
      child.stdout.on('data', (d) => (text += String(d)));
      child.stderr.on('data', (d) => (err += String(d)));
      child.on('exit', () => resolve({ printed: text, stderr: err }));
    });
    expect(printed, stderr).not.toBe('');
    expect(JSON.parse(printed)).toMatchObject([{ method: 'WEBSOCKET', url: `ws://127.0.0.1:${port}/` }]);
    expect(readResults(out).runs[0]).toMatchObject({ planner: 'ws', sandbox_escapes: 1 });
    expect(hits).toBe(0);
  }, 120_000);
});
