/**
 * A cache of loaded scenarios on disk, so that a scenario file that has not changed is not parsed,
 * validated and checked again by every command (`oneway eval --list` spent three quarters of its
 * time doing that for the bundled scenarios).
 *
 * An entry is keyed by a SHA-256 of the file's text and of the code that loads it: the source of
 * every module this one imports, transitively (read at start-up, so an edited loader, schema or rule
 * never meets an entry made by the old one), the versions of the packages they import (yaml, zod,
 * ajv), oneway's and Node's versions. A different key is a different entry; an entry whose checksum
 * does not match its content, or that cannot be read, is ignored and written again.
 *
 * Only scenarios that loaded are stored: a file with problems is loaded afresh every time, so its
 * problems are found and reported (file:line:col) as without a cache. A stored scenario is kept as
 * JSON, so only a scenario that JSON gives back exactly is stored (plain data, no shared objects).
 * Positions (`locate`) are not stored: the text is parsed again the first time one is asked for.
 *
 * Writes are best effort (a read-only directory just means no cache): a temporary file renamed
 * over the entry, so a reader sees a whole entry or none. The directory keeps at most MAX_ENTRIES
 * entries; past that, the oldest written are removed.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Result } from '../../core/errors.ts';
import type { Scenario } from '../../core/scenario.ts';
import { moduleImports } from '../../util/module-imports.ts';
import { packageVersion } from '../../util/package-root.ts';
import { loadScenarioText, locator, type LoadedScenario } from './load.ts';

/** The first word of every entry; a new layout of entries changes it. */
const FORMAT = 'oneway-scenario-cache/1';
const MAX_ENTRIES = 5000;

/** What an entry holds besides its header line. */
interface Stored {
  toolLines: Record<string, number>;
  scenario: Scenario;
}

/**
 * Loads a scenario from its text as `loadScenarioText` does, through the cache in `dir`: the same
 * scenario, tool lines, positions and problems.
 *
 * @example
 * const r = loadScenarioCached(readFileSync(file, 'utf8'), file, 'node_modules/.cache/oneway');
 */
export function loadScenarioCached(text: string, file: string, dir: string, baseDir?: string): Result<LoadedScenario> {
  // A scenario that extends shared files depends on their text too: loaded afresh (they are parsed once per process).
  if (/^extends\s*:/m.test(text)) return loadScenarioText(text, file, baseDir);
  const { key, entry } = entryFor(text, dir);
  const hit = readEntry(entry, key);
  if (hit) return { ok: true, value: { ...hit, file, locate: locator(text, file) } };
  const r = loadScenarioText(text, file);
  if (r.ok && exactlyJson(r.value.scenario) && exactlyJson(r.value.toolLines))
    writeEntry(entry, key, { toolLines: r.value.toolLines, scenario: r.value.scenario });
  return r;
}

function entryFor(text: string, dir: string): { key: string; entry: string } {
  const key = createHash('sha256').update(loaderVersion()).update('\0').update(text).digest('hex');
  return { key, entry: join(dir, 'scenarios', `${key}.json`) };
}

function readEntry(path: string, key: string): Stored | undefined {
  try {
    const text = readFileSync(path, 'utf8');
    const nl = text.indexOf('\n');
    const [format, k, sum] = text.slice(0, nl).split(' ');
    const body = text.slice(nl + 1);
    if (nl < 0 || format !== FORMAT || k !== key || sum !== sha256(body)) return undefined;
    const stored = JSON.parse(body) as Partial<Stored> | null;
    if (typeof stored?.scenario !== 'object' || stored.scenario === null) return undefined;
    if (typeof stored.toolLines !== 'object' || stored.toolLines === null) return undefined;
    return stored as Stored;
  } catch {
    return undefined; // no entry, or one that cannot be read: load the file
  }
}

/** Directories this process could not write to: tried once, then left alone. */
const unwritable = new Set<string>();
/** Directories this process has made sure exist, and pruned. */
const ready = new Set<string>();
let counter = 0;

function writeEntry(path: string, key: string, stored: Stored): void {
  const dir = dirname(path);
  if (unwritable.has(dir)) return;
  const tmp = join(dir, `.${key}.${process.pid}.${++counter}.tmp`);
  try {
    if (!ready.has(dir)) {
      mkdirSync(dir, { recursive: true });
      prune(dir);
      ready.add(dir);
    }
    const body = JSON.stringify(stored);
    writeFileSync(tmp, `${FORMAT} ${key} ${sha256(body)}\n${body}`);
    renameSync(tmp, path);
  } catch {
    unwritable.add(dir);
    try {
      unlinkSync(tmp);
    } catch {
      /* never written */
    }
  }
}

/** Past `max` files (entries, and temporary files of killed processes), removes the oldest until half are left. */
export function prune(dir: string, max = MAX_ENTRIES): void {
  const names = readdirSync(dir);
  if (names.length <= max) return;
  const aged = names.map((n) => {
    try {
      return { n, t: statSync(join(dir, n)).mtimeMs };
    } catch {
      return { n, t: 0 };
    }
  });
  aged.sort((a, b) => a.t - b.t);
  for (const { n } of aged.slice(0, names.length - Math.floor(max / 2))) {
    try {
      unlinkSync(join(dir, n));
    } catch {
      /* another process removed it */
    }
  }
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Whether `JSON.parse(JSON.stringify(v))` is `v` again: strings, finite numbers (not -0), booleans,
 * null, arrays without holes and plain objects without undefined values, each object reached once
 * (a YAML alias shares one object; JSON would make copies).
 */
export function exactlyJson(v: unknown, seen = new Set<object>()): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0);
  if (typeof v !== 'object' || seen.has(v)) return false;
  seen.add(v);
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!(i in v) || !exactlyJson(v[i], seen)) return false;
    return true;
  }
  if (Object.getPrototypeOf(v) !== Object.prototype) return false;
  for (const k of Object.keys(v)) {
    const x = (v as Record<string, unknown>)[k];
    if (x === undefined || !exactlyJson(x, seen)) return false;
  }
  return true;
}

let version: string | undefined;

/** What loading depends on besides the text: this module's code and all it imports, package and Node versions. */
function loaderVersion(): string {
  version ??= codeVersion(fileURLToPath(import.meta.url));
  return version;
}

/**
 * A hash of the code `start` runs: its source and that of every module it imports, transitively, the
 * installed versions of the packages they import, oneway's and Node's versions, and the cache's format.
 */
export function codeVersion(start: string): string {
  const hash = createHash('sha256').update(`${FORMAT}\n${process.version}\noneway@${packageVersion()}\n`);
  const { files, packages } = importClosure(start);
  for (const f of files) {
    hash.update(`\n${basename(f)}\n`);
    try {
      hash.update(readFileSync(f));
    } catch {
      hash.update('(unreadable)');
    }
  }
  for (const p of packages) hash.update(`\n${p}@${installedVersion(p, dirname(start))}`);
  return hash.digest('hex');
}

/** The files `start` imports, transitively (its own included, sorted), and the packages they import (util/module-imports.ts). */
export function importClosure(start: string): { files: string[]; packages: string[] } {
  const { files, packages } = moduleImports(start);
  return { files: files.sort(), packages: packages.sort() };
}

/** A package's version as Node would find it from `from` (node_modules upward), or "missing". */
function installedVersion(name: string, from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    try {
      return String(
        (JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')) as { version?: unknown })
          .version,
      );
    } catch {
      if (dirname(dir) === dir) return 'missing';
    }
  }
}
