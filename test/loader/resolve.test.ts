import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { globToRegExp } from '../../harness/engine/loader/glob.ts';
import { resolveScenarios } from '../../harness/engine/loader/resolve.ts';
import { TINY } from './helpers.ts';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
let tmp: string;
let root: string;
let work: string;

const scenario = (id: string) => TINY.replace('id: tiny', `id: ${id}`);
function put(path: string, text: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

beforeAll(() => {
  // Everything lives in the OS temp dir: outside the repo, as user scenarios may.
  tmp = mkdtempSync(join(tmpdir(), 'oneway-resolve-'));
  root = join(tmp, 'bundled');
  put(join(root, 'billing', 'invoice.yaml'), scenario('invoice-and-notify'));
  put(join(root, 'ops', 'purge.yml'), scenario('purge-accounts'));
  put(join(root, 'README.md'), '# not a scenario\n');
  put(join(root, 'broken.yaml'), 'id: broken\ntitle: [\n');
  work = join(tmp, 'work');
  put(join(work, 'mine', 'a.yaml'), scenario('alpha'));
  put(join(work, 'mine', 'nested', 'b.yaml'), scenario('beta'));
  put(join(work, 'mine', 'c.json'), JSON.stringify({ ...JSON.parse(JSON.stringify(parseTinyAsJson())), id: 'gamma' }));
  put(join(work, 'mine', 'notes.txt'), 'hello');
  put(join(work, 'dups', 'one.yaml'), scenario('twin'));
  put(join(work, 'dups', 'two.yaml'), scenario('twin'));
  put(join(work, 'bad', 'ok.yaml'), scenario('fine'));
  // A domain folder as an import writes it: its scenarios, and plans beside them (lists of calls).
  put(join(work, 'domain', 'tasks', 'planned.yaml'), scenario('planned'));
  put(join(work, 'domain', 'plans', 'planned.gold.yaml'), '# the gold actions\n- verify: {}\n- finish\n');
  put(join(work, 'domain', 'plans', 'planned.wrapped.yaml'), 'plan:\n  - finish\n');
  put(join(work, 'domain', 'two-scenarios.yaml'), `- ${scenario('one').trim().replace(/\n/g, '\n  ')}\n`);
  put(
    join(work, 'bad', 'wrong.yaml'),
    scenario('wrong').replace('reversibility: irreversible', 'reversibility: irreversable'),
  );
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function parseTinyAsJson(): Record<string, unknown> {
  return {
    id: 'tiny',
    title: 'Tiny',
    task: 'Email bob.',
    tools: [{ name: 'verify', reversibility: 'reversible', read_only: true }],
    goal: ['done'],
  };
}

const ids = (r: Awaited<ReturnType<typeof resolveScenarios>>) => r.loaded.map((l) => l.scenario.id);

describe('resolving scenario specs', () => {
  it('finds a scenario by id under the bundled root', async () => {
    const r = await resolveScenarios(['purge-accounts'], { cwd: work, root });
    expect(r.problems).toEqual([]);
    expect(ids(r)).toEqual(['purge-accounts']);
    expect(r.loaded[0]?.file).toBe(join(root, 'ops', 'purge.yml'));
  });

  it('loads a file given relative to cwd or absolute, outside the repo', async () => {
    const r = await resolveScenarios(['mine/a.yaml', join(work, 'mine', 'c.json')], { cwd: work, root });
    expect(r.problems).toEqual([]);
    expect(ids(r)).toEqual(['alpha', 'gamma']);
    expect(r.loaded[0]?.file).toBe(join(work, 'mine', 'a.yaml'));
  });

  it('loads every .yaml and .yml file below a directory', async () => {
    const r = await resolveScenarios(['mine'], { cwd: work, root });
    expect(r.problems).toEqual([]);
    expect(ids(r)).toEqual(['alpha', 'beta']);
  });

  it('expands globs, including ** and braces', async () => {
    expect(ids(await resolveScenarios(['mine/**/*.yaml'], { cwd: work, root }))).toEqual(['alpha', 'beta']);
    expect(ids(await resolveScenarios(['mine/*.{yaml,json}'], { cwd: work, root }))).toEqual(['alpha', 'gamma']);
    expect(ids(await resolveScenarios([join(root, '*/*.{yaml,yml}')], { cwd: work, root }))).toEqual([
      'invoice-and-notify',
      'purge-accounts',
    ]);
  });

  it('reports a glob that matches nothing', async () => {
    const r = await resolveScenarios(['mine/*.toml'], { cwd: work, root });
    expect(r.problems).toMatchObject([{ code: 'spec', path: 'mine/*.toml' }]);
  });

  it('reports an unknown id with the closest known id', async () => {
    const r = await resolveScenarios(['purge-acounts'], { cwd: work, root });
    expect(r.loaded).toEqual([]);
    expect(r.problems).toMatchObject([
      {
        code: 'spec',
        message: 'unknown scenario id "purge-acounts"',
        hint: expect.stringMatching(/^did you mean "purge-accounts"\?/),
      },
    ]);
  });

  it('finds ids in directories also given, and reports a broken file found by its name', async () => {
    const r = await resolveScenarios(['mine', 'beta'], { cwd: work, root });
    expect(ids(r)).toEqual(['alpha', 'beta']);
    const b = await resolveScenarios(['broken'], { cwd: work, root });
    expect(b.loaded).toEqual([]);
    expect(b.problems).toMatchObject([{ code: 'yaml_syntax', file: join(root, 'broken.yaml') }]);
  });

  it('reports a duplicate id naming both files, and keeps the first', async () => {
    const r = await resolveScenarios(['dups'], { cwd: work, root });
    expect(r.loaded.map((l) => l.file)).toEqual([join(work, 'dups', 'one.yaml')]);
    expect(r.problems).toMatchObject([
      {
        code: 'duplicate',
        file: join('dups', 'two.yaml'),
        line: 1,
        col: 5,
        message: `scenario id "twin" is also used by ${join('dups', 'one.yaml')}`,
      },
    ]);
  });

  it('loads a file listed twice (by path, id and directory) once', async () => {
    const r = await resolveScenarios(['mine/a.yaml', './mine/a.yaml', 'alpha', 'mine'], { cwd: work, root });
    expect(r.problems).toEqual([]);
    expect(ids(r)).toEqual(['alpha', 'beta']);
  });

  it('loads the good files of a directory and reports the bad ones', async () => {
    const r = await resolveScenarios(['bad'], { cwd: work, root });
    expect(ids(r)).toEqual(['fine']);
    expect(r.problems).toMatchObject([{ code: 'invalid_enum', file: join('bad', 'wrong.yaml'), line: 14, col: 20 }]);
  });

  it('returns scenarios sorted by id whatever the order of the specs', async () => {
    const r = await resolveScenarios(['mine/nested/b.yaml', 'purge-accounts', 'mine/a.yaml', 'invoice-and-notify'], {
      cwd: work,
      root,
    });
    expect(ids(r)).toEqual(['alpha', 'beta', 'invoice-and-notify', 'purge-accounts']);
  });

  it('reports a path that does not exist and a file that is not a scenario', async () => {
    const r = await resolveScenarios(['mine/zz.yaml', 'mine/notes.txt'], { cwd: work, root });
    expect(r.problems.map((p) => [p.code, p.path])).toEqual([
      ['spec', 'mine/zz.yaml'],
      ['spec', 'mine/notes.txt'],
    ]);
  });

  it('leaves the plans of a directory out (a list of calls, or plan: [...]); a plan named is one problem saying so', async () => {
    const r = await resolveScenarios(['domain'], { cwd: work, root });
    expect(ids(r)).toEqual(['planned']);
    expect(r.plans).toEqual([
      join(work, 'domain', 'plans', 'planned.gold.yaml'),
      join(work, 'domain', 'plans', 'planned.wrapped.yaml'),
    ]);
    // A list that is no plan is still a scenario file's problem (scenarios written as a list).
    expect(r.problems).toMatchObject([
      { code: 'schema', file: join('domain', 'two-scenarios.yaml'), hint: expect.stringContaining('its own file') },
    ]);

    const named = await resolveScenarios([join('domain', 'plans', 'planned.gold.yaml')], { cwd: work, root });
    expect(named.loaded).toEqual([]);
    expect(named.problems).toEqual([
      {
        code: 'plan',
        file: join('domain', 'plans', 'planned.gold.yaml'),
        line: 1,
        col: 1,
        path: '(root)',
        message: 'this file is a plan (a list of calls), not a scenario',
        hint: expect.stringContaining('--plan=FILE'),
      },
    ]);
  });

  it('loads every bundled scenario of the repository without problems', async () => {
    const r = await resolveScenarios(['scenarios'], { cwd: REPO, root: join(REPO, 'scenarios') });
    expect(r.problems).toEqual([]);
    expect(r.loaded.length).toBeGreaterThan(0);
  });
});

describe('glob patterns', () => {
  it('match * within a directory, ** across directories, ? [] and {}', () => {
    expect(globToRegExp('*.yaml').test('a.yaml')).toBe(true);
    expect(globToRegExp('*.yaml').test('x/a.yaml')).toBe(false);
    expect(globToRegExp('**/*.yaml').test('a.yaml')).toBe(true);
    expect(globToRegExp('**/*.yaml').test('x/y/a.yaml')).toBe(true);
    expect(globToRegExp('a?.y[am]ml').test('ab.yaml')).toBe(true);
    expect(globToRegExp('[!a]*.yaml').test('a.yaml')).toBe(false);
    expect(globToRegExp('{x,y}/*.yaml').test('y/a.yaml')).toBe(true);
    expect(globToRegExp('{x,y}/*.yaml').test('z/a.yaml')).toBe(false);
  });
});
