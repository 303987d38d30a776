#!/usr/bin/env node
// `npm run build` (and prepare / prepack): compiles harness/ and planners/ to dist/ with the pinned tsc
// (JavaScript + declarations, relative `.ts` specifiers rewritten to `.js`), then copies the files tsc
// does not emit but the code reads at run time: the worker boot script, the seal's CommonJS preload,
// the HTML report's style sheet, the scenario JSON Schema; and bundles the HTML report's browser
// script (the typed modules under harness/features/report/html/client/) into one file with esbuild,
// as the compiled report reads it (an installed package has no esbuild). Last, zod and msw are bundled
// into dist/vendor/ and the compiled modules import them there (scripts/vendor.mjs says why).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { vendor } from './vendor.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const started = Date.now();
// Built beside dist/ and swapped in whole at the end: a test run (or an evaluation) that is using
// dist/ while another run rebuilds it never sees a half-written or missing tree.
const final = join(root, 'dist');
const dist = join(root, `dist.next-${process.pid}`);
rmSync(dist, { recursive: true, force: true });
const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
const r = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', dist], {
  cwd: root,
  stdio: 'inherit',
});
if (r.status !== 0) {
  rmSync(dist, { recursive: true, force: true });
  process.stderr.write(`build: tsc failed (exit ${r.status ?? r.signal}); dist/ is left as it was\n`);
  process.exit(1);
}

// Everything in harness/ that is not TypeScript source is a run-time asset.
let copied = 0;
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (!/\.(m|c)?ts$/.test(name) || name.endsWith('.d.cts')) {
      const to = join(dist, relative(root, path));
      mkdirSync(dirname(to), { recursive: true });
      cpSync(path, to);
      copied++;
    }
  }
};
walk(join(root, 'harness'));

// The report's browser script, bundled by the same function that bundles it from source.
const html = join(dist, 'harness', 'features', 'report', 'html');
const { bundleClient, CLIENT_BUNDLE } = await import(pathToFileURL(join(html, 'client-bundle.js')).href);
writeFileSync(
  join(html, CLIENT_BUNDLE),
  bundleClient(join(root, 'harness', 'features', 'report', 'html', 'client', 'main.ts')),
);
// zod and msw, bundled into dist/vendor/ (scripts/vendor.mjs): every process starts faster.
const vendored = await vendor(root, dist);
// The swap: the old tree aside, the new one in, the old one removed.
const old = join(root, `dist.old-${process.pid}`);
if (existsSync(final)) renameSync(final, old);
renameSync(dist, final);
rmSync(old, { recursive: true, force: true });
process.stderr.write(
  `build: dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s (${copied} assets copied, ${vendored} modules import dist/vendor/)\n`,
);
