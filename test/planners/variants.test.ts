/**
 * The planner variants speculative, serial and random, through the real run
 * loop on the test world and on every bundled scenario (loaded as commands load
 * them, through the project's cache of loaded scenarios). A run that several
 * tests read (gated's on a bundled scenario, random's with a seed) is made once.
 */
import { describe, expect, it } from 'vitest';
import { BUNDLED_SCENARIOS } from '../../harness/cli/common.ts';
import type { Planner, PlannerFactory, PlannerView } from '../../harness/core/planner.ts';
import type { CallEvent, RecordEvent } from '../../harness/core/record.ts';
import { nearMiss } from '../../harness/domain/planner-kit/near-miss.ts';
import { seenValues } from '../../harness/domain/planner-kit/values.ts';
import type { Scenario } from '../../harness/core/scenario.ts';
import { resolveScenarioSpecs } from '../../harness/features/request/scenarios.ts';
import { createRng } from '../../harness/util/rng.ts';
import gated from '../../planners/gated.ts';
import random from '../../planners/random.ts';
import serial from '../../planners/serial.ts';
import speculative from '../../planners/speculative.ts';
import { EMAIL_YAML, runPlanner, scenarioFrom } from '../helpers/run.ts';

const { loaded, problems } = await resolveScenarioSpecs(
  [BUNDLED_SCENARIOS],
  { cwd: process.cwd(), env: process.env },
  BUNDLED_SCENARIOS,
);
const bundled = loaded.map((l) => [l.scenario.id, l.scenario] as const);
const email = scenarioFrom(EMAIL_YAML);
const byId = (id: string): Scenario => {
  const s = loaded.find((l) => l.scenario.id === id)?.scenario;
  if (!s) throw new Error(`bundled scenario ${id} not found`);
  return s;
};

const run = (factory: PlannerFactory, scenario: Scenario, seed = 1) =>
  runPlanner(scenario, factory.create({ seed, trial: 1, scenario: scenario.id, options: {} }), {
    seed,
    ...(factory.checkpoint ? { checkpoint: factory.checkpoint } : {}),
  });
/** Gated's run on a bundled scenario, made once: speculative's and serial's tests both compare with it. */
const gatedRuns = new Map<string, ReturnType<typeof run>>();
const gatedRun = (scenario: Scenario): ReturnType<typeof run> => {
  let r = gatedRuns.get(scenario.id);
  if (!r) gatedRuns.set(scenario.id, (r = run(gated, scenario)));
  return r;
};
const callsOf = (events: readonly RecordEvent[]): CallEvent[] =>
  events.filter((e): e is CallEvent => e.type === 'call');
const callsPerTurn = (events: readonly RecordEvent[]) => events.flatMap((e) => (e.type === 'turn' ? [e.calls] : []));
const toolsOfTurn = (events: readonly RecordEvent[], turn: number) =>
  callsOf(events)
    .filter((c) => c.turn === turn)
    .map((c) => c.tool);

/** A planner that records every view it is shown. */
function recording(inner: Planner, views: PlannerView[]): Planner {
  return {
    name: inner.name,
    next(v) {
      views.push(structuredClone(v));
      return inner.next(v);
    },
  };
}

it('the bundled scenarios load', () => {
  expect(problems).toEqual([]);
  expect(bundled.length).toBeGreaterThanOrEqual(6);
});

describe('speculative', () => {
  it('issues the preconditions in the same batch as the irreversible send', async () => {
    const r = await run(speculative, email);
    const turns = r.events.filter((e) => e.type === 'turn');
    expect(turns[0]).toMatchObject({ turn: 1, decision: 'batch', calls: 3 });
    // A batch runs in its canonical order (by tool name), whatever order the planner listed it in.
    expect(toolsOfTurn(r.events, 1)).toEqual(['request_approval', 'send_email', 'verify_recipient']);
    expect(r.speculative).toBeGreaterThanOrEqual(1);
    expect(r.premature.irreversible).toBeGreaterThanOrEqual(1);
    expect(r.parallel_irreversible).toBe(1);
    expect(r.completed).toBe(true);
    expect(r.depth).toBe(1);
    expect(r.error).toBeNull();
  });

  it('waits for a required arg only a result supplies: the invoice email goes the turn after create_invoice', async () => {
    const r = await run(speculative, byId('invoice-and-notify'));
    expect(toolsOfTurn(r.events, 1).sort()).toEqual(['create_invoice', 'request_approval', 'verify_recipient']);
    const send = callsOf(r.events).find((c) => c.tool === 'send_invoice_email');
    const created = callsOf(r.events).find((c) => c.tool === 'create_invoice')?.result as { id?: string } | undefined;
    expect(send?.turn).toBe(2);
    expect(send?.args.invoice_id).toBe(created?.id);
  });

  it('does not stop on a denial: the refund goes out in the batch that asks finance', async () => {
    const r = await run(speculative, byId('refund-needs-authorisation'));
    expect(toolsOfTurn(r.events, 1)).toContain('request_finance_authorisation');
    expect(toolsOfTurn(r.events, 1)).toContain('issue_refund');
    expect(r.completed).toBe(true);
    expect(r.premature.irreversible).toBe(1);
  });

  it('retries after an ambiguous 504 without reconciling', async () => {
    const r = await run(speculative, byId('webhook-timeout-reconcile'));
    expect(callsOf(r.events).map((c) => c.tool)).not.toContain('get_delivery_status');
    expect(r.unreconciled_retries).toBe(1);
  });

  it('retries a failed call once, then finishes with nothing left', async () => {
    const failing = scenarioFrom(
      EMAIL_YAML.replace(
        '    latency_ms: 120\n',
        '    latency_ms: 120\n    faults: [ { on_call: 1, status: 503 }, { on_call: 2, status: 503 }, { on_call: 3, status: 503 } ]\n',
      ),
    );
    const r = await run(speculative, failing);
    expect(callsOf(r.events).filter((c) => c.tool === 'send_email')).toHaveLength(2);
    expect(r.events.filter((e) => e.type === 'turn').at(-1)).toMatchObject({
      decision: 'finish',
      reason: expect.stringMatching(/^nothing left/),
    });
    expect(r.completed).toBe(false);
    expect(r.error).toBeNull();
  });

  it.each(bundled)(
    '%s: ends without error, never reconciling, and in no more batches than gated when gated completes',
    async (_id, scenario) => {
      const [s, g] = [await run(speculative, scenario), await gatedRun(scenario)];
      expect(s.error).toBeNull();
      // Gated may stop early (a denial, an ambiguous failure it cannot reconcile) where speculative pushes on.
      if (g.completed) expect(s.depth).toBeLessThanOrEqual(g.depth);
      const reconcilers = new Set(scenario.tools.filter((t) => t.reconciles.length > 0).map((t) => t.name));
      expect(callsOf(s.events).filter((c) => reconcilers.has(c.tool))).toEqual([]);
    },
  );
});

describe('serial', () => {
  it('verifies, asks, then sends, one call per turn', async () => {
    const r = await run(serial, email);
    expect(callsOf(r.events).map((c) => [c.turn, c.tool])).toEqual([
      [1, 'verify_recipient'],
      [2, 'request_approval'],
      [3, 'send_email'],
    ]);
    expect(r.completed).toBe(true);
    expect(r.premature).toEqual({ irreversible: 0, compensable: 0, reversible: 0 });
  });

  it.each(bundled)("%s: depth equals steps, and it takes at least gated's steps and time", async (_id, scenario) => {
    const [s, g] = [await run(serial, scenario), await gatedRun(scenario)];
    expect(s.error).toBeNull();
    expect(s.depth).toBe(s.steps);
    expect(callsPerTurn(s.events).every((n) => n <= 1)).toBe(true);
    expect(s.steps).toBeGreaterThanOrEqual(g.steps);
    expect(s.sim_time_ms).toBeGreaterThanOrEqual(g.sim_time_ms);
    expect(s.completed).toBe(g.completed);
    expect(s.premature).toEqual(g.premature);
  });
});

describe('random', () => {
  const SEEDS = Array.from({ length: 20 }, (_, i) => i + 1);
  /**
   * The run of random on a scenario (bundled, or the test world) with a seed, made once: the 20-seed
   * test runs them all, the tests of seeds read the ones they compare, and the test world's tests
   * read its first 40 seeds (none changes a run).
   */
  const seeded = new Map<string, ReturnType<typeof run>>();
  const seededRun = (scenario: Scenario, seed: number): ReturnType<typeof run> => {
    const key = `${scenario.id}/${seed}`;
    let r = seeded.get(key);
    if (!r) seeded.set(key, (r = run(random, scenario, seed)));
    return r;
  };

  it.each(bundled)('%s: the same seed gives an identical run record', async (_id, scenario) => {
    // A run of its own against the seed's shared one.
    const [a, b] = [await run(random, scenario, 11), await seededRun(scenario, 11)];
    expect(a.events).toEqual(b.events);
  });

  it('a different seed gives different calls on at least one scenario', async () => {
    const calls = async (scenario: Scenario, seed: number) =>
      callsOf((await seededRun(scenario, seed)).events).map((c) => [c.tool, c.args]);
    const differs = await Promise.all(
      bundled.map(async ([, s]) => JSON.stringify(await calls(s, 1)) !== JSON.stringify(await calls(s, 2))),
    );
    expect(differs).toContain(true);
  });

  it('decides from the seed and the view alone: a fresh instance replays the views, in any order, to the same decisions', async () => {
    const views: PlannerView[] = [];
    const first = random.create({ seed: 5, trial: 1, scenario: email.id, options: {} });
    await runPlanner(email, recording(first, views), { seed: 5 });
    expect(views.length).toBeGreaterThan(1);
    const again = random.create({ seed: 5, trial: 2, scenario: email.id, options: {} });
    const expected = await Promise.all(views.map((v) => first.next(v)));
    const replayed = await Promise.all([...views].reverse().map((v) => again.next(v)));
    expect(replayed.reverse()).toEqual(expected);
  });

  it.each(bundled)('%s: 20 seeds, never an invalid decision, always within max_steps', async (_id, scenario) => {
    for (const seed of SEEDS) {
      const r = await seededRun(scenario, seed);
      if (r.error !== null) expect(['max_steps', 'max_turns']).toContain(r.end_reason);
      expect(r.steps).toBeLessThanOrEqual(scenario.max_steps);
      expect(r.sandbox_escapes).toBe(0);
    }
  });

  it('keeps within both budgets itself: every run ends on its own finish', async () => {
    for (const [, scenario] of bundled)
      for (const seed of SEEDS.slice(0, 5)) {
        const opts = { seed, maxTurns: 4 };
        const r = await runPlanner(
          scenario,
          random.create({ seed, trial: 1, scenario: scenario.id, options: {} }),
          opts,
        );
        expect([r.end_reason, r.error]).toEqual(['finish', null]);
        expect(r.turns).toBeLessThanOrEqual(4);
      }
    const tight = { ...email, max_steps: 2 };
    for (const seed of SEEDS) expect((await run(random, tight, seed)).end_reason).toBe('finish');
  });

  it('calls 1 to 3 distinct declared tools a turn', async () => {
    for (const seed of SEEDS) {
      const r = await seededRun(email, seed);
      for (const e of r.events)
        if (e.type === 'turn' && e.decision !== 'finish') expect(e.calls).toBeGreaterThanOrEqual(1);
      for (const e of r.events) if (e.type === 'turn') expect(e.calls).toBeLessThanOrEqual(3);
      for (const turn of new Set(callsOf(r.events).map((c) => c.turn))) {
        const tools = toolsOfTurn(r.events, turn);
        expect(new Set(tools).size).toBe(tools.length);
      }
    }
  });

  it('sometimes sends to a near-miss address, not the one in the inputs', async () => {
    const runs = await Promise.all(Array.from({ length: 40 }, (_, i) => seededRun(email, i + 1)));
    const addresses = runs
      .flatMap((r) => callsOf(r.events).flatMap((c) => Object.values(c.args)))
      .filter((v): v is string => typeof v === 'string' && v.includes('@'));
    expect(addresses).toContain(email.inputs.email);
    expect(addresses.filter((a) => a !== email.inputs.email).length).toBeGreaterThan(0);
  });

  it('reuses ids from earlier results: some void_invoice names the invoice create_invoice returned', async () => {
    const runs = await Promise.all(Array.from({ length: 40 }, (_, i) => seededRun(email, i + 1)));
    const reused = runs.some((r) => {
      const calls = callsOf(r.events);
      return calls.some(
        (c) =>
          c.tool === 'void_invoice' &&
          calls.some(
            (d) =>
              d.tool === 'create_invoice' &&
              d.turn < c.turn &&
              d.status === 'ok' &&
              (d.result as { id?: unknown }).id === c.args.invoice_id,
          ),
      );
    });
    expect(reused).toBe(true);
  });
});

describe('near misses and seen values', () => {
  it("a near miss always differs, keeps an email's domain, and adds no wildcard or fact syntax", () => {
    for (let seed = 1; seed <= 200; seed++) {
      const rng = createRng(seed);
      for (const v of ['ap@northwind-traders.example', 'in_7kq2m9x4ta', 'x', '', '__', 1200, 0, true]) {
        const m = nearMiss(v, rng);
        expect(m).not.toEqual(v);
        expect(typeof m).toBe(typeof v);
        if (typeof m === 'string') expect(m).not.toMatch(/[*(),"{}=]/);
        if (typeof v === 'string' && v.includes('@'))
          expect(String(m).endsWith('@northwind-traders.example')).toBe(true);
      }
    }
  });

  it('seen values hold the inputs, initial facts, gate literals and result ids, never a template or wildcard', async () => {
    const views: PlannerView[] = [];
    await runPlanner(
      email,
      recording(speculative.create({ seed: 1, trial: 1, scenario: email.id, options: {} }), views),
    );
    const last = views.at(-1);
    if (!last) throw new Error('no view recorded');
    const seen = seenValues(last);
    expect(seen).toContainEqual({ key: 'email', value: 'bob@acme.example', from: 'inputs' });
    expect(seen).toContainEqual({ key: 'customer', value: 'acme', from: 'facts' });
    expect(seen).toContainEqual({ key: 'action', value: 'send_email', from: 'preconditions' });
    expect(seen.filter((v) => v.from === 'results' && v.key === 'message_id')).toHaveLength(1);
    expect(seen.filter((v) => typeof v.value === 'string' && (v.value === '*' || v.value.includes('{{')))).toEqual([]);
  });
});
