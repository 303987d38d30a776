/**
 * The package's docs cite only what it ships (scripts/check-doc-links.mjs, which the consumer smoke
 * test also runs over the unpacked tarball): every relative link, and every path written in the
 * text that names a file of the repository (`examples/planners/verify-first.ts`), is in the file
 * list of `npm pack --dry-run`. A user reading the docs in node_modules/oneway finds each file
 * they are sent to.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { brokenCitations, citations } from '../../scripts/check-doc-links.mjs';

const REPO = resolve(import.meta.dirname, '../..');

/** The files `npm pack` puts in the tarball (no build: dist/ is there, test/global-setup.ts made it). */
function packed(): string[] {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO, encoding: 'utf8' });
  return (JSON.parse(out) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
}

describe('the shipped docs', () => {
  it('cite, by link or by a path in the text, only files the package ships', () => {
    const { broken, checked } = brokenCitations(packed(), (page) => readFileSync(join(REPO, page), 'utf8'));
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(100);
  });

  it('a path in the text is checked: a repository file the package lacks, a stale one, or the reader’s own', () => {
    const page = [
      'Copy `examples/planners/verify-first.ts` and `.github/workflows/eval.yml`.', // in the repository, not shipped
      'See `harness/engine/runner/planner-host.ts`.', // no such file
      'The seal is `harness/engine/sandbox/child-seal.cjs`, the loop `harness/engine/runner/run.ts`.', // shipped compiled
      'Write `scenarios/notify.yaml` and `.github/workflows/oneway.yml`, read `reports/bench.json`.', // the reader's own
      '```sh',
      'cp `examples/nope.ts` x', // fenced code: a command, not a citation
      '```',
      'A [link](./gone.md) and [one](../docs/ci.md).',
    ].join('\n');
    const shipped = [
      'docs/page.md',
      'docs/ci.md',
      'dist/harness/engine/sandbox/child-seal.cjs',
      'dist/harness/engine/runner/run.js',
    ];
    expect(brokenCitations(shipped, (p) => (p === 'docs/page.md' ? page : '')).broken).toEqual([
      'docs/page.md:1: examples/planners/verify-first.ts (a file of the repository the package does not ship)',
      'docs/page.md:1: .github/workflows/eval.yml (a file of the repository the package does not ship)',
      'docs/page.md:2: harness/engine/runner/planner-host.ts (no such file)',
      'docs/page.md:8: ./gone.md (a link to a file the package lacks)',
    ]);
  });

  it('pages for contributors cite the repository, and only files it has', () => {
    const page = 'Proved by `test/sandbox/seal.test.ts`; see `harness/engine/runner/planner-host.ts`.';
    expect(brokenCitations(['docs/decisions/0001-x.md'], () => page).broken).toEqual([
      'docs/decisions/0001-x.md:1: harness/engine/runner/planner-host.ts (no such file in the repository)',
    ]);
    expect(citations(page).map((c) => c.target)).toEqual([
      'test/sandbox/seal.test.ts',
      'harness/engine/runner/planner-host.ts',
    ]);
  });
});
