/**
 * Records that do not copy the world (issue 41): run_end holds what the run changed, and the final
 * world is rebuilt exactly from the initial world and the diff; a record written before, with the
 * whole final world, still reads.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { finalWorldOf, type RecordEvent, type RunEndEvent } from '../../harness/core/record.ts';
import { applyWorldDiff, worldDiff } from '../../harness/core/world-diff.ts';
import type { WorldSnapshot } from '../../harness/core/world.ts';
import { parseRecordText } from '../../harness/engine/record/reader.ts';
import { initialWorldOf } from '../../harness/engine/record/initial-world.ts';
import { Sandbox } from '../../harness/engine/sandbox/sandbox.ts';
import { oracleScores, recordedScores } from '../../harness/features/fuzz/oracle.ts';
import { rollBack } from '../../harness/features/fuzz/rollback.ts';
import { applyRecovery } from '../../harness/features/recover/apply.ts';
import { buildChecklist } from '../../harness/features/recover/checklist.ts';
import { stableJson } from '../../harness/util/json.ts';
import { RETAIL_YAML } from '../helpers/language.ts';
import { call, runDecisions, scenarioFrom } from '../helpers/run.ts';

const row = fc.record({ id: fc.integer({ min: 0, max: 5 }), v: fc.constantFrom('a', 'b', 'c') });
const world: fc.Arbitrary<WorldSnapshot> = fc.record({
  facts: fc.uniqueArray(fc.constantFrom('f(x=1)', 'f(x=2)', 'g', 'h(y="a, b")')).map((f) => f.sort()),
  tables: fc.dictionary(fc.constantFrom('orders', 'users', 'outbox'), fc.array(row, { maxLength: 8 })),
});
const sortedTables = (w: WorldSnapshot): WorldSnapshot => ({
  facts: w.facts,
  tables: Object.fromEntries(
    Object.keys(w.tables)
      .sort()
      .map((k) => [k, w.tables[k] ?? []]),
  ),
});

describe('world diffs', () => {
  it('rebuild the final world exactly, rows in order, for any two worlds', () => {
    fc.assert(
      fc.property(world, world, (a, b) => {
        const [initial, final] = [sortedTables(a), sortedTables(b)];
        expect(stableJson(applyWorldDiff(initial, worldDiff(initial, final)))).toBe(stableJson(final));
      }),
      { numRuns: 500 },
    );
  });

  it('hold only what changed: an update in place is one row, the rest runs of unchanged rows', () => {
    const orders = Array.from({ length: 1000 }, (_, i) => ({ order_id: `#W${i}`, status: 'pending' }));
    const initial = { facts: ['a'], tables: { orders, users: [{ user_id: 'u1' }] } };
    const changed = orders.map((o, i) => (i === 500 ? { ...o, status: 'cancelled' } : o));
    const diff = worldDiff(initial, {
      facts: ['a', 'b'],
      tables: { orders: [...changed, { order_id: 'new' }], users: [{ user_id: 'u1' }] },
    });
    expect(diff).toEqual({
      facts: { added: ['b'], removed: [] },
      tables: {
        orders: [
          [0, 499],
          { row: { order_id: '#W500', status: 'cancelled' } },
          [501, 999],
          { row: { order_id: 'new' } },
        ],
      },
    });
  });
});

describe('run records', () => {
  const retail = scenarioFrom(RETAIL_YAML);

  it('hold the diff, not the final world; the final world rebuilds from it', async () => {
    const r = await runDecisions(retail, [
      call('pay_with_gift_card', { order_id: '#W1', amount: 10 }),
      call('book', { cabin: 'business' }),
    ]);
    const end = r.events.find((e): e is RunEndEvent => e.type === 'run_end') as RunEndEvent;
    expect(end).not.toHaveProperty('final_world');
    expect(end.world_diff?.tables.users).toEqual([{ row: { user_id: 'u1', gift_card_balance: 7 } }]);
    expect(end.world_diff?.tables.orders).toEqual([
      { row: { order_id: '#W1', user_id: 'u1', status: 'pending', address: '1 Main St', payments: [10] } },
      [1, 1],
    ]);
    const start = r.events.find((e) => e.type === 'run_start');
    if (start?.type !== 'run_start') throw new Error('no run_start');
    expect(finalWorldOf(start.initial_world!, end).facts).toEqual([
      'authenticated(user=u1)',
      'cancellable(reservation=R1)',
      'paid(order=#W1)',
    ]);
  });

  it('written before the diff, with the whole final world, still read and roll back', async () => {
    const setter = scenarioFrom(
      RETAIL_YAML.replace(
        '  - name: update_address\n    reversibility: compensable',
        '  - name: update_address\n    reversibility: reversible',
      ).replace('      - establish: "addressed(order={{args.order_id}}, address={{args.address}})"\n', ''),
    );
    const r = await runDecisions(setter, [call('update_address', { order_id: '#W1', address: '9 Elm St' })]);
    const start = r.events.find((e) => e.type === 'run_start');
    if (start?.type !== 'run_start') throw new Error('no run_start');
    const old: RecordEvent[] = r.events.map((e) => {
      if (e.type !== 'run_end') return e;
      const { world_diff, ...rest } = e;
      return { ...rest, final_world: finalWorldOf(start.initial_world!, e) };
    });
    const parsed = parseRecordText(old.map((e) => JSON.stringify(e)).join('\n'), 'old.jsonl');
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(
      finalWorldOf(parsed.value.start.initial_world!, parsed.value.end as RunEndEvent).tables.orders?.[0]?.address,
    ).toBe('9 Elm St');
    expect(rollBack(old, setter).status).toBe('restored');
    expect(rollBack(r.events, setter).status).toBe('restored');
  });
});

describe('a large initial world', () => {
  // A shop of 2,000 orders (236 kB of JSON): the record holds its digest, not a copy.
  const orders = Array.from(
    { length: 2000 },
    (_, i) =>
      `      - { order_id: "#W${i}", user_id: u1, status: pending, address: "${i} Long Street, Springfield, 12345", payments: [] }`,
  );
  const big = RETAIL_YAML.replace(
    '      - { order_id: "#W2", user_id: u1, status: delivered, address: "1 Main St", payments: [] }\n',
    `      - { order_id: "#W2", user_id: u1, status: delivered, address: "1 Main St", payments: [] }\n${orders.join('\n')}\n`,
  ).replace(
    '  - name: update_address\n    reversibility: compensable',
    '  - name: update_address\n    reversibility: reversible',
  );
  const scenario = scenarioFrom(big);
  const decisions = [
    call('confirm', { tool: 'cancel_pending_order', args: { order_id: '#W1', reason: 'no longer needed' } }),
    call('cancel_pending_order', { order_id: '#W1', reason: 'no longer needed' }),
    call('pay_with_gift_card', { order_id: '#W2', amount: 5 }),
    call('update_address', { order_id: '#W1500', address: '9 Elm St' }),
  ];

  it('is written as its digest; the record is small, and every reader rebuilds the world from the scenario', async () => {
    const r = await runDecisions(scenario, decisions);
    const start = r.events.find((e) => e.type === 'run_start');
    if (start?.type !== 'run_start') throw new Error('no run_start');
    expect(start.initial_world).toBeUndefined();
    expect(start.initial_world_sha256).toMatch(/^[0-9a-f]{64}$/);
    const text = r.events.map((e) => JSON.stringify(e)).join('\n');
    const initialBytes = Buffer.byteLength(JSON.stringify(new Sandbox(scenario, 7).initialSnapshot));
    // Measured: the world is 236 kB of JSON; the record of 4 calls a few kB (the world was in it twice before).
    expect(initialBytes).toBeGreaterThan(200_000);
    expect(Buffer.byteLength(text)).toBeLessThan(20_000);
    // The oracle re-derives the scores from the scenario's world; the record reads; recovery rebuilds it.
    expect(oracleScores(r.events, scenario)).toEqual(recordedScores(r.events));
    const parsed = parseRecordText(text, 'big.jsonl');
    if (!parsed.ok) throw new Error('record did not parse');
    const initial = initialWorldOf(parsed.value.start, scenario);
    if (!initial.ok) throw new Error(initial.message);
    const final = finalWorldOf(initial.value, parsed.value.end as RunEndEvent);
    expect(final.tables.orders?.[0]?.status).toBe('cancelled');
    expect(final.tables.orders?.[1502]?.address).toBe('9 Elm St');
    expect(buildChecklist(parsed.value, scenario).initial_world?.tables.orders).toHaveLength(2002);
    const applied = await applyRecovery(parsed.value, scenario, { approve: true });
    expect(applied.ok).toBe(true);
  });

  it('a scenario whose world changed since the run is refused, not silently used', async () => {
    const r = await runDecisions(scenario, decisions);
    const parsed = parseRecordText(r.events.map((e) => JSON.stringify(e)).join('\n'), 'big.jsonl');
    if (!parsed.ok) throw new Error('record did not parse');
    const changed = scenarioFrom(big.replace('#W1999', '#W1999b'));
    const initial = initialWorldOf(parsed.value.start, changed);
    expect(initial.ok ? 'ok' : initial.message).toBe(
      'the scenario file gives another initial world than the run had: it changed since the run',
    );
    const applied = await applyRecovery(parsed.value, changed, { approve: true });
    expect(applied.ok ? [] : applied.issues.map((i) => i.message)).toEqual([
      'the scenario file gives another initial world than the run had: it changed since the run',
    ]);
  });
});
