/**
 * Turns `--scenario` specs into loaded scenarios. A spec is a file, a directory
 * (every .yaml/.yml below it), a glob, or a scenario id (looked up in the bundled
 * scenarios and in any directory also given). Paths may lie outside the repo.
 * One bad file never stops the others: its problems are returned beside the
 * scenarios that loaded.
 */
import { createHash } from 'node:crypto';
import { realpath, stat } from 'node:fs/promises';
import { extname, basename, dirname, isAbsolute, relative, resolve } from 'node:path';
import type { Problem } from '../../core/errors.ts';
import { didYouMean, joinHints } from '../../util/did-you-mean.ts';
import { glob, hasMagic, walk } from './glob.ts';
import { loadPlanText, loadScenarioText, readSource, type LoadedScenario } from './load.ts';
import { loadScenarioCached } from './scenario-cache.ts';
import { parseYamlSource } from './yaml-source.ts';

export interface ResolveOptions {
  /** Relative specs start here. */
  cwd: string;
  /** The bundled scenarios directory, searched for ids. */
  root: string;
  /** A directory for the cache of loaded scenarios (scenario-cache.ts); without it, every file is loaded afresh. */
  cache?: string;
}

export interface Resolved {
  /** Sorted by id; each `file` is an absolute path. */
  loaded: LoadedScenario[];
  /** Problems of the specs and of the files that did not load (files named relative to cwd when inside it). */
  problems: Problem[];
  /**
   * The files left out as shared files (what scenarios extend: tools, world and confirmations, no
   * id), absolute and sorted: a tools block the guard enforces looks the same, and lint reads it.
   */
  shared: string[];
  /**
   * The files of a directory or glob left out as plans (a list of calls, as `eval --plan` takes
   * them: an import writes its gold and reference plans beside its scenarios), absolute and sorted.
   */
  plans: string[];
}

const SCENARIO_EXT = new Set(['.yaml', '.yml', '.json']);
const DIR_EXT = new Set(['.yaml', '.yml']);
const ID_LIKE = /^[A-Za-z0-9_-]+$/;

/**
 * Resolves scenario specs (already split on commas).
 *
 * @example
 * const { loaded, problems } = await resolveScenarios(['invoice-and-notify', 'my/*.yaml'], { cwd: process.cwd(), root: 'scenarios' });
 */
export async function resolveScenarios(specs: string[], opts: ResolveOptions): Promise<Resolved> {
  const problems: Problem[] = [];
  const files = new Map<string, string>(); // real path -> absolute path as found
  const searchDirs: string[] = [resolve(opts.cwd, opts.root)];
  const ids: string[] = [];
  const display = (abs: string) => displayPath(abs, opts.cwd);

  const addFile = async (abs: string) => {
    const real = await realpath(abs).catch(() => abs);
    if (!files.has(real)) files.set(real, abs);
  };
  const addDir = async (abs: string, spec: string, quiet = false) => {
    const found = (await walk(abs)).filter((e) => !e.dir && DIR_EXT.has(extname(e.path).toLowerCase()));
    if (found.length === 0 && !quiet)
      problems.push(specProblem(spec, `the directory ${display(abs)} holds no .yaml or .yml files`));
    for (const e of found) await addFile(e.path);
    searchDirs.push(abs);
  };

  // Files named one by one: never skipped as shared files (a tools block looks like one, and a shared
  // file named to run or lint is a problem to show, not to pass over).
  const named = new Set<string>();
  for (const raw of specs) {
    const spec = raw.trim();
    if (spec === '') continue;
    const abs = resolve(opts.cwd, spec);
    const st = await stat(abs).catch(() => undefined);
    if (st?.isDirectory()) {
      await addDir(abs, spec);
    } else if (st?.isFile()) {
      if (SCENARIO_EXT.has(extname(abs).toLowerCase())) {
        await addFile(abs);
        named.add(abs);
      } else
        problems.push(
          specProblem(spec, `${display(abs)} is not a scenario file`, 'scenario files end in .yaml, .yml or .json'),
        );
    } else if (hasMagic(spec)) {
      const matches = await glob(spec, opts.cwd);
      const before = files.size;
      for (const m of matches) {
        if (m.dir) {
          if (!matches.some((o) => o !== m && !o.dir && o.path.startsWith(`${m.path}/`)))
            await addDir(m.path, spec, true);
        } else if (SCENARIO_EXT.has(extname(m.path).toLowerCase())) await addFile(m.path);
      }
      if (files.size === before) {
        problems.push(
          specProblem(
            spec,
            `no scenario file matches "${spec}"`,
            'globs are relative to the current directory; scenario files end in .yaml, .yml or .json',
          ),
        );
      }
    } else if (ID_LIKE.test(spec)) {
      ids.push(spec);
    } else {
      problems.push(specProblem(spec, `no such file or directory: ${spec}`, `looked at ${abs}`));
    }
  }

  if (ids.length > 0) {
    const index = await indexIds(searchDirs, opts.cache);
    for (const id of ids) {
      const hits = index.byId.get(id);
      if (hits && hits.length > 0) {
        for (const h of hits) await addFile(h);
        continue;
      }
      const known = [...index.byId.keys()].sort();
      problems.push(
        specProblem(
          id,
          `unknown scenario id "${id}"`,
          joinHints(
            didYouMean(id, known),
            known.length
              ? `known ids: ${known.slice(0, 12).join(', ')}${known.length > 12 ? ', ...' : ''}`
              : `no scenarios found under ${display(searchDirs[0] ?? opts.root)}`,
            'or give a file, directory or glob',
          ),
        ),
      );
    }
  }

  const loaded: LoadedScenario[] = [];
  const shared: string[] = [];
  const plans: string[] = [];
  const sortedFiles = [...files.values()].sort();
  for (const abs of sortedFiles) {
    const shown = display(abs);
    const text = readSource(abs);
    if (!text.ok) {
      problems.push(...text.problems.map((p) => ({ ...p, file: shown })));
      continue;
    }
    const r = opts.cache
      ? loadScenarioCached(text.value, shown, opts.cache, dirname(abs))
      : loadScenarioText(text.value, shown, dirname(abs));
    // A shared file (what scenarios extend) is not a scenario: it is loaded with the scenarios that extend it.
    if (!r.ok && !named.has(abs) && isSharedFile(text.value, shown)) {
      shared.push(abs);
      continue;
    }
    // Nor is a plan: left out of a directory, and named, one problem that says what it is.
    const plan = r.ok ? undefined : planNotScenario(text.value, shown);
    if (plan) {
      if (named.has(abs)) problems.push(plan);
      else plans.push(abs);
      continue;
    }
    if (!r.ok) problems.push(...r.problems);
    else loaded.push({ ...r.value, file: abs });
  }

  // The same id in two files: keep the first (by path), report the others.
  const firstById = new Map<string, LoadedScenario>();
  const unique: LoadedScenario[] = [];
  for (const l of loaded) {
    const first = firstById.get(l.scenario.id);
    if (!first) {
      firstById.set(l.scenario.id, l);
      unique.push(l);
      continue;
    }
    const pos = l.locate(['id']);
    problems.push({
      code: 'duplicate',
      file: display(l.file),
      ...pos,
      path: 'id',
      message: `scenario id "${l.scenario.id}" is also used by ${display(first.file)}`,
      hint: `ids are unique across the scenarios of one evaluation; ${display(l.file)} was skipped`,
    });
  }

  unique.sort((a, b) =>
    a.scenario.id < b.scenario.id ? -1 : a.scenario.id > b.scenario.id ? 1 : a.file < b.file ? -1 : 1,
  );
  return { loaded: unique, problems, shared, plans };
}

/** Scenario ids found under directories: the `id` of each parseable file, else its file name. */
async function indexIds(dirs: string[], cache: string | undefined): Promise<{ byId: Map<string, string[]> }> {
  const byId = new Map<string, string[]>();
  const seen = new Set<string>();
  for (const dir of dirs) {
    const st = await stat(dir).catch(() => undefined);
    if (!st?.isDirectory()) continue;
    for (const e of await walk(dir)) {
      if (e.dir || !DIR_EXT.has(extname(e.path).toLowerCase()) || seen.has(e.path)) continue;
      seen.add(e.path);
      const id = readId(e.path, cache) ?? basename(e.path, extname(e.path));
      const list = byId.get(id) ?? [];
      list.push(e.path);
      byId.set(id, list);
    }
  }
  return { byId };
}

/**
 * A file's `id`. With a cache of loaded scenarios, the file is loaded through it: an entry gives the
 * id without parsing, and a miss leaves an entry, so the next lookup in any process parses nothing
 * (an id lookup used to parse every scenario file of the directory on every command). A file that
 * does not load, or with no cache, gives the `id` of its parsed YAML.
 */
function readId(file: string, cache: string | undefined): string | undefined {
  const text = readSource(file);
  if (!text.ok) return undefined;
  if (cache !== undefined) {
    const loaded = loadScenarioCached(text.value, file, cache);
    if (loaded.ok) return loaded.value.scenario.id;
  }
  return parsedId(text.value, file);
}

/**
 * Ids parsed in this process, by a SHA-256 of the file's text (an id is a function of the text
 * alone). Bounded, so a long `eval --watch` over edited files does not keep every version it saw.
 */
const parsedIds = new Map<string, string | undefined>();
const PARSED_IDS_KEPT = 4096;

/** The top-level `id` of a file's YAML, if it is a string. */
function parsedId(text: string, file: string): string | undefined {
  const key = createHash('sha256').update(text).digest('hex');
  if (parsedIds.has(key)) return parsedIds.get(key);
  const src = parseYamlSource(text, file);
  const v = src.ok ? src.value.value : undefined;
  const raw = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>).id : undefined;
  const id = typeof raw === 'string' ? raw : undefined;
  if (parsedIds.size >= PARSED_IDS_KEPT) parsedIds.clear();
  parsedIds.set(key, id);
  return id;
}

function specProblem(spec: string, message: string, hint?: string): Problem {
  return { code: 'spec', file: '--scenario', line: 0, col: 0, path: spec, message, ...(hint ? { hint } : {}) };
}

/** A path relative to cwd when it lies inside it, else absolute. */
export function displayPath(abs: string, cwd: string): string {
  const rel = relative(cwd, abs);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : abs;
}

/**
 * The problem of a plan file (a list of calls, as `eval --plan` takes it) read where a scenario is
 * expected, or undefined when the text is no plan: one problem that says what the file is, instead
 * of the scenario fields a list lacks.
 */
export function planNotScenario(text: string, file: string): Problem | undefined {
  if (!loadPlanText(text, file).ok) return undefined;
  return {
    code: 'plan',
    file,
    line: 1,
    col: 1,
    path: '(root)',
    message: 'this file is a plan (a list of calls), not a scenario',
    hint: 'replay it with oneway eval --planner=scripted --plan=FILE --scenario=<the scenario it was written for>; a directory of scenarios leaves its plans out',
  };
}

/** Whether a file is a shared file (extends.ts): a mapping of tools, world and confirmations only, with no id. */
function isSharedFile(text: string, file: string): boolean {
  const src = parseYamlSource(text, file);
  if (!src.ok) return false;
  const doc = src.value.value;
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return false;
  const keys = Object.keys(doc);
  return keys.length > 0 && keys.every((k) => k === 'tools' || k === 'world' || k === 'confirmations');
}
