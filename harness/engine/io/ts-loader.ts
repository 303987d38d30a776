/**
 * TypeScript files a user hands oneway (a planner, a fuzz property module, oneway.config.ts) need a
 * loader. From source (this repository's scripts and tests) one is already active: tsx. Compiled
 * (an installed oneway, from dist/), none is needed for .js/.mjs files, and a .ts file loads when
 * Node strips types itself (22.18+ and 23.6+ by default; 22.6+ with --experimental-strip-types)
 * or when tsx is installed beside oneway, which is then registered in this thread. Otherwise the
 * user hears what to do, instead of ERR_UNKNOWN_FILE_EXTENSION. A planner file or property module
 * runs in a sealed process, where no loader can be registered: `moduleForProcess` compiles it here
 * first (esbuild, which comes with tsx), under the same rule.
 */
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { UsageError } from '../../core/errors.ts';
import { ownExtension } from '../../util/module-url.ts';

const TS_FILE = /\.(c|m)?ts$/;
let registering: Promise<void> | undefined;
const TS_HINT =
  'install tsx in your project (npm install --save-dev tsx), use Node >= 22.18 (or 22.6+ with --experimental-strip-types), or give a .js/.mjs file';

/** Whether this Node loads TypeScript by itself (type stripping). */
function nodeStripsTypes(): boolean {
  return Boolean((process.features as { typescript?: unknown }).typescript);
}

/** Makes sure `file` can be imported here when it is TypeScript; a UsageError saying what to do when it cannot. */
async function needsTypeScript(file: string, what: string): Promise<void> {
  if (!TS_FILE.test(file) || ownExtension(import.meta.url) === '.ts' || nodeStripsTypes()) return;
  registering ??= (async () => {
    const [{ register: registerCjs }, { register }] = await Promise.all([import('tsx/cjs/api'), import('tsx/esm/api')]);
    registerCjs();
    register();
  })();
  try {
    await registering;
  } catch {
    registering = undefined;
    throw new UsageError(
      `${what} is TypeScript, and Node ${process.version} does not load TypeScript by itself`,
      TS_HINT,
    );
  }
}

/** Whether a `--planner` or `--property` value names a module file rather than a built-in: a path, or a module's extension. */
export const looksLikeModulePath = (spec: string): boolean => /[\\/]/.test(spec) || /\.(m?[jt]s|cjs)$/.test(spec);

/** How many times a module was imported afresh (`fresh`): each import gets a URL of its own. */
let freshImports = 0;

/**
 * Imports a module a user handed oneway (a planner, a property module, oneway.config.ts), TypeScript
 * made loadable first. A module that does not load is the user's mistake: a UsageError naming it.
 * `fresh`: imported again under a new URL, not taken from the module cache (a file that changed).
 */
export async function importUserModule(
  file: string,
  o: { what: string; failed?: string; hint?: string; fresh?: boolean },
): Promise<Record<string, unknown>> {
  await needsTypeScript(file, o.what);
  const url = pathToFileURL(file).href;
  try {
    return (await import(o.fresh ? `${url}?fresh=${++freshImports}` : url)) as Record<string, unknown>;
  } catch (e) {
    throw new UsageError(
      `${o.failed ?? o.what} failed to load: ${(e as Error).message}`,
      o.hint ?? 'check that the file compiles and its imports resolve',
    );
  }
}

/** The part of esbuild's API `moduleForProcess` uses (esbuild comes with tsx). */
interface Esbuild {
  build(options: Record<string, unknown>): Promise<unknown>;
}

/** esbuild, where tsx is installed beside oneway or in the working directory's project; undefined otherwise. */
function findEsbuild(cwd: string): Esbuild | undefined {
  for (const from of [import.meta.url, pathToFileURL(join(cwd, 'package.json')).href]) {
    try {
      const tsx = createRequire(from).resolve('tsx/package.json');
      return createRequire(tsx)('esbuild') as Esbuild;
    } catch {
      // not from here
    }
  }
  return undefined;
}

/** Node flags that make this Node strip types (or transform them), as given to this process. */
const typeFlags = (): string[] =>
  process.execArgv.filter((a) => a === '--experimental-strip-types' || a === '--experimental-transform-types');

/**
 * A user's module made loadable by a plain `node` that can register no loader (a sealed process:
 * runner/sealed-process.ts runs planner files and property modules so). A .js/.mjs/.cjs file runs as
 * it is. A TypeScript file is bundled by esbuild (installed with tsx) into one ES module in `outDir`,
 * its imports included, `import.meta.url` and `require` still those of the file itself; without
 * tsx, it runs under Node's own type stripping where this Node has it (the flags that turned it on
 * here are passed on); otherwise a UsageError says what to do.
 */
export async function moduleForProcess(
  file: string,
  outDir: string,
  what: string,
  cwd = process.cwd(),
): Promise<{ file: string; nodeFlags: string[] }> {
  if (!TS_FILE.test(file)) return { file, nodeFlags: [] };
  return bundledForProcess(file, outDir, what, cwd);
}

/**
 * Whether a module failed to load because it imports TypeScript (a .js/.mjs file importing a .ts
 * one), which `bundledForProcess` then makes loadable.
 */
export const importsTypeScript = (loadError: string): boolean => /Unknown file extension "\.(c|m)?ts"/.test(loadError);

/**
 * A module bundled by esbuild into one ES module in `outDir` (its imports, TypeScript ones included),
 * or run under Node's type stripping without tsx, or a UsageError: how a TypeScript file, or a
 * JavaScript file that imports TypeScript, is made loadable by a plain `node`.
 */
export async function bundledForProcess(
  file: string,
  outDir: string,
  what: string,
  cwd = process.cwd(),
): Promise<{ file: string; nodeFlags: string[] }> {
  const esbuild = findEsbuild(cwd);
  if (esbuild) {
    const url = pathToFileURL(file).href;
    const out = join(outDir, `${basename(file).replace(/\.(c|m)?[jt]s$/, '')}.bundle.mjs`);
    try {
      await esbuild.build({
        entryPoints: [file],
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: `node${process.versions.node.split('.')[0]}`,
        outfile: out,
        write: true,
        logLevel: 'silent',
        sourcemap: 'inline',
        define: {
          'import.meta.url': JSON.stringify(url),
          'import.meta.filename': JSON.stringify(file),
          'import.meta.dirname': JSON.stringify(dirname(file)),
        },
        // CommonJS dependencies bundled into an ES module call `require`: the file's own.
        banner: {
          js: `import { createRequire as __onewayRequire } from 'node:module'; globalThis.require ??= __onewayRequire(${JSON.stringify(url)});`,
        },
      });
    } catch (e) {
      const errors = (e as { errors?: { text: string; location?: { file: string; line: number; column: number } }[] })
        .errors;
      const first = errors?.[0];
      // esbuild's file is relative to the working directory and its column counts from 0: an absolute path, a column from 1.
      const at = first?.location;
      const where = at ? `${resolve(at.file)}:${at.line}:${at.column + 1}: ` : '';
      throw new UsageError(
        `${what} failed to load: ${first ? `${where}${first.text}` : (e as Error).message}`,
        'check that the file compiles and its imports resolve',
      );
    }
    return { file: out, nodeFlags: ['--enable-source-maps'] };
  }
  if (nodeStripsTypes()) return { file, nodeFlags: typeFlags() };
  throw new UsageError(
    `${what} is TypeScript, and Node ${process.version} does not load TypeScript by itself`,
    TS_HINT,
  );
}
