import { spawn } from 'node:child_process';
import type { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Results, RunResult } from '../../harness/engine/results/types.ts';
import { REPO_ROOT } from '../../harness/cli/common.ts';

/** One tool of each class; `send_email` (irreversible, needs a verified recipient) is listed first. */
export const FIXTURE = resolve(REPO_ROOT, 'test/mcp/fixtures/notify.yaml');
export const EMAIL = 'bob@acme.example';

export function readResults(dir: string): Results {
  return JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as Results;
}

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
 * `npm run serve -- --transport=http --port=0 ...` as a child process; resolves
 * with the URL it prints. (A child, as real clients are: see the seal note in the
 * report on clients in the sealed process.)
 */
export function startServe(args: string[]): Promise<ServeProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'harness/cli/serve.ts', '--transport=http', '--port=0', ...args],
    {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
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

/** Opens a session of an in-process `serve` (SessionRuns) and connects an MCP client to it over an in-memory transport. */
export async function connectSession(
  runs: import('../../harness/features/mcp/serve.ts').SessionRuns,
): Promise<import('@modelcontextprotocol/sdk/client/index.js').Client> {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');
  const session = runs.open();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await session.server.connect(serverSide);
  const client = new Client({ name: 'oneway-test', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}
