/**
 * The package's public surface is deliberate: the root stays small and loads no fuzzing, the docs
 * and examples import only what each entry point exports, and `npm run check:api` fails on an
 * export nobody meant to publish, saying what changed and what to do.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as root from 'oneway';
import * as fuzz from 'oneway/fuzz';
import * as agents from 'oneway/agents';
import { checkApi } from '../../scripts/api-report.mjs';
import { tempDir } from '../helpers/cli.ts';

const REPO = resolve(import.meta.dirname, '../..');
const ENTRIES: Record<string, { source: string; runtime: Record<string, unknown> }> = {
  oneway: { source: 'harness/index.ts', runtime: root },
  'oneway/fuzz': { source: 'harness/features/fuzz/index.ts', runtime: fuzz },
  'oneway/agents': { source: 'harness/agents.ts', runtime: agents },
};

/** Every name an entry point's source exports, type-only ones included (entries are `export { ... } from` lists). */
function exportedNames(source: string): Set<string> {
  const text = readFileSync(join(REPO, source), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
  const names = new Set<string>();
  for (const m of text.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g))
    for (const item of (m[1] ?? '').split(',').map((s) => s.trim()))
      if (item)
        names.add(
          item
            .replace(/^type\s+/, '')
            .split(/\s+as\s+/)
            .pop() as string,
        );
  return names;
}

/** Modules a source file loads when it runs: static imports and re-exports that are not type-only. */
function valueImports(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?'([^']+)'/gm))
    if (!m[2]) out.push(m[3] as string);
  return out;
}

describe('the root entry point', () => {
  it('stays within 30 runtime names, with no fuzzing, no 0.1.0 aliases and no internals', () => {
    const names = Object.keys(root);
    expect(names.length).toBeLessThanOrEqual(30);
    for (const name of Object.keys(fuzz).filter((n) => n !== 'loadPlanFile')) expect(names).not.toContain(name);
    for (const name of ['applyGates', 'buildResults', 'toHandle', 'analyseResults', 'summarizePlanner', 'formatPath'])
      expect(names).not.toContain(name);
    expect(exportedNames('harness/index.ts')).not.toContain('Gate');
    expect(names).toEqual(expect.arrayContaining(['evaluate', 'defineConfig', 'loadScenarioFile', 'formatProblem']));
  });

  it('does not load fast-check: nothing it imports at run time reaches it', () => {
    const seen = new Set<string>();
    const packages = new Set<string>();
    const walk = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const spec of valueImports(file)) {
        if (spec.startsWith('.')) walk(resolve(dirname(file), spec));
        else
          packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] as string));
      }
    };
    walk(join(REPO, 'harness/index.ts'));
    expect(seen.size).toBeGreaterThan(20); // the walk follows the graph (api.ts, the loader, the scoring ...)
    expect(packages).toContain('zod');
    expect(packages).not.toContain('fast-check');
    // The fuzz entry does load it: the walk would see it there.
    seen.clear();
    packages.clear();
    walk(join(REPO, 'harness/features/fuzz/index.ts'));
    expect(packages).toContain('fast-check');
  });
});

describe('the docs and examples', () => {
  /** Markdown, examples and the consumer smoke test: what users are shown. */
  const files = (() => {
    const out = ['README.md', 'scripts/consumer-smoke.sh'];
    const walk = (dir: string) => {
      for (const name of readdirSync(join(REPO, dir))) {
        const p = join(dir, name);
        if (statSync(join(REPO, p)).isDirectory()) walk(p);
        else if (/\.(md|ts|mjs|js)$/.test(name)) out.push(p);
      }
    };
    walk('docs');
    walk('examples');
    return out;
  })();

  it('import from each entry point only what it exports', () => {
    const wrong: string[] = [];
    let imports = 0;
    for (const file of files) {
      const text = readFileSync(join(REPO, file), 'utf8');
      for (const m of text.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s*from\s*'(oneway(?:\/\w+)?)'/g)) {
        const entry = ENTRIES[m[2] as string];
        if (!entry) {
          wrong.push(`${file}: '${m[2]}' is not an entry point`);
          continue;
        }
        imports++;
        const exported = exportedNames(entry.source);
        for (const item of (m[1] ?? '').split(',').map((s) => s.trim()))
          if (item && !exported.has(item.replace(/^type\s+/, '').split(/\s+as\s+/)[0] as string))
            wrong.push(`${file}: ${item} is not exported by '${m[2]}'`);
      }
    }
    expect(imports).toBeGreaterThan(8);
    expect(wrong).toEqual([]);
  });
});

describe('npm run check:api', () => {
  /** A package with one entry point, its report written as `npm run api:update` would. */
  async function project(entry: string): Promise<string> {
    const dir = tempDir('oneway-api-report-');
    mkdirSync(join(dir, 'src'));
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({
        name: 'pkg',
        exports: { '.': { types: './dist/src/index.d.ts', default: './dist/src/index.js' } },
      }),
    );
    writeFileSync(join(dir, 'src/lib.ts'), 'export const a = 1;\nexport const b = 2;\nexport type T = number;\n');
    writeFileSync(join(dir, 'src/index.ts'), entry);
    await checkApi(dir, { update: true });
    return dir;
  }

  it('passes when the entry point exports what its report says', async () => {
    const dir = await project("export { a, type T } from './lib.ts';\n");
    expect(readFileSync(join(dir, 'api/pkg.api.md'), 'utf8')).toContain('| `a` | number | src/lib.ts |');
    expect(await checkApi(dir)).toEqual({ ok: true, messages: ['check:api: ok (1 entry points)'] });
  });

  it('fails on a new export, naming it and the command that accepts it', async () => {
    const dir = await project("export { a, type T } from './lib.ts';\n");
    writeFileSync(join(dir, 'src/index.ts'), "export { a, b, type T } from './lib.ts';\n");
    const { ok, messages } = await checkApi(dir);
    expect(ok).toBe(false);
    const text = messages.join('\n');
    expect(text).toContain('pkg no longer exports what api/pkg.api.md says');
    expect(text).toContain('+  | `b` | number | src/lib.ts |');
    expect(text).toContain('npm run api:update');
    expect(text).toContain('take the export out of src/index.ts');
  });

  it('refuses an entry point that re-exports a whole module (export *), whose growth the report cannot see', async () => {
    const dir = await project("export * from './lib.ts';\n");
    const { ok, messages } = await checkApi(dir);
    expect(ok).toBe(false);
    expect(messages.join('\n')).toContain('"export * from \'./lib.ts\';": an entry point names what it exports');
  });

  it('says so when a report is missing', async () => {
    const dir = await project("export { a } from './lib.ts';\n");
    rmSync(join(dir, 'api/pkg.api.md'));
    const { ok, messages } = await checkApi(dir);
    expect(ok).toBe(false);
    expect(messages).toContain('check:api: api/pkg.api.md is missing: run npm run api:update and commit it');
  });
});
