/**
 * The ground truth of one run: tables of rows and a set of facts. Only the
 * sandbox mutates it; planners never see it.
 */
import { formatFact, matchesFact, mustParseFact, type Fact, type MatchOptions } from '../facts/fact.ts';
import type { Row, WorldSnapshot } from '../record/events.ts';

/** Row equality on the `where` keys; values compare as text so 1200 matches "1200" (templates splice text). */
export function rowMatches(row: Row, where: Row): boolean {
  for (const [k, v] of Object.entries(where)) {
    if (!(k in row)) return false;
    if (canonical(row[k]) !== canonical(v)) return false;
  }
  return true;
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
    for (const [name, rows] of Object.entries(snapshot.tables)) w.tables.set(name, rows.map((r) => structuredClone(r)));
    return w;
  }

  holds(pattern: Fact, opts?: MatchOptions): boolean {
    for (const f of this.facts.values()) if (matchesFact(pattern, f, opts)) return true;
    return false;
  }

  /** Adds a fact; returns whether it was new. */
  establish(fact: Fact): boolean {
    const key = formatFact(fact);
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
    rows.push(structuredClone(row));
    this.tables.set(table, rows);
  }

  update(table: string, where: Row, set: Row): { before: Row[]; after: Row[] } {
    const before: Row[] = [];
    const after: Row[] = [];
    for (const row of this.tables.get(table) ?? []) {
      if (!rowMatches(row, where)) continue;
      before.push(structuredClone(row));
      Object.assign(row, structuredClone(set));
      after.push(structuredClone(row));
    }
    return { before, after };
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
    return [...this.facts.keys()].sort();
  }

  factList(): Fact[] {
    return [...this.facts.values()];
  }

  /** A deep copy with facts sorted and tables in name order, so equal worlds give equal JSON. */
  snapshot(): WorldSnapshot {
    const tables: Record<string, Row[]> = {};
    for (const name of [...this.tables.keys()].sort()) tables[name] = structuredClone(this.tables.get(name) ?? []);
    return { facts: this.factTexts(), tables };
  }
}
