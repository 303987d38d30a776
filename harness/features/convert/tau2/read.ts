/**
 * Reads what `oneway import tau2` converts from a clone of tau2-bench (and, for the airline
 * database a clone may lack, from tau-bench v1's airline data). Every missing or unreadable input
 * is a message with a hint, never a stack trace.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import type { Tau2Domain } from './classes.ts';
import type { DomainSource, Tau2Sources, Tau2Task } from './convert.ts';
import type { Obj } from './world.ts';

export type ReadResult<T> = { ok: true; value: T } | { ok: false; message: string; hint: string };

/** Where tau-bench v1 keeps the same airline data (flights.json, reservations.json, users.json). */
export const V1_AIRLINE_DATA = 'tau_bench/envs/airline/data';

const fail = (message: string, hint: string): { ok: false; message: string; hint: string } => ({
  ok: false,
  message,
  hint,
});

function isLfsPointer(path: string): boolean {
  try {
    return readFileSync(path, 'utf8').slice(0, 200).startsWith('version https://git-lfs');
  } catch {
    return false;
  }
}

function readJson(path: string, shown: string): ReadResult<unknown> {
  if (!existsSync(path)) return fail(`${shown} does not exist`, 'is --from a clone of sierra-research/tau2-bench?');
  if (isLfsPointer(path)) return fail(`${shown} is a Git LFS pointer, not the file`, 'run git lfs pull in the clone');
  try {
    return { ok: true, value: JSON.parse(readFileSync(path, 'utf8')) as unknown };
  } catch (e) {
    return fail(`${shown} is not JSON: ${(e as Error).message}`, 'check the clone is complete (git status)');
  }
}

function readText(path: string, shown: string): ReadResult<string> {
  if (!existsSync(path)) return fail(`${shown} does not exist`, 'is --from a clone of sierra-research/tau2-bench?');
  return { ok: true, value: readFileSync(path, 'utf8') };
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The LICENSE of the repository a path lies in (its nearest ancestor holding one, at most 6 up). */
function licenseAbove(path: string): string | undefined {
  let dir = statSync(path).isDirectory() ? path : dirname(path);
  for (let i = 0; i < 6; i++) {
    const l = join(dir, 'LICENSE');
    if (existsSync(l)) return readFileSync(l, 'utf8');
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return undefined;
}

/** The airline database from --airline-db: tau2's db.json, or tau-bench v1's data directory. */
function readAirlineDb(path: string, shown: string): ReadResult<{ db: Obj; source: string; v1: boolean }> {
  if (!existsSync(path))
    return fail(
      `--airline-db ${shown} does not exist`,
      `give tau2's airline db.json or tau-bench's ${V1_AIRLINE_DATA} directory`,
    );
  if (statSync(path).isDirectory()) {
    const db: Obj = {};
    for (const t of ['flights', 'reservations', 'users']) {
      const r = readJson(join(path, `${t}.json`), `${shown}/${t}.json`);
      if (!r.ok)
        return fail(
          r.message,
          `--airline-db takes tau-bench's ${V1_AIRLINE_DATA} directory (flights.json, reservations.json, users.json)`,
        );
      if (!isObj(r.value))
        return fail(`${shown}/${t}.json is not an object of rows by id`, 'is it tau-bench v1 airline data?');
      db[t] = r.value;
    }
    return { ok: true, value: { db, source: `tau-bench v1 ${V1_AIRLINE_DATA}`, v1: true } };
  }
  const r = readJson(path, shown);
  if (!r.ok) return r;
  if (!isObj(r.value) || !isObj(r.value.flights) || !isObj(r.value.reservations) || !isObj(r.value.users))
    return fail(
      `${shown} has no flights, reservations and users objects`,
      "give tau2's data/tau2/domains/airline/db.json",
    );
  return {
    ok: true,
    value: { db: r.value, source: 'tau2 data/tau2/domains/airline/db.json (--airline-db)', v1: false },
  };
}

/**
 * The sources of the given domains from a tau2-bench clone at `from`.
 *
 * @example
 * readTau2('/src/tau2-bench', ['retail'], { cwd: process.cwd(), command: 'oneway import tau2 ...' })
 */
export function readTau2(
  from: string,
  domains: readonly Tau2Domain[],
  opts: { cwd: string; command: string; airlineDb?: string },
): ReadResult<Tau2Sources> {
  const root = resolve(opts.cwd, from);
  if (!existsSync(root) || !statSync(root).isDirectory())
    return fail(`--from ${from} is not a directory`, 'give a clone of https://github.com/sierra-research/tau2-bench');
  const show = (p: string) => relative(root, p).split('\\').join('/');
  const out: DomainSource[] = [];
  let v1License: string | undefined;
  for (const domain of domains) {
    const data = join(root, 'data', 'tau2', 'domains', domain);
    const src = join(root, 'src', 'tau2', 'domains', domain);
    if (!existsSync(data))
      return fail(`${from} has no data/tau2/domains/${domain}`, 'give the root of a tau2-bench clone as --from');
    const tasks = readJson(join(data, 'tasks.json'), show(join(data, 'tasks.json')));
    if (!tasks.ok) return tasks;
    if (
      !Array.isArray(tasks.value) ||
      tasks.value.some((t) => !isObj(t) || (typeof t.id !== 'string' && typeof t.id !== 'number'))
    )
      return fail(
        `${show(join(data, 'tasks.json'))} is not a list of tasks with ids`,
        'is it tau2-bench v0.2 or later?',
      );
    const toolsPy = readText(join(src, 'tools.py'), show(join(src, 'tools.py')));
    if (!toolsPy.ok) return toolsPy;
    const dataModelPy = readText(join(src, 'data_model.py'), show(join(src, 'data_model.py')));
    if (!dataModelPy.ok) return dataModelPy;
    let db: Obj;
    let dbSource: string;
    if (domain === 'airline' && opts.airlineDb !== undefined) {
      const r = readAirlineDb(resolve(opts.cwd, opts.airlineDb), opts.airlineDb);
      if (!r.ok) return r;
      db = r.value.db;
      dbSource = r.value.source;
      if (r.value.v1) v1License = licenseAbove(resolve(opts.cwd, opts.airlineDb));
    } else {
      const path = join(data, 'db.json');
      if (domain === 'airline' && (!existsSync(path) || isLfsPointer(path)))
        return fail(
          `${show(path)} is not in this clone (tau2's airline database is large and often missing from a clone)`,
          `pass --airline-db=PATH with tau-bench v1's airline data, the same database: git clone https://github.com/sierra-research/tau-bench and give --airline-db=tau-bench/${V1_AIRLINE_DATA}`,
        );
      const r = readJson(path, show(path));
      if (!r.ok) return r;
      if (!isObj(r.value))
        return fail(`${show(path)} is not an object of tables`, 'check the clone is complete (git status)');
      db = r.value;
      dbSource = `tau2 data/tau2/domains/${domain}/db.json`;
    }
    out.push({
      domain,
      tasks: tasks.value as Tau2Task[],
      db,
      toolsPy: toolsPy.value,
      dataModelPy: dataModelPy.value,
      dbSource,
    });
  }
  const license = readText(join(root, 'LICENSE'), 'LICENSE');
  if (!license.ok)
    return fail(`${from} has no LICENSE`, "the import carries tau2's licence in its NOTICE: give the root of a clone");
  return {
    ok: true,
    value: {
      domains: out,
      license: license.value,
      ...(v1License !== undefined ? { v1License } : {}),
      command: opts.command,
    },
  };
}
