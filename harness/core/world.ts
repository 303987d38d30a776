/**
 * The ground truth of one run: tables of rows and a set of facts. Only the
 * sandbox mutates it; planners never see it.
 */
import { formatFact, matchesFact, mustParseFact, type Fact, type MatchOptions } from './facts/fact.ts';
import { copyJson } from '../util/json.ts';
import { sortStrings } from '../util/sort.ts';

/** A table row: JSON values by column. */
export type Row = Record<string, unknown>;

/** The world as a record holds it: facts sorted, tables by name. */
export interface WorldSnapshot {
  facts: string[];
  tables: Record<string, Row[]>;
}

/**
 * Row equality on the `where` keys; values compare as text so 1200 matches "1200" (templates splice
 * text), and the keys in `ignoreCase` as lowercased text (`toLowerCase`).
 */
function rowMatches(row: Row, where: Row, ignoreCase?: readonly string[]): boolean {
  for (const [k, v] of Object.entries(where)) {
    if (!(k in row)) return false;
    if (ignoreCase?.includes(k)) {
      if (canonical(row[k]).toLowerCase() !== canonical(v).toLowerCase()) return false;
    } else if (canonical(row[k]) !== canonical(v)) return false;
  }
  return true;
}

/** A copy of a row, which holds JSON values only (what scenarios and templates give): as structuredClone would, faster. */
function copyRow(row: Row): Row {
  return copyJson(row);
}

function canonical(v: unknown): string {
  return typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
}

export class World {
  private facts = new Map<string, Fact>();
  private tables = new Map<string, Row[]>();

  static from(snapshot: WorldSnapshot): World {
    const w = new World();
    for (const f of snapshot.facts) w.establish(mustParseFact(f));
    for (const [name, rows] of Object.entries(snapshot.tables)) w.tables.set(name, rows.map(copyRow));
    return w;
  }

  /**
   * An independent copy: the facts are shared (a Fact is never changed once made), the rows are copied
   * (an update changes rows in place). What a run starts from, without rendering or parsing again.
   */
  clone(): World {
    const w = new World();
    w.facts = new Map(this.facts);
    for (const [name, rows] of this.tables) w.tables.set(name, rows.map(copyRow));
    return w;
  }

  holds(pattern: Fact, opts?: MatchOptions): boolean {
    for (const f of this.facts.values()) if (matchesFact(pattern, f, opts)) return true;
    return false;
  }

  /** Adds a fact (`key`: its formatFact text, when the caller has it already); returns whether it was new. */
  establish(fact: Fact, key = formatFact(fact)): boolean {
    if (this.facts.has(key)) return false;
    this.facts.set(key, fact);
    return true;
  }

  /** Removes every fact the pattern matches; returns their texts. */
  revoke(pattern: Fact, opts?: MatchOptions): string[] {
    const removed: string[] = [];
    for (const [key, f] of this.facts) {
      if (matchesFact(pattern, f, opts)) {
        this.facts.delete(key);
        removed.push(key);
      }
    }
    return removed;
  }

  insert(table: string, row: Row): void {
    const rows = this.tables.get(table) ?? [];
    rows.push(copyRow(row));
    this.tables.set(table, rows);
  }

  /**
   * Sets `set`'s fields in every row matching `where`, appends `append`'s items to list fields,
   * in each list field of `elements` sets the fields of the first element (an object) whose fields
   * equal its `where` (as text); a field that is not a list, or has no such element, is left as it was;
   * and removes `remove`'s items from list fields: per item (a list value gives each of its items),
   * the first element equal to it (as text, an object by its JSON); none equal, nothing removed.
   */
  update(
    table: string,
    where: Row,
    set: Row,
    append?: Row,
    elements?: Record<string, { where: Row; set: Row }>,
    remove?: Row,
  ): { before: Row[]; after: Row[] } {
    const before: Row[] = [];
    const after: Row[] = [];
    for (const row of this.tables.get(table) ?? []) {
      if (!rowMatches(row, where)) continue;
      before.push(copyRow(row));
      Object.assign(row, copyRow(set));
      if (append) {
        for (const [k, v] of Object.entries(append)) {
          const was = row[k];
          const list = Array.isArray(was) ? [...(was as unknown[])] : was === undefined || was === null ? [] : [was];
          row[k] = [...list, ...copyJson(Array.isArray(v) ? v : [v])];
        }
      }
      for (const [k, el] of Object.entries(elements ?? {})) {
        const list = row[k];
        if (!Array.isArray(list)) continue;
        const at = list.findIndex((x) => x !== null && typeof x === 'object' && rowMatches(x as Row, el.where));
        if (at >= 0) row[k] = list.map((x, n) => (n === at ? { ...(x as Row), ...copyRow(el.set) } : x));
      }
      for (const [k, v] of Object.entries(remove ?? {})) {
        if (!Array.isArray(row[k])) continue;
        const list = [...(row[k] as unknown[])];
        for (const item of Array.isArray(v) ? v : [v]) {
          const at = list.findIndex((x) => canonical(x) === canonical(item));
          if (at >= 0) list.splice(at, 1);
        }
        row[k] = list;
      }
      after.push(copyRow(row));
    }
    return { before, after };
  }

  /**
   * A copy of the first row of a table that matches `where` (values compare as text; the keys in
   * `ignoreCase` regardless of case), or undefined.
   */
  firstRow(table: string, where: Row, ignoreCase?: readonly string[]): Row | undefined {
    for (const row of this.tables.get(table) ?? []) if (rowMatches(row, where, ignoreCase)) return copyRow(row);
    return undefined;
  }

  delete(table: string, where: Row): Row[] {
    const rows = this.tables.get(table);
    if (!rows) return [];
    const kept: Row[] = [];
    const removed: Row[] = [];
    for (const row of rows) (rowMatches(row, where) ? removed : kept).push(row);
    this.tables.set(table, kept);
    return removed;
  }

  factTexts(): string[] {
    return sortStrings([...this.facts.keys()]);
  }

  factList(): Fact[] {
    return [...this.facts.values()];
  }

  /** Copies of the rows of the named tables that exist (a name may repeat): what a read shows of them now. */
  copyTables(names: readonly string[]): Record<string, Row[]> {
    const out: Record<string, Row[]> = {};
    for (const name of names) {
      const rows = this.tables.get(name);
      if (rows && !Object.hasOwn(out, name)) out[name] = rows.map(copyRow);
    }
    return out;
  }

  /** A deep copy with facts sorted and tables in name order, so equal worlds give equal JSON. */
  snapshot(): WorldSnapshot {
    const tables: Record<string, Row[]> = {};
    for (const name of sortStrings([...this.tables.keys()])) tables[name] = (this.tables.get(name) ?? []).map(copyRow);
    return { facts: this.factTexts(), tables };
  }
}
