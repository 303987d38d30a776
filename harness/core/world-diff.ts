/**
 * What a run changed in the world, as a record stores it (`run_end.world_diff`) instead of a copy of
 * the whole final world: a shop's or an airline's database is hundreds of kilobytes, and a run
 * changes a few rows of it. The final world is rebuilt exactly from the initial world and the diff.
 *
 * - facts: the texts added and removed (a world's facts are a sorted set).
 * - tables: for each table that changed, its final rows in order, each either a run of unchanged
 *   rows of the initial table (`[from, to]`, indices inclusive) or a row of its own (`{ row }`: new,
 *   or changed). A table that no longer exists is `null`.
 *
 * @example
 * const diff = worldDiff(initial, final);
 * stableJson(applyWorldDiff(initial, diff)) === stableJson(final) // true
 */
import { stableJson } from '../util/json.ts';
import { sortStrings } from '../util/sort.ts';
import type { Row, WorldSnapshot } from './world.ts';

/** One piece of a changed table: a run of initial rows, or a row of its own. */
type TablePiece = [number, number] | { row: Row };

export interface WorldDiff {
  facts: { added: string[]; removed: string[] };
  tables: Record<string, TablePiece[] | null>;
}

/**
 * The difference between two worlds, final against initial.
 *
 * @example
 * worldDiff({ facts: [], tables: { t: [{ a: 1 }] } }, { facts: ['x'], tables: { t: [{ a: 1 }, { a: 2 }] } })
 * // { facts: { added: ['x'], removed: [] }, tables: { t: [[0, 0], { row: { a: 2 } }] } }
 */
export function worldDiff(initial: WorldSnapshot, final: WorldSnapshot): WorldDiff {
  const before = new Set(initial.facts);
  const after = new Set(final.facts);
  const diff: WorldDiff = {
    facts: {
      added: final.facts.filter((f) => !before.has(f)),
      removed: initial.facts.filter((f) => !after.has(f)),
    },
    tables: {},
  };
  for (const name of Object.keys(initial.tables)) if (!Object.hasOwn(final.tables, name)) diff.tables[name] = null;
  for (const [name, rows] of Object.entries(final.tables)) {
    // A table the initial world did not have is written whole, even empty.
    const pieces = Object.hasOwn(initial.tables, name)
      ? tableDiff(initial.tables[name] ?? [], rows)
      : rows.map((row) => ({ row }));
    if (pieces) diff.tables[name] = pieces;
  }
  return diff;
}

/** A table's final rows as pieces of the initial one, or undefined when it did not change. */
function tableDiff(initial: readonly Row[], final: readonly Row[]): TablePiece[] | undefined {
  // The rows equal to the initial row at their own index, from the start: each would take that row
  // below (the first at or after the cursor), so they are one run without writing them as text. An
  // untouched table of a shared world (thousands of rows) costs a comparison, not two stableJson each.
  let same = 0;
  const n = Math.min(initial.length, final.length);
  while (same < n && sameJson(initial[same], final[same])) same++;
  if (same === initial.length && same === final.length) return undefined;
  // Where each row text stands in the initial table past them, in order: a final row takes the first one at or after the cursor.
  const where = new Map<string, number[]>();
  for (let i = same; i < initial.length; i++) {
    const k = stableJson(initial[i]);
    const list = where.get(k);
    if (list) list.push(i);
    else where.set(k, [i]);
  }
  const pieces: TablePiece[] = same > 0 ? [[0, same - 1]] : [];
  let cursor = same;
  let unchanged = initial.length === final.length;
  for (const row of final.slice(same)) {
    const at = where.get(stableJson(row));
    while (at && at.length > 0 && (at[0] as number) < cursor) at.shift();
    const i = at?.[0];
    if (i === undefined) {
      pieces.push({ row });
      unchanged = false;
      continue;
    }
    at?.shift();
    if (i !== cursor) unchanged = false;
    cursor = i + 1;
    const last = pieces[pieces.length - 1];
    if (Array.isArray(last) && last[1] === i - 1) last[1] = i;
    else pieces.push([i, i]);
  }
  return unchanged ? undefined : pieces;
}

/**
 * Whether two JSON values are equal, key order aside: when so, their stableJson texts are equal (the
 * converse is not needed: an answer of no only sends a row to the comparison by text).
 */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length) return false;
  for (const k of keys) if (!Object.hasOwn(y, k) || !sameJson(x[k], y[k])) return false;
  return true;
}

/**
 * The final world of a diff: the initial world with it applied.
 *
 * @example
 * applyWorldDiff(initial, end.world_diff)
 */
export function applyWorldDiff(initial: WorldSnapshot, diff: WorldDiff): WorldSnapshot {
  const removed = new Set(diff.facts.removed);
  const facts = sortStrings([...initial.facts.filter((f) => !removed.has(f)), ...diff.facts.added]);
  const tables: Record<string, Row[]> = {};
  const names = sortStrings([...new Set([...Object.keys(initial.tables), ...Object.keys(diff.tables)])]);
  for (const name of names) {
    const pieces = Object.hasOwn(diff.tables, name) ? diff.tables[name] : undefined;
    if (pieces === null) continue;
    const rows = initial.tables[name] ?? [];
    if (pieces === undefined) {
      tables[name] = rows.map((r) => structuredClone(r));
      continue;
    }
    const out: Row[] = [];
    for (const p of pieces) {
      if (Array.isArray(p)) for (let i = p[0]; i <= p[1]; i++) out.push(structuredClone(rows[i] as Row));
      else out.push(structuredClone(p.row));
    }
    tables[name] = out;
  }
  return { facts, tables };
}
