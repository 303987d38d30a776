/**
 * What differs between two worlds: rows added, removed or changed per table,
 * facts added or removed. Rows compare as values (key order ignored) and as
 * multisets: a table holding the same rows in another order is reported
 * apart, not as a difference.
 */
import { rowKey } from '../../core/effects/row-text.ts';
import type { Row, WorldSnapshot } from '../../core/record.ts';
import { stableJson } from '../../util/json.ts';

export type WorldChange =
  | { where: 'row'; table: string; change: 'added'; row: Row }
  | { where: 'row'; table: string; change: 'removed'; row: Row }
  | { where: 'row'; table: string; change: 'changed'; before: Row; after: Row }
  | { where: 'fact'; change: 'added' | 'removed'; fact: string };

export interface WorldDiff {
  changes: WorldChange[];
  /** Tables with the same rows as before, in another order. */
  reordered: string[];
}

/**
 * The changes that turn `before` into `after`.
 *
 * @example
 * diffWorlds({ facts: [], tables: { t: [{ id: 1 }] } }, { facts: ['x'], tables: { t: [] } }).changes
 * // [{ where: 'row', table: 't', change: 'removed', row: { id: 1 } }, { where: 'fact', change: 'added', fact: 'x' }]
 */
export function diffWorlds(before: WorldSnapshot, after: WorldSnapshot): WorldDiff {
  const changes: WorldChange[] = [];
  const reordered: string[] = [];
  const tables = [...new Set([...Object.keys(before.tables), ...Object.keys(after.tables)])].sort();
  for (const table of tables) {
    const a = before.tables[table] ?? [];
    const b = after.tables[table] ?? [];
    const { onlyA, onlyB } = multisetDiff(a, b);
    if (onlyA.length === 0 && onlyB.length === 0) {
      if (a.map((r) => stableJson(r)).join('\n') !== b.map((r) => stableJson(r)).join('\n')) reordered.push(table);
      continue;
    }
    // A removed and an added row with the same identifying value are one changed row.
    const added = [...onlyB];
    for (const removed of onlyA) {
      const k = rowKey(removed);
      const i =
        k === undefined ? -1 : added.findIndex((r) => rowKey(r) === k && stableJson(r[k]) === stableJson(removed[k]));
      if (i >= 0) {
        changes.push({ where: 'row', table, change: 'changed', before: removed, after: added[i] as Row });
        added.splice(i, 1);
      } else changes.push({ where: 'row', table, change: 'removed', row: removed });
    }
    for (const row of added) changes.push({ where: 'row', table, change: 'added', row });
  }
  const fa = new Set(before.facts);
  const fb = new Set(after.facts);
  for (const f of [...fb].sort()) if (!fa.has(f)) changes.push({ where: 'fact', change: 'added', fact: f });
  for (const f of [...fa].sort()) if (!fb.has(f)) changes.push({ where: 'fact', change: 'removed', fact: f });
  return { changes, reordered };
}

function multisetDiff(a: readonly Row[], b: readonly Row[]): { onlyA: Row[]; onlyB: Row[] } {
  const counts = new Map<string, number>();
  for (const r of b) counts.set(stableJson(r), (counts.get(stableJson(r)) ?? 0) + 1);
  const onlyA: Row[] = [];
  for (const r of a) {
    const k = stableJson(r);
    const n = counts.get(k) ?? 0;
    if (n > 0) counts.set(k, n - 1);
    else onlyA.push(r);
  }
  const onlyB: Row[] = [];
  for (const r of b) {
    const k = stableJson(r);
    const n = counts.get(k) ?? 0;
    if (n > 0) {
      onlyB.push(r);
      counts.set(k, n - 1);
    }
  }
  return { onlyA, onlyB };
}
