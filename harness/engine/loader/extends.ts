/**
 * Shared files: a scenario's `extends: [../shared/retail.yaml]` (paths relative to the scenario)
 * brings in the `tools:`, `world:` and `confirmations:` of shared files, so many scenarios can use
 * one domain (a shop's tools and its database) without copying it.
 *
 * The merge, in order: each shared file in the order `extends` lists them, then the scenario.
 * - tools: by name. A later definition of a name replaces the earlier one where it stood; a new
 *   name is added at the end. (The scenario's own tools replace shared ones of the same name.)
 * - world.tables: by table name, a later table replaces the earlier one whole (rows are not merged).
 * - world.facts: every file's facts, in order, each fact once.
 * - confirmations: every file's, in order.
 *
 * Each shared file is read under the same 2 MiB limit as a scenario, validated on its own (its
 * problems are located in it), and parsed once per process for the same path and content (cached
 * by path and content hash). A shared file does not extend another. A problem the whole-scenario
 * checks find in a part that came from a shared file is located in that file.
 */
import { createHash } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import type { Problem, Result } from '../../core/errors.ts';
import { SharedFile, type Scenario } from '../../core/scenario.ts';
import { deepFreeze } from '../../util/json.ts';
import { schemaProblems } from './schema-problems.ts';
import { parseYamlSource, type FieldPath, type Pos, type YamlSource } from './yaml-source.ts';

/** Where a merged part came from: its file's source and its place there. */
interface Origin {
  src: YamlSource;
  path: FieldPath;
}

const parsedShared = new Map<string, Result<YamlSource>>();

/** A shared file parsed and validated, once per path and content. */
function sharedSource(path: string, text: string): Result<YamlSource> {
  const key = `${path}\u0000${createHash('sha256').update(text).digest('hex')}`;
  let r = parsedShared.get(key);
  if (r) return r;
  const src = parseYamlSource(text, path);
  if (!src.ok) r = src;
  else {
    const parsed = SharedFile.safeParse(src.value.value, { reportInput: true });
    r = parsed.success
      ? src
      : { ok: false, problems: schemaProblems(parsed.error.issues, src.value, { schema: SharedFile }) };
  }
  if (parsedShared.size > 256) parsedShared.clear();
  parsedShared.set(key, r);
  return r;
}

/** Of a merged source, the shared file each of its tables came from (those the scenario did not replace). */
const tableOrigins = new WeakMap<YamlSource, Map<string, YamlSource>>();
/** Of a shared file's source, its tables as the first scenario that used them parsed them: one copy for all. */
const parsedTables = new WeakMap<YamlSource, Map<string, unknown[]>>();

/**
 * Makes the tables a loaded scenario took from shared files the same (deep-frozen) arrays for every
 * scenario that takes them: a domain's database is parsed per scenario, but kept once.
 */
export function shareTables(scenario: Scenario, merged: YamlSource): void {
  const origins = tableOrigins.get(merged);
  if (!origins) return;
  for (const [name, shared] of origins) {
    const rows = scenario.world.tables[name];
    if (!rows) continue;
    let byName = parsedTables.get(shared);
    if (!byName) parsedTables.set(shared, (byName = new Map()));
    const kept = byName.get(name) as typeof rows | undefined;
    if (kept) scenario.world.tables[name] = kept;
    else byName.set(name, deepFreeze(rows));
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The scenario source with its shared files merged in, and a `locate` that points into the file
 * each part came from; the source itself when it extends nothing.
 *
 * @example
 * const merged = withShared(src, readSource); // src.value.extends: ['../shared/retail.yaml']
 */
export function withShared(
  src: YamlSource,
  readSource: (path: string) => Result<string>,
  /** The directory `extends` paths are relative to: the scenario file's (default: from its name). */
  baseDir = dirname(src.file),
): Result<YamlSource> {
  const doc = src.value;
  if (!isObject(doc) || doc.extends === undefined) return { ok: true, value: src };
  const list = typeof doc.extends === 'string' ? [doc.extends] : doc.extends;
  if (!Array.isArray(list) || !list.every((x): x is string => typeof x === 'string')) {
    // The schema reports the shape of `extends`.
    return { ok: true, value: src };
  }
  const problems: Problem[] = [];
  const shared: YamlSource[] = [];
  list.forEach((rel, k) => {
    const abs = resolve(baseDir, rel);
    const text = readSource(abs);
    if (!text.ok) {
      const pos = src.locate(['extends', k]);
      problems.push(
        ...text.problems.map((p) => ({
          ...p,
          file: src.file,
          ...pos,
          path: `extends[${k}]`,
          message: `the shared file ${rel}: ${p.message}`,
          hint: `paths in extends are relative to the scenario file's directory (${baseDir})`,
        })),
      );
      return;
    }
    const r = sharedSource(abs, text.value);
    if (!r.ok) problems.push(...r.problems);
    else shared.push(r.value);
  });
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, value: merged(src, doc, shared) };
}

function merged(src: YamlSource, doc: Record<string, unknown>, shared: readonly YamlSource[]): YamlSource {
  const tools: unknown[] = [];
  const toolAt = new Map<string, number>();
  const toolOrigin: (Origin | undefined)[] = [];
  const tables: Record<string, unknown> = {};
  const tableOrigin = new Map<string, Origin>();
  const facts: unknown[] = [];
  const factOrigin: (Origin | undefined)[] = [];
  const seenFacts = new Set<string>();
  const confirmations: unknown[] = [];
  const confirmationOrigin: (Origin | undefined)[] = [];
  const own = (from: YamlSource) => (from === src ? undefined : from);
  const take = (from: YamlSource, d: Record<string, unknown>) => {
    const origin = (path: FieldPath): Origin | undefined => (own(from) ? { src: from, path } : undefined);
    (Array.isArray(d.tools) ? d.tools : []).forEach((t, i) => {
      const name = isObject(t) && typeof t.name === 'string' ? t.name : undefined;
      const at = name !== undefined ? toolAt.get(name) : undefined;
      if (at !== undefined) {
        tools[at] = t;
        toolOrigin[at] = origin(['tools', i]);
      } else {
        if (name !== undefined) toolAt.set(name, tools.length);
        tools.push(t);
        toolOrigin.push(origin(['tools', i]));
      }
    });
    const world = isObject(d.world) ? d.world : {};
    if (isObject(world.tables))
      for (const [name, rows] of Object.entries(world.tables)) {
        tables[name] = rows;
        const o = origin(['world', 'tables', name]);
        if (o) tableOrigin.set(name, o);
        else tableOrigin.delete(name);
      }
    (Array.isArray(world.facts) ? world.facts : []).forEach((f, i) => {
      const key = JSON.stringify(f);
      if (seenFacts.has(key)) return;
      seenFacts.add(key);
      facts.push(f);
      factOrigin.push(origin(['world', 'facts', i]));
    });
    (Array.isArray(d.confirmations) ? d.confirmations : []).forEach((c, i) => {
      confirmations.push(c);
      confirmationOrigin.push(origin(['confirmations', i]));
    });
  };
  for (const s of shared) take(s, s.value as Record<string, unknown>);
  // The scenario's own entries come last, so they win; its shape errors stay its own (reported by the schema).
  if (doc.tools !== undefined && !Array.isArray(doc.tools)) return src;
  if (doc.world !== undefined && !isObject(doc.world)) return src;
  take(src, doc);
  const world = isObject(doc.world) ? doc.world : {};
  const value: Record<string, unknown> = {
    ...doc,
    tools,
    world: { ...world, facts, tables },
    ...(confirmations.length > 0 || doc.confirmations !== undefined ? { confirmations } : {}),
  };

  /** The origin of a path in the merged document, and the rest of the path below it. */
  const originOf = (path: FieldPath): { o: Origin; rest: FieldPath } | undefined => {
    const [a, b, c] = path;
    let o: Origin | undefined;
    let used = 2;
    if (a === 'tools' && typeof b === 'number') o = toolOrigin[b];
    else if (a === 'confirmations' && typeof b === 'number') o = confirmationOrigin[b];
    else if (a === 'world' && b === 'facts' && typeof c === 'number') [o, used] = [factOrigin[c], 3];
    else if (a === 'world' && b === 'tables' && typeof c === 'string') [o, used] = [tableOrigin.get(c), 3];
    return o ? { o, rest: path.slice(used) } : undefined;
  };
  const inFile = (o: Origin, pos: Pos): Pos => ({ ...pos, file: o.src.file });
  const out: YamlSource = {
    file: src.file,
    text: src.text,
    value,
    locate(path, opts) {
      const hit = originOf(path);
      return hit ? inFile(hit.o, hit.o.src.locate([...hit.o.path, ...hit.rest], opts)) : src.locate(path, opts);
    },
    locateInString(path, offset) {
      const hit = originOf(path);
      return hit
        ? inFile(hit.o, hit.o.src.locateInString([...hit.o.path, ...hit.rest], offset))
        : src.locateInString(path, offset);
    },
  };
  tableOrigins.set(out, new Map([...tableOrigin].map(([name, o]) => [name, o.src])));
  return out;
}
