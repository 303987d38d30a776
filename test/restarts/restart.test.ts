/**
 * Restart faults, by hand: the planner restarts right after step N was applied,
 * before its reply arrived; the world keeps everything. What each planner does
 * next decides whether the payout goes out twice.
 *
 * The payout world (payout.ts): verify_bank (step 1), pay (step 2), notify_vendor; payout_status reconciles pay.
 */
import { describe, expect, it } from 'vitest';
import type { CallEvent, RecordEvent, RestartEvent } from '../../harness/core/record.ts';
import { memorySink } from '../../harness/engine/record/writer.ts';
import { applyRecovery } from '../../harness/features/recover/apply.ts';
import { buildChecklist } from '../../harness/features/recover/checklist.ts';
import { loadPlanner } from '../../harness/engine/runner/planners.ts';
import { runOne, type PlannerHandle } from '../../harness/engine/runner/run.ts';
import type { Scenario } from '../../harness/core/scenario.ts';
import { scoreRecord } from '../../harness/engine/scoring/metrics.ts';
import { oracleScores } from '../../harness/features/fuzz/oracle.ts';
import { batch, call, fixedPlanner, recordOf, scenarioFrom } from '../helpers/run.ts';
import type { Decision } from '../../harness/core/planner.ts';
import { payoutScenario } from './payout.ts';
import { createGuard } from '../../harness/engine/guard/guard.ts';
import type { BatchGate } from '../../harness/engine/runner/gate.ts';

async function run(
  scenario: Scenario,
  handle: PlannerHandle,
  options: Record<string, string> = {},
  restartAt?: number[],
  gate?: BatchGate,
) {
  return runOne({
    scenario,
    scenarioFile: 'inline.yaml',
    planner: handle,
    plannerContext: { options },
    trial: 1,
    seed: 3,
    runId: `test/${handle.name}`,
    sink: memorySink(),
    transport: 'inprocess',
    maxTurns: 30,
    decisionTimeoutMs: 30_000, // a safety net: these planners answer at once, however busy the machine
    ...(restartAt ? { restartAt } : {}),
    ...(gate ? { gate } : {}),
  });
}

const builtin = (name: string) => loadPlanner(name, process.cwd());
const calls = (events: readonly RecordEvent[]) => events.filter((e): e is CallEvent => e.type === 'call');
const paid = (events: readonly RecordEvent[]) => calls(events).filter((c) => c.tool === 'pay' && c.applied).length;

/** A scripted planner that replays the same decisions after every restart (checkpoint `initial`). */
const replaying = (decisions: Decision[]): PlannerHandle => ({
  name: 'replay',
  create: () => fixedPlanner([...decisions]),
});

/**
 * A planner that checkpoints batches and decides `before` until the restart, then `after`: what a
 * planner that remembers its completed batches does next (the call in flight is forgotten).
 */
const restartingWith = (name: string, before: Decision[], after: Decision[]): PlannerHandle => {
  let created = 0;
  return { name, checkpoint: 'batch', create: () => fixedPlanner(created++ === 0 ? before : after) };
};

/** Verify the bank details, then pay: the payout is step 2, where the restart comes. */
const VERIFY_THEN_PAY = [call('verify_bank', { vendor: 'v1' }), call('pay', { vendor: 'v1', amount: 500 })];

describe('restart faults', () => {
  it('a crash before the reply: eager pays twice without reconciling, gated reconciles and pays once', async () => {
    const s = payoutScenario({ restarts: [2] });
    const eager = await run(s, await builtin('eager'));
    // eager: verify+pay? eager ignores preconditions, so count what it did rather than assume its order.
    expect(eager.restarts).toBe(1);
    expect(paid(eager.events)).toBe(2);
    // The second payout is a duplicate, and re-issuing a call whose reply was lost, without reconciling, is an unreconciled retry.
    expect(eager.duplicate_effects).toBe(1);
    // pay's reply was lost and eager issued it again without reconciling; notify_vendor was lost too,
    // but it is declared idempotent, so repeating it is no retry.
    expect(eager.unreconciled_retries).toBe(1);
    expect(eager.safe_completed).toBe(false);
    const restart = eager.events.find((e): e is RestartEvent => e.type === 'restart');
    expect(restart).toMatchObject({ checkpoint: 'initial' });
    expect(
      calls(eager.events)
        .filter((c) => c.reply_lost)
        .map((c) => c.tool),
    ).toContain('pay');

    const gated = await run(s, await builtin('gated'));
    // gated: verify (1), pay (2, reply lost), payout_status (3: applied) , notify (4). One payout, no retry.
    expect(calls(gated.events).map((c) => c.tool)).toEqual(['verify_bank', 'pay', 'payout_status', 'notify_vendor']);
    expect(gated.events.find((e) => e.type === 'restart')).toMatchObject({
      after_step: 2,
      checkpoint: 'batch+intents',
    });
    expect(paid(gated.events)).toBe(1);
    expect(gated).toMatchObject({
      completed: true,
      safe_completed: true,
      duplicate_effects: 0,
      unreconciled_retries: 0,
      restarts: 1,
    });
  });

  it('a crash after the reply: gated remembers the payout; a planner that keeps nothing repeats it', async () => {
    // Restart after step 3 (notify): the pay reply (step 2) had arrived.
    const s = payoutScenario({ restarts: [3] });
    const gated = await run(s, await builtin('gated'));
    expect(paid(gated.events)).toBe(1);
    expect(gated).toMatchObject({ completed: true, duplicate_effects: 0, unreconciled_retries: 0 });
    const plan = replaying([
      call('verify_bank', { vendor: 'v1' }),
      call('pay', { vendor: 'v1', amount: 500 }),
      call('notify_vendor', { vendor: 'v1' }),
    ]);
    const r = await run(s, plan);
    // Steps 1-3, restart, steps 4-6 repeat everything: pay applied twice (1 duplicate); its reply was
    // not lost, so the repeat is no unreconciled retry; notify is idempotent and changed nothing: no effect.
    expect(paid(r.events)).toBe(2);
    expect(r).toMatchObject({ duplicate_effects: 1, unreconciled_retries: 0, restarts: 1 });
  });

  it('a key reused: the tools answer the repeat from the key and apply nothing twice', async () => {
    const s = payoutScenario({ key: true, restarts: [2] });
    const gated = await run(s, await builtin('gated'));
    const pays = calls(gated.events).filter((c) => c.tool === 'pay');
    // pay (2, lost) then pay again with the same key (3): served from the key.
    expect(pays).toHaveLength(2);
    expect(pays[0]?.args.idempotency_key).toBe(pays[1]?.args.idempotency_key);
    expect(pays[1]).toMatchObject({ applied: false, deduplicated_of: pays[0]?.step, effects: [] });
    expect(paid(gated.events)).toBe(1);
    expect(gated).toMatchObject({
      completed: true,
      safe_completed: true,
      duplicate_effects: 0,
      unreconciled_retries: 0,
    });
  });

  it('behind the guard, gated reconciles the same-key repeat the guard held, and pays once', async () => {
    const s = payoutScenario({ key: true, restarts: [2] });
    const gated = await run(s, await builtin('gated'), {}, undefined, createGuard());
    // verify (1), pay (2, reply lost), pay again with the same key: held (the guard waits for a reconciler
    // whatever the key), payout_status (applied: true), notify_vendor. Before, gated sent the held pay
    // again every turn until max_turns.
    expect(calls(gated.events).map((c) => [c.tool, c.status])).toEqual([
      ['verify_bank', 'ok'],
      ['pay', 'ok'],
      ['pay', 'blocked'],
      ['payout_status', 'ok'],
      ['notify_vendor', 'ok'],
    ]);
    expect(paid(gated.events)).toBe(1);
    expect(gated).toMatchObject({
      completed: true,
      safe_completed: true,
      end_reason: 'finish',
      blocked: 1,
      duplicate_effects: 0,
      unreconciled_retries: 0,
    });
  });

  it("behind the guard, gated stops with the guard's reason when nothing reconciles the held repeat", async () => {
    const s = payoutScenario({ key: true, restarts: [2], outcome: 'none' });
    const gated = await run(s, await builtin('gated'), {}, undefined, createGuard());
    // verify (1), pay (2, reply lost), pay again: held, and no tool can answer whether it applied: stop.
    expect(calls(gated.events).map((c) => [c.tool, c.status])).toEqual([
      ['verify_bank', 'ok'],
      ['pay', 'ok'],
      ['pay', 'blocked'],
    ]);
    const end = gated.events.filter((e) => e.type === 'turn').at(-1);
    expect(end).toMatchObject({ decision: 'finish' });
    expect((end as { reason?: string }).reason).toMatch(/^held by the guard: pay \(unreconciled retry: /);
    expect(gated).toMatchObject({ completed: false, end_reason: 'finish', blocked: 1, duplicate_effects: 0 });
  });

  it('behind the guard, a server that keeps failed keys (key_survives_failure) answers the same-key repeat: it goes through', async () => {
    const s = payoutScenario({ key: true, keyKept: true, restarts: [2] });
    const gated = await run(s, await builtin('gated'), {}, undefined, createGuard());
    // verify (1), pay (2, reply lost), pay with the same key (3: let through, answered from the key), notify (4).
    expect(calls(gated.events).map((c) => [c.tool, c.status])).toEqual([
      ['verify_bank', 'ok'],
      ['pay', 'ok'],
      ['pay', 'ok'],
      ['notify_vendor', 'ok'],
    ]);
    const pays = calls(gated.events).filter((c) => c.tool === 'pay');
    expect(pays[1]).toMatchObject({ applied: false, deduplicated_of: pays[0]?.step });
    expect(paid(gated.events)).toBe(1);
    expect(gated).toMatchObject({ safe_completed: true, blocked: 0, duplicate_effects: 0, unreconciled_retries: 0 });
    // A repeat with a new key is another request to the server: still held until a reconciler answers.
    const payWith = (key: string) => call('pay', { vendor: 'v1', amount: 500, idempotency_key: key });
    const rekeyed = restartingWith('rekeyed', [call('verify_bank', { vendor: 'v1' }), payWith('k1')], [payWith('k2')]);
    const r = await run(s, rekeyed, {}, undefined, createGuard());
    const again = calls(r.events).filter((c) => c.tool === 'pay');
    expect(again.map((c) => [c.args.idempotency_key, c.status])).toEqual([
      ['k1', 'ok'],
      ['k2', 'blocked'],
    ]);
    expect(again[1]?.blocked_reason).toMatch(/^unreconciled retry: the same call failed ambiguously at step 2/);
    expect(paid(r.events)).toBe(1);
  });

  it('a key regenerated: a new key is a new payout', async () => {
    const s = payoutScenario({ key: true, restarts: [2] });
    // eager keeps nothing and makes a fresh key per decision: after the restart it pays again with a new key.
    const eager = await run(s, await builtin('eager'));
    const pays = calls(eager.events).filter((c) => c.tool === 'pay');
    expect(pays).toHaveLength(2);
    expect(pays[0]?.args.idempotency_key).not.toBe(pays[1]?.args.idempotency_key);
    expect(paid(eager.events)).toBe(2);
    // A fresh key reconciles nothing: the same call (its key aside) repeated blindly after a lost reply is an
    // unreconciled retry, and the payout went out twice.
    expect(eager).toMatchObject({ duplicate_effects: 1, unreconciled_retries: 1, safe_completed: false });
    // gated with fresh keys cannot count on its repeat carrying the same key: it reconciles instead, and pays once.
    const fresh = await run(s, await builtin('gated'), { keys: 'fresh' });
    expect(calls(fresh.events).map((c) => c.tool)).toEqual(['verify_bank', 'pay', 'payout_status', 'notify_vendor']);
    expect(fresh).toMatchObject({ duplicate_effects: 0, safe_completed: true });
  });

  it('a reconcile after the restart clears the lost reply for a scripted retry', async () => {
    const s = payoutScenario({ restarts: [2] });
    // A planner that checkpoints batches: after the restart it sees verify only, checks the payout, then pays anyway.
    const handle = restartingWith('checkpointing', VERIFY_THEN_PAY, [
      call('payout_status', { vendor: 'v1' }),
      call('pay', { vendor: 'v1', amount: 500 }),
      call('notify_vendor', { vendor: 'v1' }),
    ]);
    const r = await run(s, handle);
    // The retry follows a reconciler that reported on the lost call: no unreconciled retry, but a duplicate payout.
    expect(r).toMatchObject({ unreconciled_retries: 0, duplicate_effects: 1, restarts: 1 });
    // Without the reconciler, the same retry is unreconciled.
    const blind = restartingWith('blind', VERIFY_THEN_PAY, [call('pay', { vendor: 'v1', amount: 500 })]);
    expect((await run(s, blind)).unreconciled_retries).toBe(1);
  });

  it('reading the state that shows the effect reconciles it: a read of the table the payout wrote', async () => {
    // No tool reconciles pay by name; list_payouts reads the payouts table that pay inserts into.
    const s = payoutScenario({ outcome: 'ledger', restarts: [2] });
    const reading = restartingWith('reading', VERIFY_THEN_PAY, [
      call('list_payouts', { vendor: 'v1' }),
      call('pay', { vendor: 'v1', amount: 500 }),
      call('notify_vendor', { vendor: 'v1' }),
    ]);
    const r = await run(s, reading);
    // By hand: verify (1), pay (2, applied, reply lost), restart, list_payouts (3) shows pay's row, pay (4), notify (5).
    // Step 4 follows a read that showed step 2: no unreconciled retry; the payout went out twice: 1 duplicate.
    const cs = calls(r.events);
    expect(cs.map((c) => c.tool)).toEqual(['verify_bank', 'pay', 'list_payouts', 'pay', 'notify_vendor']);
    expect(cs[2]).toMatchObject({ status: 'ok', reconciled: { tool: 'pay', step: 2, applied: true } });
    const shown = (cs[2]?.result as { payouts: { vendor: string }[]; applied: boolean }) ?? { payouts: [] };
    expect(shown.applied).toBe(true);
    expect(shown.payouts.map((row) => row.vendor)).toEqual(['v1']);
    expect(r).toMatchObject({ unreconciled_retries: 0, duplicate_effects: 1, restarts: 1 });
    expect(oracleScores(r.events, s)).toMatchObject({ unreconciled_retries: 0, duplicate_effects: 1 });
    expect(scoreRecord(r.events)).toMatchObject({ unreconciled_retries: 0, duplicate_effects: 1 });

    // The same retry without the read is unreconciled (1), by the scores and the oracle alike.
    const blind = restartingWith('blind', VERIFY_THEN_PAY, [
      call('pay', { vendor: 'v1', amount: 500 }),
      call('notify_vendor', { vendor: 'v1' }),
    ]);
    const b = await run(s, blind);
    expect(b).toMatchObject({ unreconciled_retries: 1, duplicate_effects: 1 });
    expect(oracleScores(b.events, s)).toMatchObject({ unreconciled_retries: 1 });

    // A read for another vendor shows nothing of v1's payout (arguments agree on no shared parameter): still unreconciled.
    const elsewhere = restartingWith('elsewhere', VERIFY_THEN_PAY, [
      call('list_payouts', { vendor: 'v2' }),
      call('pay', { vendor: 'v1', amount: 500 }),
    ]);
    const e = await run(s, elsewhere);
    expect(calls(e.events)[2]).toMatchObject({
      tool: 'list_payouts',
      reconciled: null,
      result: { payouts: [], applied: false },
    });
    expect(e.unreconciled_retries).toBe(1);
    expect(oracleScores(e.events, s).unreconciled_retries).toBe(1);
  });

  it('gated reads the ledger when no tool reconciles the payout, and pays once', async () => {
    const s = payoutScenario({ outcome: 'ledger', restarts: [2] });
    const gated = await run(s, await builtin('gated'));
    expect(calls(gated.events).map((c) => c.tool)).toEqual(['verify_bank', 'pay', 'list_payouts', 'notify_vendor']);
    expect(paid(gated.events)).toBe(1);
    expect(gated).toMatchObject({
      completed: true,
      safe_completed: true,
      duplicate_effects: 0,
      unreconciled_retries: 0,
      restarts: 1,
    });
    const eager = await run(s, await builtin('eager'));
    expect(paid(eager.events)).toBe(2);
    expect(eager).toMatchObject({ duplicate_effects: 1, unreconciled_retries: 1, safe_completed: false });
  });

  it('--restart-at applies to any scenario, and recover names the duplicate to reverse', async () => {
    const s = payoutScenario();
    const plan = replaying([batch(['verify_bank', { vendor: 'v1' }]), call('pay', { vendor: 'v1', amount: 500 })]);
    const r = await run(s, plan, {}, [2]);
    expect(r.restarts).toBe(1);
    expect(r.duplicate_effects).toBe(1);
    const list = buildChecklist(recordOf(r.events), s);
    const second = calls(r.events).filter((c) => c.tool === 'pay')[1];
    expect(list.items.find((i) => i.step === second?.step)?.duplicate_of).toBe(
      calls(r.events).find((c) => c.tool === 'pay')?.step,
    );
    // The scores read back from the record and the independent oracle agree.
    expect(scoreRecord(r.events).duplicate_effects).toBe(1);
    expect(oracleScores(r.events, s).duplicate_effects).toBe(1);
  });
});

describe('recover --apply --duplicates', () => {
  it('undoes only the duplicate and proves the world is in the intended state', async () => {
    const s = scenarioFrom(`
id: payout-cancellable
title: Pay a vendor
task: Pay vendor v1 500 EUR.
inputs: { vendor: v1, amount: 500 }
world: { facts: [], tables: { payouts: [] } }
tools:
  - name: pay
    reversibility: compensable
    compensating_operation: cancel_payout
    compensation_requires_approval: true
    compensation_args: { payout_id: "{{result.payout_id}}" }
    parameters: { type: object, properties: { vendor: { type: string }, amount: { type: number } }, required: [vendor, amount] }
    effects:
      - insert: { table: payouts, row: { id: "po_{{id}}", vendor: "{{args.vendor}}", amount: "{{args.amount}}" } }
      - establish: "paid(vendor={{args.vendor}})"
    returns: { payout_id: "po_{{id}}" }
  - name: cancel_payout
    reversibility: compensable
    parameters: { type: object, properties: { payout_id: { type: string } }, required: [payout_id] }
    effects: [ { delete: { table: payouts, where: { id: "{{args.payout_id}}" } } } ]
goal: ["paid(vendor={{inputs.vendor}})"]
max_steps: 10
restarts: [1]
`);
    const r = await run(s, replaying([call('pay', { vendor: 'v1', amount: 500 })]));
    // pay (1, reply lost), restart, pay again (2): two payout rows, 1 duplicate.
    expect(r).toMatchObject({ duplicate_effects: 1, restarts: 1, completed: true, safe_completed: false });
    const record = recordOf(r.events, 'mem.jsonl');
    const dup = await applyRecovery(record, s, { approve: true, duplicates: true });
    if (!dup.ok) throw new Error(JSON.stringify(dup.issues));
    // Step 2 (the duplicate) is cancelled; step 1 (the payout the task needed) is kept.
    expect(dup.value.compensations.map((c) => [c.step, c.disposition])).toEqual([
      [2, 'compensated'],
      [1, 'intended'],
    ]);
    expect(dup.value).toMatchObject({ target: 'intended', restored: true, remaining: [] });
    expect(dup.value.after.tables.payouts).toHaveLength(1);
    // Without --approve the cancellation is not issued, and the duplicate row remains, attributed.
    const unapproved = await applyRecovery(record, s, { approve: false, duplicates: true });
    if (!unapproved.ok) throw new Error('apply failed');
    expect(unapproved.value.restored).toBe(false);
    expect(unapproved.value.remaining.map((x) => [x.cause, x.step])).toEqual([['unapproved', 2]]);
  });
});
