import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Results, RunResult } from '../../harness/results/types.ts';
import { REPO_ROOT } from '../../harness/cli/common.ts';

/** One tool of each class; `send_email` (irreversible, needs a verified recipient) is listed first. */
export const FIXTURE = resolve(REPO_ROOT, 'test/mcp/fixtures/notify.yaml');
export const EMAIL = 'bob@acme.example';

export function readResults(dir: string): Results {
  return JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as Results;
}

export function runOf(results: Results, planner: string, trial = 1): RunResult {
  const run = results.runs.find((r) => r.planner === planner && r.trial === trial);
  if (!run) throw new Error(`no run of ${planner} trial ${trial} in ${JSON.stringify(results.runs.map((r) => [r.planner, r.trial]))}`);
  return run;
}

/** The text of a tool result's first content item. */
export function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content[0]?.text ?? '';
}

/** Polls until `f` returns a value (results.json is rewritten as runs end). */
export async function eventually<T>(f: () => T | undefined, ms = 5000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      const v = f();
      if (v !== undefined) return v;
    } catch {
      // not yet
    }
    if (Date.now() > until) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export interface ServeProcess {
  url: string;
  stderr(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/**
 * `npm run serve -- --transport=http --port=0 ...` as a child process; resolves
 * with the URL it prints. (A child, as real clients are: see the seal note in the
 * report on clients in the sealed process.)
 */
export function startServe(args: string[]): Promise<ServeProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'harness/cli/serve.ts', '--transport=http', '--port=0', ...args], {
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
