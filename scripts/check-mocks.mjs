#!/usr/bin/env node
/**
 * No test file replaces a module (vi.mock, vi.doMock) in a vitest project whose files share a module
 * cache (`isolate: false`, vitest.config.ts): there, whether the mock takes depends on which files
 * ran before it in its worker, so the suite could go red by the order of its files (it did once, all
 * of test/cli/settings.test.ts). Such a test is given the dependency instead (a parameter the
 * production code takes, as `readSource` takes its reader in test/loader/load.test.ts), or it is
 * listed in ISOLATED in vitest.config.ts (a project whose files each get a module cache of their own).
 *
 * `npm run check:mocks` (part of `npm run check`). Which file is in which project, and whether that
 * project isolates, is vitest's own reading of vitest.config.ts. Exits 1 naming each call as file:line.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * The lines (1-based) of a source text that call vi.mock or vi.doMock; comment lines left out.
 * @param {string} text
 * @returns {number[]}
 */
export function mockCalls(text) {
  const lines = [];
  text.split('\n').forEach((line, i) => {
    if (/^\s*(\/\/|\/?\*)/.test(line)) return;
    if (/\bvi\s*\.\s*(mock|doMock)\s*\(/.test(line)) lines.push(i + 1);
  });
  return lines;
}

/**
 * The problems of a set of test files: one for each vi.mock/vi.doMock in a file of a project that
 * shares modules.
 * @param {{ file: string; project: string; isolate: boolean; text: string }[]} files (file relative to the repository)
 * @returns {string[]}
 */
export function mockProblems(files) {
  const problems = [];
  for (const f of files) {
    if (f.isolate) continue;
    for (const line of mockCalls(f.text)) {
      problems.push(
        `${f.file}:${line}: vi.mock in the "${f.project}" project, whose files share a module cache ` +
          `(isolate: false): whether the mock takes depends on which files ran before it in its worker.\n` +
          `  Give the production code the dependency as a parameter the test passes (as readSource takes ` +
          `its reader: test/loader/load.test.ts), or add the file to ISOLATED in vitest.config.ts.`,
      );
    }
  }
  return problems;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const { createVitest } = await import('vitest/node');
  const vitest = await createVitest('test', { root, watch: false });
  const specs = await vitest.globTestSpecifications();
  const files = specs.map((s) => ({
    file: relative(root, s.moduleId),
    project: s.project.name,
    isolate: s.project.config.isolate,
    text: readFileSync(s.moduleId, 'utf8'),
  }));
  await vitest.close();
  const problems = mockProblems(files);
  if (problems.length > 0) {
    process.stderr.write(`${problems.length} module mock(s) in projects that share modules:\n${problems.join('\n')}\n`);
    process.exit(1);
  }
  process.stdout.write(`mocks: none in the ${files.filter((f) => !f.isolate).length} test files that share modules\n`);
}
