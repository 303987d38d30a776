/**
 * dist/ current for the integration project (see the first lines of `setup`), and one temporary directory for the whole test run: every `os.tmpdir()` in the tests, in the
 * processes they start and in oneway's own code under test resolves inside it (TMPDIR), and it is
 * removed when the run ends. Tests still clean up after themselves; this keeps a run that a test
 * forgot, or that was stopped half-way through a test, from leaving `oneway-*` directories in /tmp.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { distIsStale, REPO } from './helpers/compiled.ts';

export default function setup(project: TestProject): () => void {
  // Tests that start oneway in a process of their own run the compiled build (helpers/compiled.ts):
  // rebuilt here when a source is newer, once, before any of them starts.
  if (project.name === 'integration' && distIsStale()) {
    const built = spawnSync(process.execPath, [join(REPO, 'scripts/build.mjs')], { cwd: REPO, encoding: 'utf8' });
    if (built.status !== 0)
      throw new Error(`npm run build failed (exit ${built.status}):\n${built.stdout}${built.stderr}`);
  }
  // Each vitest project runs the global setup again: the first one's directory serves them all (a
  // short path: Chromium's socket path must fit in 108 bytes).
  if (process.env.ONEWAY_TESTS_TMPDIR !== undefined) return () => {};
  const dir = mkdtempSync(join(tmpdir(), 'oneway-tests-'));
  const before = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  process.env.ONEWAY_TESTS_TMPDIR = dir;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    delete process.env.ONEWAY_TESTS_TMPDIR;
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  };
}
