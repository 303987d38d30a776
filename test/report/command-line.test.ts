/**
 * The command lines oneway prints for the user to type (the HTML report's recovery command, fuzz's
 * replay commands): `npm run CMD --` inside the oneway repository running from source,
 * `npx oneway CMD` everywhere else (harness/util/command-line.ts, the one rule).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandLine, commandPrefix, typedPath } from '../../harness/util/command-line.ts';
import { PACKAGE_ROOT } from '../../harness/util/package-root.ts';
import { tempDir } from '../helpers/cli.ts';

/** A directory holding a package.json with these scripts. */
function project(dir: string, scripts: Record<string, string> = {}): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'x', scripts }));
  return dir;
}

describe('the command the user types', () => {
  it('is npm run CMD -- inside the oneway repository, from source', () => {
    const where = { source: true, root: PACKAGE_ROOT, cwd: PACKAGE_ROOT };
    expect(commandPrefix('recover', where)).toBe('npm run recover --');
    expect(commandPrefix('eval', where)).toBe('npm run eval --');
    // A command without its own script goes through the generic one.
    expect(commandPrefix('merge', where)).toBe('npm run oneway -- merge');
    // From a directory inside the checkout that has no package.json of its own, npm run still finds the repository's.
    expect(commandPrefix('recover', { ...where, cwd: join(PACKAGE_ROOT, 'harness', 'util') })).toBe(
      'npm run recover --',
    );
  });

  it('is npx oneway CMD from an installed package, from another project, and from a build', () => {
    const base = tempDir('oneway-cmd-');
    const app = project(join(base, 'app'));
    const installed = project(join(app, 'node_modules', 'oneway'), {
      recover: 'tsx harness/cli/oneway.ts recover',
      oneway: 'tsx harness/cli/oneway.ts',
    });
    expect(commandPrefix('recover', { source: false, root: installed, cwd: app })).toBe('npx oneway recover');
    // Even run from source (a TypeScript loader) and from inside it: it is not the user's checkout.
    expect(commandPrefix('recover', { source: true, root: installed, cwd: installed })).toBe('npx oneway recover');
    // The repository's source run from another project: npm run there would run that project's scripts.
    expect(commandPrefix('recover', { source: true, root: PACKAGE_ROOT, cwd: app })).toBe('npx oneway recover');
    // The repository's compiled build (node dist/..., or npx oneway in the checkout): what the user typed.
    expect(commandPrefix('recover', { source: false, root: PACKAGE_ROOT, cwd: PACKAGE_ROOT })).toBe(
      'npx oneway recover',
    );
  });

  it('is npx oneway CMD in a checkout whose scripts do not run the command', () => {
    const repo = project(tempDir('oneway-cmd-'), { test: 'vitest run' });
    expect(commandPrefix('recover', { source: true, root: repo, cwd: repo })).toBe('npx oneway recover');
  });

  it('quotes each argument only when the shell needs it', () => {
    const where = { source: false, root: PACKAGE_ROOT, cwd: PACKAGE_ROOT };
    expect(commandLine('eval', ['--planner=scripted', "--plan=my plan's.yaml"], where)).toBe(
      "npx oneway eval --planner=scripted '--plan=my plan'\\''s.yaml'",
    );
    expect(commandLine('eval', ['--seed=3'], { ...where, source: true })).toBe('npm run eval -- --seed=3');
  });

  it('writes a path relative to the working directory inside it, else absolute', () => {
    expect(typedPath('/home/u/app/reports/latest', '/home/u/app')).toBe('reports/latest');
    expect(typedPath('/home/u/app', '/home/u/app')).toBe('.');
    expect(typedPath('/tmp/out', '/home/u/app')).toBe('/tmp/out');
    expect(typedPath('/home/u/app/..data/x', '/home/u/app')).toBe('..data/x');
  });
});
