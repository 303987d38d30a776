/**
 * Rolling a run back: issue the recorded compensations of its reversible
 * effects, newest first, on a sandbox holding the run's final world, and
 * compare the result with the world before the run. This checks that tools
 * declared reversible really are: a restore that brings a row back with a
 * changed field, or a delete whose undo leaves an audit fact, shows up as a
 * difference.
 *
 * What stays out of the comparison: facts that read-only calls established or
 * revoked (a verification or an approval is knowledge, not an effect). Rows
 * compare as a multiset (a restored row may come back at the end of its
 * table), facts as a set. Compensating calls run without the scenario's
 * faults: this checks reversibility, not fault tolerance.
 */
import { effectChangedState, effectFootprint } from '../../core/effects/index.ts';
import { mustParseFact } from '../../core/facts/fact.ts';
import {
  finalWorldOf,
  type CallEvent,
  type RecordEvent,
  type Row,
  type RunEndEvent,
  type RunStartEvent,
  type WorldSnapshot,
} from '../../core/record.ts';
import { Sandbox } from '../../engine/sandbox/sandbox.ts';
import { initialWorldOf } from '../../engine/record/initial-world.ts';
import { wire } from '../../engine/sandbox/transport.ts';
import type { Call } from '../../core/planner.ts';
import type { Scenario } from '../../core/scenario.ts';
import { stableJson } from '../../util/json.ts';
import { plural } from '../../util/plural.ts';

export type RollbackResult =
  /** Not applicable: a compensable or irreversible effect changed the world, so it is not expected to come back. */
  | { status: 'not_applicable'; reason: string }
  | { status: 'restored'; compensations: Call[] }
  | { status: 'differs'; compensations: Call[]; differences: string[] };

/** A run's world from its record, with the facts read-only calls established or revoked applied to `base`. */
function expectedWorld(initial: WorldSnapshot, calls: readonly CallEvent[]): WorldSnapshot {
  const facts = new Set(initial.facts);
  for (const c of calls) {
    if (!c.read_only) continue;
    for (const e of c.effects) {
      const { factsAdded, factsRemoved } = effectFootprint(e);
      for (const f of factsAdded) facts.add(f);
      for (const f of factsRemoved) facts.delete(f);
    }
  }
  return { facts: [...facts].sort(), tables: initial.tables };
}

/**
 * Whether a call's effects changed the world's state: an update that rewrote a
 * row with the values it had, or an establish of a fact that already held,
 * changed nothing, so there is nothing to undo (undoing it would change the world).
 */
function changedState(c: Pick<CallEvent, 'effects'>): boolean {
  return c.effects.some(effectChangedState);
}

/** What differs between two worlds, in words; empty when they are equal (rows as multisets, facts as sets). */
function worldDifferences(expected: WorldSnapshot, actual: WorldSnapshot): string[] {
  const out: string[] = [];
  const want = new Set(expected.facts);
  const have = new Set(actual.facts);
  for (const f of have) if (!want.has(f)) out.push(`fact ${f} holds, but did not before the run`);
  for (const f of want) if (!have.has(f)) out.push(`fact ${f} no longer holds`);
  for (const table of [...new Set([...Object.keys(expected.tables), ...Object.keys(actual.tables)])].sort()) {
    const count = (rows: readonly Row[] | undefined) => {
      const m = new Map<string, number>();
      for (const r of rows ?? []) m.set(stableJson(r), (m.get(stableJson(r)) ?? 0) + 1);
      return m;
    };
    const a = count(expected.tables[table]);
    const b = count(actual.tables[table]);
    for (const [row, n] of b)
      if (n > (a.get(row) ?? 0))
        out.push(
          `table ${table}: row ${row} is there ${plural(n - (a.get(row) ?? 0), 'more time', 'more times')} than before the run`,
        );
    for (const [row, n] of a)
      if (n > (b.get(row) ?? 0)) out.push(`table ${table}: row ${row} is missing (${n - (b.get(row) ?? 0)} of ${n})`);
  }
  return out;
}

/**
 * Rolls a recorded run back and compares the world with the one before it.
 *
 * @example
 * const r = rollBack(run.events, scenario);
 * if (r.status === 'differs') console.log(r.differences.join('\n'));
 */
export function rollBack(events: readonly RecordEvent[], scenario: Scenario): RollbackResult {
  const start = events.find((e): e is RunStartEvent => e.type === 'run_start');
  const end = events.find((e): e is RunEndEvent => e.type === 'run_end');
  if (!start || !end) return { status: 'not_applicable', reason: 'the record has no run_start or run_end' };
  const initial = initialWorldOf(start, scenario);
  if (!initial.ok) return { status: 'not_applicable', reason: initial.message };
  const calls = events.filter((e): e is CallEvent => e.type === 'call' && e.status !== 'blocked');
  const effectful = calls.filter((c) => !c.read_only && c.applied && changedState(c));
  const lasting = effectful.find((c) => c.class !== 'reversible');
  if (lasting)
    return {
      status: 'not_applicable',
      reason: `step ${lasting.step} (${lasting.tool}, ${lasting.class}) changed the world`,
    };
  const missing = effectful.find((c) => !c.compensation);
  if (missing)
    return {
      status: 'differs',
      compensations: [],
      differences: [`step ${missing.step} (${missing.tool}) is reversible but its record names no compensation`],
    };

  const compensations: Call[] = effectful
    .reverse()
    .map((c) => ({ tool: c.compensation?.operation ?? '', args: c.compensation?.args ?? {} }));
  const undeclared = compensations.find((c) => !scenario.tools.some((t) => t.name === c.tool));
  if (undeclared)
    return {
      status: 'differs',
      compensations,
      differences: [`the compensating operation ${undeclared.tool} is not a declared tool`],
    };

  // A sandbox with the same declarations and no faults, holding the world the run ended with. The world is
  // loaded as data, not as a scenario's world: argument values may contain template text, which must stay text.
  const sandbox = new Sandbox(
    { ...scenario, world: { facts: [], tables: {} }, tools: scenario.tools.map((t) => ({ ...t, faults: [] })) },
    start.seed,
  );
  const final = finalWorldOf(initial.value, end);
  for (const f of final.facts) sandbox.world.establish(mustParseFact(f));
  for (const [table, rows] of Object.entries(final.tables)) for (const row of rows) sandbox.world.insert(table, row);
  compensations.forEach((c, i) => {
    sandbox.executeBatch({ turn: i + 1, batch: i, firstStep: i + 1, calls: [{ tool: c.tool, args: wire(c.args) }] });
  });
  const differences = worldDifferences(expectedWorld(initial.value, calls), sandbox.world.snapshot());
  return differences.length > 0
    ? { status: 'differs', compensations, differences }
    : { status: 'restored', compensations };
}
