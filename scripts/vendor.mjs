// Part of `npm run build` (scripts/build.mjs): the third-party packages oneway's processes load at
// start (zod; msw, for the sandbox's seal; the MCP SDK, for serve, guard and agents), bundled into
// dist/vendor/ as a few ES modules with their shared code in common chunks (the SDK's zod is the
// same as oneway's), and the compiled modules' imports of them pointed there.
//
// Why: Node 20 loads an ES module graph one file at a time (resolve, read, compile each). These
// packages were ~190 of the ~370 modules `oneway eval` loaded and ~200 of the ~290 of `oneway
// guard` (the SDK brings its own zod and zod-to-json-schema); bundled, the same installed code is a
// handful of files, and a command starts about 0.3-0.4 CPU-s sooner.
//
// Safe because none of their objects cross oneway's public API (api/*.api.md names no zod, msw or
// MCP SDK type): a user's own copy never meets oneway's. (msw's interceptors find each other through
// global symbols, so a user's msw and the seal's share one patched fetch, as before.) fast-check and
// openai are not vendored: users pass their objects to oneway, or get oneway's from it.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';

/** Package specifier → the vendored module's name under dist/vendor/. */
export const VENDORED = {
  zod: 'zod',
  msw: 'msw',
  'msw/node': 'msw-node',
  '@modelcontextprotocol/sdk/client/index.js': 'mcp-client',
  '@modelcontextprotocol/sdk/client/stdio.js': 'mcp-client-stdio',
  '@modelcontextprotocol/sdk/client/streamableHttp.js': 'mcp-client-http',
  '@modelcontextprotocol/sdk/server/index.js': 'mcp-server',
  '@modelcontextprotocol/sdk/server/stdio.js': 'mcp-server-stdio',
  '@modelcontextprotocol/sdk/server/streamableHttp.js': 'mcp-server-http',
  '@modelcontextprotocol/sdk/types.js': 'mcp-types',
  '@modelcontextprotocol/sdk/shared/transport.js': 'mcp-transport',
};

// `from 'x'`, `import('x')` and `import 'x'`, in compiled JavaScript: x is the specifier.
const IMPORT = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])([^'"]+)\2/g;
// A specifier of one of those packages (VENDORED names the ones that are bundled).
const OF_VENDORED = /^(?:zod|msw|@mswjs\/[^/]+|@modelcontextprotocol\/sdk)(?:\/|$)/;

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
        const next = text.replace(IMPORT, (whole, lead, quote, spec) => {
          if (!OF_VENDORED.test(spec)) return whole;
          // Another subpath of a vendored package would load a second copy from node_modules.
          if (!(spec in VENDORED))
            throw new Error(
              `${relative(dist, path)} imports ${spec}, a subpath of a vendored package that is not in VENDORED (scripts/vendor.mjs): add it there`,
            );
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
