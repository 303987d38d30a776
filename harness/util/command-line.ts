/**
 * The oneway command lines oneway prints for the user to type (a replay, the recovery checklist):
 * as the user runs oneway where they are. The one rule for every such line:
 * - inside the oneway repository itself (oneway running from its TypeScript source, through tsx,
 *   and the working directory in that checkout): `npm run CMD -- ARGS` (the package.json script;
 *   `npm run oneway -- CMD ARGS` for a command without one), which runs the source as it is;
 * - anywhere else (an installed package, compiled under node_modules/oneway/dist/; a build run
 *   from elsewhere): `npx oneway CMD ARGS`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ownExtension } from './module-url.ts';
import { PACKAGE_ROOT } from './package-root.ts';
import { shellWord } from './shell-word.ts';

/** Where oneway runs: from source or compiled, the package's root, and the working directory. */
export interface Where {
  source: boolean;
  root: string;
  cwd: string;
}

/** Here: this process. */
function here(): Where {
  return { source: ownExtension(import.meta.url) === '.ts', root: PACKAGE_ROOT, cwd: process.cwd() };
}

/** The nearest directory from `cwd` upward with a package.json: the one `npm run` uses. */
function npmProject(cwd: string): string | undefined {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

function scriptsOf(root: string): Record<string, string> {
  try {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
    return pkg.scripts ?? {};
  } catch {
    return {};
  }
}

/**
 * The words of a oneway command before its arguments, as the user types them where they are
 * (the module comment says the rule): `npx oneway recover`, or `npm run recover --` inside the
 * oneway repository.
 *
 * @example
 * commandPrefix('recover') // 'npx oneway recover' in a project that installed oneway
 */
export function commandPrefix(command: string, where: Where = here()): string {
  const root = resolve(where.root);
  const checkout = where.source && !root.split(/[\\/]/).includes('node_modules') && npmProject(where.cwd) === root;
  if (checkout) {
    const scripts = scriptsOf(root);
    if (scripts[command] === `tsx harness/cli/oneway.ts ${command}`) return `npm run ${command} --`;
    if (scripts.oneway === 'tsx harness/cli/oneway.ts') return `npm run oneway -- ${command}`;
  }
  return `npx oneway ${command}`;
}

/**
 * A whole oneway command line, each argument quoted for the shell when it needs it.
 *
 * @example
 * commandLine('eval', ['--planner=scripted', '--seed=12']) // 'npx oneway eval --planner=scripted --seed=12'
 */
export function commandLine(command: string, args: readonly string[], where: Where = here()): string {
  return [commandPrefix(command, where), ...args.map(shellWord)].join(' ');
}

/** A path as the user would type it from the working directory: relative inside it, else absolute. */
export function typedPath(path: string, cwd: string = process.cwd()): string {
  const rel = relative(cwd, path);
  if (rel === '') return '.';
  return rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel) ? resolve(cwd, path) : rel;
}
