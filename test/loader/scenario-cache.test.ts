/**
 * The cache of loaded scenarios (harness/engine/loader/scenario-cache.ts): a hit gives what loading
 * the file gives (scenario, tool lines, positions; the same listing and evaluation), a changed file or
 * loader misses, a corrupt entry is ignored, and a scenario with problems is never cached, so its
 * problems are reported with file:line:col every time.
 */
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../../harness/cli/eval.ts';
import { scenarioCache } from '../../harness/cli/common.ts';
import { formatProblem } from '../../harness/core/errors.ts';
import { resolveScenarios, type Resolved } from '../../harness/engine/loader/resolve.ts';
import {
  codeVersion,
  exactlyJson,
  importClosure,
  loadScenarioCached,
  prune,
} from '../../harness/engine/loader/scenario-cache.ts';
import { filesUnder, runCli, tempDir } from '../helpers/cli.ts';
import { readResults, timeless } from '../helpers/results.ts';
import { TINY } from './helpers.ts';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const BUNDLED = join(REPO, 'scenarios');
/**
 * Two directories of bundled scenarios (five files) for the command-line tests: that a cached scenario
 * is the scenario loaded afresh is shown over the whole bundled suite, so these need only a few.
 */
const SOME = ['billing', 'storage'].map((d) => join(BUNDLED, d));
const SOME_FILES = SOME.flatMap((d) => readdirSync(d).filter((n) => n.endsWith('.yaml')));

const load = (dir: string, cache?: string) =>
  resolveScenarios([dir], { cwd: REPO, root: BUNDLED, ...(cache ? { cache } : {}) });
const entries = (cache: string) => readdirSync(join(cache, 'scenarios')).filter((n) => n.endsWith('.json'));

/** Everything a LoadedScenario offers, as data: scenario (as written, key order included), tool lines, positions. */
function observed(r: Resolved) {
  return {
    problems: r.problems.map(formatProblem),
    loaded: r.loaded.map((l) => ({
      file: l.file,
      scenario: JSON.stringify(l.scenario),
      toolLines: l.toolLines,
      positions: [['id'], ['tools', 0, 'name'], ['tools', 1, 'parameters'], ['goal', 0], ['world']].map((p) =>
        l.locate(p),
      ),
    })),
  };
}

/** An entry with another body, and a checksum that fits it. */
function withSum(entry: string, body: string): string {
  const [format, key] = entry.slice(0, entry.indexOf('\n')).split(' ');
  return `${format} ${key} ${createHash('sha256').update(body).digest('hex')}\n${body}`;
}

/** Rewrites an entry's body, with a checksum that fits it. */
function rewriteEntry(path: string, edit: (body: { scenario: { title: string } }) => void) {
  const text = readFileSync(path, 'utf8');
  const body = JSON.parse(text.slice(text.indexOf('\n') + 1));
  edit(body);
  writeFileSync(path, withSum(text, JSON.stringify(body)));
}

describe('the cache of loaded scenarios', () => {
  it('gives what loading the files gives, and serves it from the cache once filled', async () => {
    const cache = tempDir('oneway-cache-');
    const loadedFresh = await load(BUNDLED);
    const fresh = observed(loadedFresh);
    expect(fresh.loaded.length).toBeGreaterThan(30);
    const first = await load(BUNDLED, cache);
    expect(entries(cache)).toHaveLength(fresh.loaded.length);
    const second = await load(BUNDLED, cache);
    expect(observed(first)).toEqual(fresh);
    expect(observed(second)).toEqual(fresh);
    expect(second.loaded[0]?.scenario).toStrictEqual(loadedFresh.loaded[0]?.scenario);

    // The second load came from the entries: an entry changed (checksum and all) is what it gives.
    for (const name of entries(cache)) rewriteEntry(join(cache, 'scenarios', name), (b) => (b.scenario.title = 'X'));
    expect((await load(BUNDLED, cache)).loaded.map((l) => l.scenario.title)).toEqual(fresh.loaded.map(() => 'X'));
  });

  it('lists and evaluates as without it (eval --list; results and records of eager and gated)', async () => {
    const cache = tempDir('oneway-cache-');
    const spec = `--scenario=${SOME.join(',')}`;
    const env = (on: boolean) => ({ NO_COLOR: '1', ...(on ? { ONEWAY_CACHE_DIR: cache } : { ONEWAY_CACHE: 'off' }) });
    const list = (on: boolean) => runCli(main, ['--list', spec], REPO, env(on));
    const off = await list(false);
    expect(off.code, off.stderr).toBe(0);
    expect(readdirSync(cache)).toEqual([]); // ONEWAY_CACHE=off: nothing written
    expect(await list(true)).toEqual(off); // fills the cache
    const filled = entries(cache).length;
    expect(filled).toBe(SOME_FILES.length);
    expect(filled).toBeGreaterThan(2);
    expect(await list(true)).toEqual(off); // from the cache

    const evaluate = async (on: boolean) => {
      const out = tempDir('oneway-cache-eval-');
      const argv = [spec, '--planner=eager,gated', '--transport=inprocess', '--reporter=json', `--out=${out}`];
      const r = await runCli(main, argv, REPO, env(on));
      expect(r.code, r.stderr).toBeLessThan(2);
      const records = filesUnder(join(out, 'runs')).sort();
      return {
        results: timeless(readResults(out)),
        records: records.map((f) => [f.slice(out.length), readFileSync(f, 'utf8')]),
      };
    };
    const without = await evaluate(false);
    expect(without.records).toHaveLength(2 * SOME_FILES.length);
    expect(await evaluate(true)).toEqual(without);
    expect(entries(cache)).toHaveLength(filled);
  });

  it('finds a scenario named by its id from the cache, and from the file once it changed', async () => {
    const cache = tempDir('oneway-cache-');
    const dir = tempDir('oneway-cache-files-');
    const file = join(dir, 'tiny.yaml');
    writeFileSync(file, TINY);
    const byId = (id: string) => resolveScenarios([id], { cwd: dir, root: dir, cache });
    expect((await byId('tiny')).loaded.map((l) => l.file)).toEqual([file]); // parsed, then cached
    // The id index reads the entry, not the file: an entry that says another id (checksum and all) is what it finds.
    const [name] = entries(cache);
    rewriteEntry(join(cache, 'scenarios', name as string), (b) => Object.assign(b.scenario, { id: 'renamed' }));
    expect((await byId('renamed')).loaded.map((l) => l.scenario.id)).toEqual(['renamed']);
    const miss = await byId('tiny');
    expect(miss.loaded).toEqual([]);
    expect(miss.problems.map((p) => p.message)).toEqual(['unknown scenario id "tiny"']);
    // A changed file is a miss: its id comes from its text again.
    writeFileSync(file, TINY.replace('id: tiny', 'id: tinier'));
    expect((await byId('tinier')).loaded.map((l) => l.scenario.id)).toEqual(['tinier']);
  });

  it('an id lookup leaves an entry for every file of the directory that loads, so the next one parses none', async () => {
    const cache = tempDir('oneway-cache-');
    const dir = tempDir('oneway-cache-files-');
    writeFileSync(join(dir, 'tiny.yaml'), TINY);
    writeFileSync(join(dir, 'other.yaml'), TINY.replace('id: tiny', 'id: other'));
    writeFileSync(join(dir, 'broken.yaml'), 'id: broken\ntools: [\n');
    writeFileSync(join(dir, 'no-goal.yaml'), 'id: no-goal\ntitle: No goal\n');
    const byId = (id: string) => resolveScenarios([id], { cwd: dir, root: dir, cache });
    expect((await byId('other')).loaded.map((l) => l.scenario.id)).toEqual(['other']);
    // tiny.yaml and other.yaml load, so both are stored; the two with problems are not.
    expect(entries(cache)).toHaveLength(2);
    // A file with problems is still found by the id its YAML gives (its problems are then reported),
    // and one whose YAML does not parse by its file name.
    const noGoal = await byId('no-goal');
    expect(noGoal.loaded).toEqual([]);
    expect(noGoal.problems.length).toBeGreaterThan(0);
    expect(noGoal.problems.every((p) => p.file.endsWith('no-goal.yaml'))).toBe(true);
    const broken = await byId('broken');
    expect(broken.problems.length).toBeGreaterThan(0);
    expect(broken.problems.every((p) => p.file.endsWith('broken.yaml'))).toBe(true);
    expect(entries(cache)).toHaveLength(2);
  });

  it('misses when the file changes, and gives the new scenario', async () => {
    const cache = tempDir('oneway-cache-');
    const dir = tempDir('oneway-cache-files-');
    const file = join(dir, 'tiny.yaml');
    writeFileSync(file, TINY);
    expect((await load(dir, cache)).loaded[0]?.scenario.title).toBe('Tiny');
    writeFileSync(file, TINY.replace('title: Tiny', 'title: Smaller'));
    const changed = await load(dir, cache);
    expect(changed.loaded[0]?.scenario.title).toBe('Smaller');
    expect(observed(changed)).toEqual(observed(await load(dir)));
    expect(entries(cache)).toHaveLength(2);
  });

  it('ignores a corrupt entry, loads the file and writes the entry again', async () => {
    const cache = tempDir('oneway-cache-');
    const dir = tempDir('oneway-cache-files-');
    writeFileSync(join(dir, 'tiny.yaml'), TINY);
    const fresh = observed(await load(dir));
    await load(dir, cache);
    const [name] = entries(cache);
    const entry = join(cache, 'scenarios', name ?? '');
    const good = readFileSync(entry, 'utf8');
    const corruptions: [string, string][] = [
      ['truncated', good.slice(0, good.length - 40)],
      ['a changed byte', good.replace('"title":"Tiny"', '"title":"Tinx"')],
      ['empty', ''],
      ['not an entry', '{"scenario":{}}'],
      ['another key', good.replace(/^(\S+) (\S+)/, (_, f: string) => `${f} ${'0'.repeat(64)}`)],
      ['valid JSON, not a scenario entry', `${good.split('\n')[0]}\nnull`],
      ['no scenario, with a checksum that fits', withSum(good, '{"toolLines":{},"scenario":null}')],
    ];
    for (const [what, text] of corruptions) {
      writeFileSync(entry, text);
      expect(observed(await load(dir, cache)), what).toEqual(fresh);
      expect(readFileSync(entry, 'utf8'), what).toBe(good);
    }
  });

  it('never caches a scenario with problems: they are reported with file:line:col every time', async () => {
    const cache = tempDir('oneway-cache-');
    const dir = tempDir('oneway-cache-files-');
    writeFileSync(join(dir, 'ok.yaml'), TINY);
    writeFileSync(
      join(dir, 'wrong.yaml'),
      TINY.replace('id: tiny', 'id: wrong').replace('irreversible', 'irreversable'),
    );
    const fresh = observed(await load(dir));
    expect(fresh.problems).toHaveLength(1);
    expect(fresh.problems[0]).toMatch(/wrong\.yaml:\d+:\d+/);
    expect(observed(await load(dir, cache))).toEqual(fresh);
    expect(observed(await load(dir, cache))).toEqual(fresh);
    expect(entries(cache)).toHaveLength(1);

    // A cached file broken later: the old entry is not its entry.
    writeFileSync(join(dir, 'ok.yaml'), TINY.replace('reversibility: reversible', 'reversibility: revers'));
    const broken = await load(dir, cache);
    expect(broken.loaded).toEqual([]);
    expect(broken.problems.map(formatProblem)).toEqual((await load(dir)).problems.map(formatProblem));
    expect(broken.problems.map((p) => [p.file.endsWith('ok.yaml'), p.line > 1, p.col > 1])).toContainEqual([
      true,
      true,
      true,
    ]);
  });

  it('loads as usual when the cache cannot be written', async () => {
    const dir = tempDir('oneway-cache-files-');
    writeFileSync(join(dir, 'tiny.yaml'), TINY);
    const notADir = join(tempDir('oneway-cache-'), 'file');
    writeFileSync(notADir, 'x');
    const r = loadScenarioCached(TINY, 'tiny.yaml', notADir);
    expect(r.ok).toBe(true);
    expect(observed(await load(dir, notADir))).toEqual(observed(await load(dir)));
  });

  it('keys entries by the code that loads them: every module it imports, and the packages', () => {
    const own = join(REPO, 'harness/engine/loader/scenario-cache.ts');
    const { files, packages } = importClosure(own);
    const rel = files.map((f) => f.slice(REPO.length + 1));
    for (const f of [
      'harness/engine/loader/load.ts',
      'harness/engine/loader/yaml-source.ts',
      'harness/engine/loader/semantics.ts',
      'harness/core/scenario.ts',
      'harness/domain/rules/arguments.ts',
    ])
      expect(rel).toContain(f);
    expect(packages).toEqual(expect.arrayContaining(['ajv', 'yaml', 'zod']));

    const tree = tempDir('oneway-cache-code-');
    writeFileSync(
      join(tree, 'a.js'),
      "import { b } from './b.js';\nimport type { T } from './t.js';\nexport const a = b;\n",
    );
    writeFileSync(join(tree, 'b.js'), "export { c } from './c.js';\nexport const b = 1;\n");
    writeFileSync(join(tree, 'c.js'), 'export const c = 1;\n');
    writeFileSync(join(tree, 't.js'), 'export type T = 1;\n');
    writeFileSync(join(tree, 'other.js'), 'export const o = 1;\n');
    const before = codeVersion(join(tree, 'a.js'));
    expect(before).toMatch(/^[0-9a-f]{64}$/);
    writeFileSync(join(tree, 'other.js'), 'export const o = 2;\n');
    writeFileSync(join(tree, 't.js'), 'export type T = 2;\n');
    expect(codeVersion(join(tree, 'a.js'))).toBe(before);
    writeFileSync(join(tree, 'c.js'), 'export const c = 2;\n');
    expect(codeVersion(join(tree, 'a.js'))).not.toBe(before);
  });

  it('stores only what JSON gives back exactly', () => {
    expect(exactlyJson({ a: [1, 'x', true, null, { b: 2.5 }], c: {} })).toBe(true);
    const shared = { x: 1 };
    const notJson: unknown[] = [
      { a: undefined },
      { a: -0 },
      { a: Infinity },
      { a: NaN },
      { a: new Date(0) },
      { a: new Map() },
      [1, , 3], // eslint-disable-line no-sparse-arrays
      { a: shared, b: shared },
      { a: () => 1 },
      { a: 1n },
      Object.create(null) as object,
    ];
    notJson.forEach((v, i) => expect(exactlyJson(v), `case ${i}`).toBe(false));
  });

  it('keeps at most so many entries: the oldest written go first', () => {
    const dir = tempDir('oneway-cache-prune-');
    for (let i = 0; i < 12; i++) {
      writeFileSync(join(dir, `${i}.json`), '');
      utimesSync(join(dir, `${i}.json`), 1000 + i, 1000 + i);
    }
    prune(dir, 12);
    expect(readdirSync(dir)).toHaveLength(12);
    writeFileSync(join(dir, '.0.json.123.1.tmp'), ''); // a killed process's temporary file, the oldest
    utimesSync(join(dir, '.0.json.123.1.tmp'), 999, 999);
    prune(dir, 10);
    expect(readdirSync(dir).sort()).toEqual(['10.json', '11.json', '7.json', '8.json', '9.json']); // 13 files, 5 kept
  });
});

describe('where commands keep the cache', () => {
  it('node_modules/.cache/oneway in the project; ONEWAY_CACHE_DIR; none with ONEWAY_CACHE=off or outside a project', () => {
    const project = tempDir('oneway-cache-project-');
    const sub = join(project, 'a', 'b');
    mkdirSync(sub, { recursive: true });
    expect(scenarioCache({ cwd: sub, env: {} })).toBeUndefined(); // no package.json above
    writeFileSync(join(project, 'package.json'), '{}');
    expect(scenarioCache({ cwd: sub, env: {} })).toBeUndefined(); // no node_modules: none made
    mkdirSync(join(project, 'node_modules'));
    expect(scenarioCache({ cwd: sub, env: {} })).toBe(join(project, 'node_modules', '.cache', 'oneway'));
    expect(scenarioCache({ cwd: sub, env: { ONEWAY_CACHE_DIR: 'c' } })).toBe(join(sub, 'c'));
    for (const off of ['off', 'OFF', '0', 'false', 'no'])
      expect(scenarioCache({ cwd: sub, env: { ONEWAY_CACHE: off, ONEWAY_CACHE_DIR: 'c' } })).toBeUndefined();
    rmSync(project, { recursive: true, force: true });
  });

  it('eval --list of two copies of scenarios: the second are duplicates, at their own `id:` line, from the cache too', async () => {
    const cache = tempDir('oneway-cache-');
    const dir = tempDir('oneway-cache-files-');
    cpSync(join(BUNDLED, 'billing'), join(dir, 'billing'), { recursive: true });
    cpSync(join(BUNDLED, 'billing'), join(dir, 'twice'), { recursive: true });
    const env = { NO_COLOR: '1', ONEWAY_CACHE_DIR: cache };
    const r = await runCli(main, ['--list', `--scenario=${dir}`], dir, env);
    // The same ids twice: the second copies are reported as duplicates, at their own file's `id:` line.
    expect(r.code).toBe(2);
    const again = await runCli(main, ['--list', `--scenario=${dir}`], dir, env);
    expect(again).toEqual(r);
    const file = 'invoice-and-notify.yaml';
    const line =
      readFileSync(join(dir, 'twice', file), 'utf8')
        .split('\n')
        .indexOf('id: invoice-and-notify') + 1;
    expect(line).toBeGreaterThan(1);
    expect(r.stderr).toContain(
      `twice/${file}:${line}:5 error [duplicate] id: scenario id "invoice-and-notify" is also used by billing/${file}`,
    );
  });
});
