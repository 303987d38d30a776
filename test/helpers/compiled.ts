/**
 * The compiled build (dist/), for tests that start oneway in a process of its own. A process run
 * through tsx compiles every module it loads on the way in (about a second per process on these
 * machines); the compiled build is what users run (`npx oneway`) and starts in half the time.
 * test/global-setup.ts rebuilds dist/ before the integration project when any source is newer.
 */
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { filesUnder } from './cli.ts';

export const REPO = resolve(import.meta.dirname, '../..');
const DIST = join(REPO, 'dist');

/** The compiled entry of a CLI module: `cli('eval')` is dist/harness/cli/eval.js. */
export const cli = (name: string): string => join(DIST, 'harness', 'cli', `${name}.js`);

/** The newest modification time of any file under `dir`. */
const newest = (dir: string): number => Math.max(0, ...filesUnder(dir).map((f) => statSync(f).mtimeMs));

/** Whether dist/ is missing or older than a file it is built from. */
export function distIsStale(): boolean {
  const stamp = cli('oneway');
  if (!existsSync(stamp)) return true;
  const sources = [join(REPO, 'harness'), join(REPO, 'planners')].map(newest);
  const inputs = ['scripts/build.mjs', 'tsconfig.json', 'tsconfig.build.json'].map(
    (f) => statSync(join(REPO, f)).mtimeMs,
  );
  return statSync(stamp).mtimeMs < Math.max(...sources, ...inputs);
}

/**
 * Runs a command of the compiled CLI (`runCompiled('eval', args)`: node dist/harness/cli/eval.js)
 * in a process of its own, without colour, and resolves with its exit code, signal and output once
 * it ends: at its 'close' (every line read), or with `endOn: 'exit'` at its 'exit', for a test whose
 * point is that the process exits even if something it started still holds its output open. For what
 * must not run in the test's process: worker threads started from the source would each compile
 * the engine through tsx, where the compiled build's load the JavaScript.
 */
export function runCompiled(
  command: string,
  args: string[],
  opts: { cwd?: string; endOn?: 'close' | 'exit' } = {},
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return runNode([cli(command), ...args], opts);
}

/**
 * Runs `node <argv>` in a process of its own, as runCompiled does: e.g. a script that imports the
 * compiled build (never import it into the test's process: its seal would patch the sockets a
 * second time beside the source's, and escapes would be counted by the other copy).
 */
export function runNode(
  argv: string[],
  opts: { cwd?: string; endOn?: 'close' | 'exit' } = {},
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, {
      cwd: opts.cwd ?? process.cwd(),
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += String(d)));
    child.stderr.on('data', (d: Buffer) => (stderr += String(d)));
    child.once('error', reject);
    child.once(opts.endOn ?? 'close', (code: number | null, signal: NodeJS.Signals | null) =>
      resolve({ code, signal, stdout, stderr }),
    );
  });
}
