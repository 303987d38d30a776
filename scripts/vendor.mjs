// Part of `npm run build` (scripts/build.mjs): the third-party packages every oneway process loads at
// start (zod, and msw for the sandbox's seal), bundled into dist/vendor/ as a few ES modules, and the
// compiled modules' imports of them pointed there.
//
// Why: Node 20 loads an ES module graph one file at a time (resolve, read, compile each), and these
// packages are ~190 of the ~370 modules `oneway eval` loads; bundled, the same code is a handful of
// files, and every command starts about 0.35 CPU-s sooner (`npm run bench`'s start-up case, and
// docs/benchmark.md). What runs is the code installed in node_modules, as it was.
//
// Safe because none of their objects cross oneway's public API (api/*.api.md names no zod or msw
// type): a user's own zod or msw never meets oneway's copy. (msw's interceptors find each other
// through global symbols, so a user's msw and the seal's share one patched fetch, as before.)
// fast-check, openai and the MCP SDK are not vendored: users pass their objects to oneway or get
// oneway's from it.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';

/** Package specifier → the vendored module's name under dist/vendor/. */
export const VENDORED = { zod: 'zod', msw: 'msw', 'msw/node': 'msw-node' };

// `from 'x'`, `import('x')` and `import 'x'` of a vendored specifier, in compiled JavaScript.
const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(zod|msw|msw\/node)\2/g;

/**
 * Bundles the vendored packages from `root`'s node_modules into `dist`/vendor, and rewrites every
 * compiled module under `dist` that imports one. Returns how many modules were rewritten.
 */
export async function vendor(root, dist) {
  const esbuild = createRequire(createRequire(join(root, 'package.json')).resolve('tsx/package.json'))('esbuild');
  const out = join(dist, 'vendor');
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: Object.entries(VENDORED).map(([spec, name]) => ({ in: `vendor:${spec}`, out: name })),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outdir: out,
    // A CommonJS dependency's require() of a built-in works in the ES module bundle.
    banner: {
      js: "import { createRequire as __onewayRequire } from 'node:module'; const require = __onewayRequire(import.meta.url);",
    },
    legalComments: 'inline',
    logLevel: 'warning',
    plugins: [
      {
        name: 'vendor-entry',
        setup(build) {
          build.onResolve({ filter: /^vendor:/ }, (a) => ({
            path: a.path.slice('vendor:'.length),
            namespace: 'vendor',
          }));
          build.onLoad({ filter: /.*/, namespace: 'vendor' }, (a) => ({
            contents: `export * from ${JSON.stringify(a.path)};\n`,
            resolveDir: root,
          }));
        },
      },
    ],
  });
  let rewritten = 0;
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (path === out) continue;
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(m|c)?js$/.test(name)) {
        const text = readFileSync(path, 'utf8');
        const next = text.replace(SPECIFIER, (_, lead, quote, spec) => {
          let to = relative(dirname(path), join(out, `${VENDORED[spec]}.js`))
            .split(sep)
            .join('/');
          if (!to.startsWith('.')) to = `./${to}`;
          return `${lead}${quote}${to}${quote}`;
        });
        if (next !== text) {
          writeFileSync(path, next);
          rewritten++;
        }
      }
    }
  };
  walk(dist);
  return rewritten;
}
