/**
 * TypeScript files a user hands oneway (a planner, a fuzz property module, oneway.config.ts) need a
 * loader. From source (this repository's scripts and tests) one is already active: tsx. Compiled
 * (an installed oneway, from dist/), none is needed for .js/.mjs files, and a .ts file loads when
 * Node strips types itself (22.18+ and 23.6+ by default; 22.6+ with --experimental-strip-types)
 * or when tsx is installed beside oneway, which is then registered in this thread. Otherwise the
 * user hears what to do, instead of ERR_UNKNOWN_FILE_EXTENSION.
 */
import { pathToFileURL } from 'node:url';
import { UsageError } from '../../core/errors.ts';
import { ownExtension } from '../../util/module-url.ts';

const TS_FILE = /\.(c|m)?ts$/;
let registering: Promise<void> | undefined;

/** Whether this Node loads TypeScript by itself (type stripping). */
function nodeStripsTypes(): boolean {
  return Boolean((process.features as { typescript?: unknown }).typescript);
}

/** Makes sure `file` can be imported here when it is TypeScript; a UsageError saying what to do when it cannot. */
export async function needsTypeScript(file: string, what: string): Promise<void> {
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
      'install tsx in your project (npm install --save-dev tsx), use Node >= 22.18 (or 22.6+ with --experimental-strip-types), or give a .js/.mjs file',
    );
  }
}

/** Whether a `--planner` or `--property` value names a module file rather than a built-in: a path, or a module's extension. */
export const looksLikeModulePath = (spec: string): boolean => /[\\/]/.test(spec) || /\.(m?[jt]s|cjs)$/.test(spec);

/**
 * Imports a module a user handed oneway (a planner, a property module, oneway.config.ts), TypeScript
 * made loadable first. A module that does not load is the user's mistake: a UsageError naming it.
 */
export async function importUserModule(
  file: string,
  o: { what: string; failed?: string; hint?: string },
): Promise<Record<string, unknown>> {
  await needsTypeScript(file, o.what);
  try {
    return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (e) {
    throw new UsageError(
      `${o.failed ?? o.what} failed to load: ${(e as Error).message}`,
      o.hint ?? 'check that the file compiles and its imports resolve',
    );
  }
}
