import { spawn } from 'node:child_process';
import type { EventEmitter } from 'node:events';
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Scenario } from '../../harness/core/scenario.ts';
import type { Results, RunResult } from '../../harness/engine/results/types.ts';
import { memorySink } from '../../harness/engine/record/writer.ts';
import type { BatchGate } from '../../harness/engine/runner/gate.ts';
import { runOne, type RunOutcome } from '../../harness/engine/runner/run.ts';
import { RunChannel } from '../../harness/features/mcp/channel.ts';
import { SessionRuns } from '../../harness/features/mcp/serve.ts';
import { createRunServer, scenarioSurface } from '../../harness/features/mcp/server.ts';
import { REPO_ROOT } from '../../harness/cli/common.ts';
import { tempDir } from '../helpers/cli.ts';
import { cli } from '../helpers/compiled.ts';
import { scenarioAt } from '../helpers/run.ts';

/** One tool of each class; `send_email` (irreversible, needs a verified recipient) is listed first. */
export const FIXTURE = resolve(REPO_ROOT, 'test/mcp/fixtures/notify.yaml');
export const EMAIL = 'bob@acme.example';

/** The scenario of FIXTURE. */
export const fixtureScenario = (): Scenario => scenarioAt(FIXTURE);

export function runOf(results: Results, planner: string, trial = 1): RunResult {
  const run = results.runs.find((r) => r.planner === planner && r.trial === trial);
  if (!run)
    throw new Error(
      `no run of ${planner} trial ${trial} in ${JSON.stringify(results.runs.map((r) => [r.planner, r.trial]))}`,
    );
  return run;
}

/** The text of a tool result's first content item. */
export function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content[0]?.text ?? '';
}

/**
 * A value some event will bring: `check()` on each event (and once now) until it returns one.
 * No timers: the test's own timeout (vitest config) is the only deadline, so a busy machine
 * makes a test slower, never wrong.
 *
 * @example
 * const r = await when(child.stdout, 'data', () => replies.find((x) => x.id === 3));
 */
export function when<T>(emitter: EventEmitter, event: string, check: () => T | undefined): Promise<T> {
  return new Promise((resolve) => {
    const test = () => {
      let v: T | undefined;
      try {
        v = check();
      } catch {
        v = undefined; // not yet (e.g. a file half written)
      }
      if (v === undefined) return false;
      emitter.off(event, test);
      resolve(v);
      return true;
    };
    if (!test()) emitter.on(event, test);
  });
}

/** A promise and its resolver, for a callback to settle (e.g. `onRunDone`). */
export function signal<T = void>(): { promise: Promise<T>; resolve(v: T): void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

export interface ServeProcess {
  url: string;
  stderr(): string;
  /** Resolves once the server's stderr matches (e.g. a run's "trial 2:" line, printed once it is recorded). */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/**
 * `oneway serve --transport=http --port=0 ...` as a child process (the compiled CLI, as `npx oneway`
 * runs it); resolves with the URL it prints. (A child, as real clients are: see the seal note in the
 * report on clients in the sealed process.)
 */
export function startServe(args: string[]): Promise<ServeProcess> {
  const child = spawn(process.execPath, [cli('serve'), '--transport=http', '--port=0', ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (d: Buffer) => {
      err += String(d);
      const url = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err)?.[1];
      if (url) {
        resolve({
          url,
          stderr: () => err,
          waitFor: (pattern) => when(child.stderr, 'data', () => pattern.exec(err) ?? undefined),
          stop: () => {
            child.kill('SIGTERM');
            return exited;
          },
        });
      }
    });
    void exited.then((code) => reject(new Error(`serve exited (${code}) before listening: ${err}`)));
  });
}

/** An MCP client (the SDK's) connected to `server` over an in-memory transport. */
async function connectClient(server: Server): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'oneway-test', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

/** In-process `serve` sessions of `scenario` (FIXTURE's by default), seed 1, writing to `outDir`. */
export function sessionRuns(scenario: Scenario = fixtureScenario(), outDir = tempDir('oneway-serve-')): SessionRuns {
  return new SessionRuns({
    scenario: { scenario, file: FIXTURE },
    outDir,
    seed: 1,
    transport: 'inprocess',
    maxTurns: 50,
    decisionTimeoutMs: 60_000,
  });
}

/** Opens a session of an in-process `serve` (SessionRuns) and connects an MCP client to it over an in-memory transport. */
export async function connectSession(runs: SessionRuns): Promise<Client> {
  return connectClient(runs.open().server);
}

export interface ChannelRunOptions {
  /** The planner's name (default `mcp`). */
  name?: string;
  /** The channel's batch window (its default when not given). */
  batchWindowMs?: number;
  runId?: string;
  scenarioFile?: string;
  maxTurns?: number;
  decisionTimeoutMs?: number;
  gate?: BatchGate;
}

/**
 * One run of `scenario`, in process, driven by a fresh channel (the session planner); when the run
 * ends, the channel answers waiting clients as the session layer does.
 */
export function startChannelRun(
  scenario: Scenario,
  opts: ChannelRunOptions = {},
): { channel: RunChannel; done: Promise<RunOutcome> } {
  const channel = new RunChannel(
    opts.name ?? 'mcp',
    opts.batchWindowMs !== undefined ? { batchWindowMs: opts.batchWindowMs } : {},
  );
  const done = runOne({
    scenario,
    scenarioFile: opts.scenarioFile ?? 'notify.yaml',
    planner: channel.handle,
    plannerContext: { options: {} },
    trial: 1,
    seed: 1,
    runId: opts.runId ?? 'test',
    sink: memorySink(),
    transport: 'inprocess',
    maxTurns: opts.maxTurns ?? 50,
    decisionTimeoutMs: opts.decisionTimeoutMs ?? 60_000, // a safety net: the test is the client, and may be slow on a busy machine
    ...(opts.gate ? { gate: opts.gate } : {}),
  }).then((o) => {
    channel.end({ end_reason: o.end_reason, error: o.error, record: 'runs/x.jsonl' });
    return o;
  });
  return { channel, done };
}

/** The same run served by the real MCP server (startChannelRun), with an MCP client connected to it in process. */
export async function channelSession(
  scenario: Scenario,
  opts: ChannelRunOptions = {},
): Promise<{ client: Client; done: Promise<RunOutcome> }> {
  const { channel, done } = startChannelRun(scenario, opts);
  const client = await connectClient(createRunServer(scenarioSurface(scenario, 50), channel));
  return { client, done };
}
