/**
 * The report's browser script: the typed modules under client/ bundled into one script (an
 * IIFE) that report.html inlines. From source (tsx, the tests) it is bundled at first use with
 * esbuild, the one tsx brings; `npm run build` bundles it the same way into dist/ as client.js,
 * which is what an installed package (no esbuild) reads.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { ownExtension } from '../../../util/module-url.ts';

/** The file `npm run build` writes beside the compiled template, and an installed package reads. */
export const CLIENT_BUNDLE = 'client.js';

interface Esbuild {
  buildSync(options: Record<string, unknown>): { outputFiles?: { text: string }[] };
}

/**
 * Bundles the client from its entry module (client/main.ts) with esbuild. Only where the
 * repository's devDependencies are installed: `npm run build`, and oneway running from source.
 *
 * @example
 * const js = bundleClient(fileURLToPath(new URL('./client/main.ts', import.meta.url)));
 */
export function bundleClient(entry: string): string {
  const esbuild = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'))('esbuild') as Esbuild;
  const out = esbuild.buildSync({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    // Non-ASCII as \u escapes: the script reads the same whatever the page's encoding.
    charset: 'ascii',
    legalComments: 'none',
    logLevel: 'silent',
  });
  const text = out.outputFiles?.[0]?.text;
  if (text === undefined) throw new Error(`harness/features/report/html: esbuild wrote no bundle for ${entry}`);
  return text;
}

/**
 * The client script: bundled now when oneway runs from source, else the bundle `npm run build`
 * put beside this module.
 */
export function clientScript(): string {
  return ownExtension(import.meta.url) === '.ts'
    ? bundleClient(fileURLToPath(new URL('./client/main.ts', import.meta.url)))
    : readFileSync(new URL(`./${CLIENT_BUNDLE}`, import.meta.url), 'utf8');
}
