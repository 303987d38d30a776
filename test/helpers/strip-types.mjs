/**
 * A module loader for TypeScript files outside node_modules, for tests that run a TypeScript program
 * (an example agent) in a process of its own: `node --import ./test/helpers/strip-types.mjs FILE.ts`.
 * Each .ts file is compiled by esbuild (the one tsx brings, as in the HTML report's client bundle);
 * every other module loads as node loads it, and `oneway/agents` resolves as in an installed package
 * (package.json "exports": the compiled dist/, kept current by test/global-setup.ts). tsx's loader
 * also sees every module of node_modules, which for the agent frameworks' packages costs about half
 * again the CPU time of loading them.
 */
import { readFile } from 'node:fs/promises';
import { createRequire, register } from 'node:module';
import { fileURLToPath } from 'node:url';
import { isMainThread } from 'node:worker_threads';

/** The load hook (in node's hooks thread): a .ts file of the repository as esbuild compiles it. */
export async function load(url, context, next) {
  if (!url.startsWith('file:') || !url.endsWith('.ts') || url.includes('/node_modules/')) return next(url, context);
  const require = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'));
  const { transform } = require('esbuild');
  const file = fileURLToPath(url);
  const { code } = await transform(await readFile(file, 'utf8'), {
    loader: 'ts',
    format: 'esm',
    target: 'node20',
    sourcemap: 'inline',
    sourcefile: file,
  });
  return { format: 'module', source: code, shortCircuit: true };
}

// Imported with --import, in the main thread: register this module's hooks.
if (isMainThread) register(import.meta.url);
