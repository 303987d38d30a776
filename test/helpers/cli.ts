import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Io } from '../../harness/cli/common.ts';

/**
 * The repository's own cache of loaded scenarios (node_modules/.cache/oneway: where commands run in
 * the repository keep theirs), as ONEWAY_CACHE_DIR for a test whose project has no node_modules, so
 * the bundled scenarios it names are not loaded afresh there. A cached scenario is the scenario loaded
 * afresh: test/loader/scenario-cache.test.ts.
 */
export const REPO_SCENARIO_CACHE = join(import.meta.dirname, '..', '..', 'node_modules', '.cache', 'oneway');

export function tempDir(prefix = 'oneway-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Every file under `dir`, at any depth. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** Runs a CLI `main` with captured output and no colour. */
export async function runCli(
  main: (argv: string[], io: Io) => Promise<number>,
  argv: string[],
  cwd = process.cwd(),
  env: NodeJS.ProcessEnv = { NO_COLOR: '1' },
) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d) => (out += String(d)));
  stderr.on('data', (d) => (err += String(d)));
  const code = await main(argv, { stdout, stderr, cwd, env });
  return { code, stdout: out, stderr: err };
}
