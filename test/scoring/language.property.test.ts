/**
 * The scenario language for real domains against the independent oracle: for random decision
 * sequences over a scenario with lookups, comparisons, validation, confirmations, derived values,
 * append, conditional effects, sequences and a self-compensating setter (and, over a flights
 * world, keys computed from arguments, list lookups on two fields and round()), with and without the
 * guard, the oracle's re-derivation (its own condition reader, table replay and license ledger)
 * equals the record's scores; and over list elements (within, all(...), set_element swaps that
 * later preconditions read, lookups ignoring case).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Decision } from '../../harness/core/planner.ts';
import { createGuard } from '../../harness/engine/guard/guard.ts';
import { planArbitrary } from '../../harness/features/fuzz/arbitraries.ts';
import { fuzzScenario } from '../../harness/features/fuzz/fuzz.ts';
import { oracleScores, recordedScores } from '../../harness/features/fuzz/oracle.ts';
import { decisionOf } from '../helpers/prop.ts';
import { BUILTIN_PROPERTIES, DEFAULT_PROPERTIES } from '../../harness/features/fuzz/properties.ts';
import { runDecisions, scenarioFrom } from '../helpers/run.ts';
import { LINES_YAML, RETAIL_YAML } from '../helpers/language.ts';

// More comparisons than the hand-computed cases need: numeric, with arithmetic, len(), "in" over a row's list, and / or
// with parentheses, a list lookup (an element without a row: c) summed, and a for_each that lowers the prices it sums.
const scenario = scenarioFrom(
  RETAIL_YAML.replace(
    '    parameters: { type: object, properties: { cabin: { type: string } }, required: [cabin] }',
    '    parameters: { type: object, properties: { cabin: { type: string } }, required: [cabin] }\n    faults: [ { probability: 0.3, status: 504, applied: true } ]',
  )
    .replace(
      '    parameters: { type: object, properties: { user_id: { type: string }, amount: { type: number } }, required: [user_id, amount] }',
      '    parameters: { type: object, properties: { user_id: { type: string }, amount: { type: number } }, required: [user_id, amount] }\n    preconditions: [ { when: "({{user.gift_card_balance}} + {{args.amount}} < 100 or {{args.amount}} == 5) and {{args.amount}} != 21.1 or {{args.amount}} == 10.1 and ({{user.nope}} == 1 or 1 == 1)" } ]',
    )
    .replace(
      '    reservations: []\n',
      '    reservations: []\n    items: [ { id: a, price: 2 }, { id: b, price: 3.5 } ]\n',
    )
    .replace(
      '  - name: exchange\n    reversibility: irreversible\n',
      '  - name: exchange\n    reversibility: irreversible\n    lookups: { picked: { table: items, where: { id: "{{args.items}}" }, each: true } }\n    preconditions: [ { when: "sum({{picked[*].price}}) > 2 or len({{picked}}) == 0" } ]\n',
    )
    .replace(
      '      - establish: "exchanged(order={{args.order_id}})"\n',
      '      - establish: "exchanged(order={{args.order_id}})"\n      - for_each: { in: "{{args.items}}", as: it, zip: { p: "{{picked}}" }, do: [ { update: { table: items, where: { id: "{{it}}" }, set: { price: "= {{p.price}} - 1" } } }, { if: "{{p.price}} > 2", establish: "costly(item={{it}})" } ] }\n',
    )
    .replace(
      '    validate:\n',
      '    preconditions: [ { when: "len({{order.payments}}) < 2" }, { when: "{{args.amount}} not in {{order.payments}}" } ]\n    validate:\n',
    ),
);
const retailPlain = scenarioFrom(RETAIL_YAML);
const orders = ['#W1', '#W2', '#W9'];
const reasons = ['no longer needed', 'other'];
const cancelArgs = fc.record({ order_id: fc.constantFrom(...orders), reason: fc.constantFrom(...reasons) });
const exchangeArb = fc
  .constantFrom(['a', 'b'], ['b', 'a'], ['a'], ['a', 'c'])
  .chain((items) =>
    fc.constantFrom(
      { tool: 'confirm', args: { tool: 'exchange', args: { order_id: '#W1', items } } },
      { tool: 'exchange', args: { order_id: '#W1', items } },
    ),
  );
const callArb = fc.oneof(
  exchangeArb,
  exchangeArb,
  cancelArgs.map((args) => ({ tool: 'confirm', args: { tool: 'cancel_pending_order', args } })),
  cancelArgs.map((args) => ({ tool: 'cancel_pending_order', args })),
  fc
    .record({ order_id: fc.constantFrom(...orders), amount: fc.constantFrom(5, 10.1, 21.1) })
    .map((args) => ({ tool: 'pay_with_gift_card', args })),
  fc.constantFrom(5, 10.1).map((amount) => ({ tool: 'refund_gift_card', args: { user_id: 'u1', amount } })),
  fc.constantFrom(5, 10.1).map((amount) => ({ tool: 'refund_gift_card', args: { user_id: 'u1', amount } })),
  fc
    .record({ order_id: fc.constantFrom('#W1', '#W2'), address: fc.constantFrom('1 Main St', '9 Elm St') })
    .map((args) => ({ tool: 'update_address', args })),
  fc.constantFrom('economy', 'business').map((cabin) => ({ tool: 'book', args: { cabin } })),
);
const decisionArb = decisionOf(callArb);

describe('the scenario language against the independent oracle', () => {
  it('agrees on every score for any decision sequence, with and without the guard', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(decisionArb, { minLength: 1, maxLength: 7 }),
        fc.integer({ min: 0, max: 1000 }),
        fc.boolean(),
        async (decisions, seed, guarded) => {
          const r = await runDecisions(scenario, decisions, { seed, ...(guarded ? { gate: createGuard() } : {}) });
          const o = oracleScores(r.events, scenario);
          expect(o).toEqual(recordedScores(r.events));
        },
      ),
      { numRuns: 300 },
    );
  });
});

// Lists from a few ids, so that repeats (within's counts), equal pairs (all's !=) and swaps of a
// swapped line (set_element on the list as the earlier pairs left it) come up often.
const lines = scenarioFrom(LINES_YAML);
const idList = fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { minLength: 0, maxLength: 3 });
const lineCallArb = fc.oneof(
  fc
    .record({
      email: fc.constantFrom('alice@example.com', 'ALICE@Example.com', 'Bob@EXAMPLE.com', 'carol@example.com'),
      zip: fc.constantFrom('10001', '20002'),
    })
    .map((args) => ({ tool: 'find_user', args })),
  fc
    .tuple(idList, idList)
    .map(([item_ids, new_item_ids]) => ({ tool: 'modify_items', args: { order_id: '#W1', item_ids, new_item_ids } })),
  // Pairs of equal length: the swap applies more often than with two random lists.
  idList.chain((item_ids) =>
    fc
      .array(fc.constantFrom('a', 'b', 'c', 'd'), { minLength: item_ids.length, maxLength: item_ids.length })
      .map((new_item_ids) => ({ tool: 'modify_items', args: { order_id: '#W1', item_ids, new_item_ids } })),
  ),
  idList.map((item_ids) => ({ tool: 'return_items', args: { order_id: '#W1', item_ids } })),
  fc
    .constantFrom('alice@example.com', 'ALICE@EXAMPLE.COM', 'bob@example.com')
    .map((email) => ({ tool: 'email_receipt', args: { email } })),
);
const lineDecisionArb: fc.Arbitrary<Decision> = fc
  .array(lineCallArb, { minLength: 1, maxLength: 3 })
  .map((calls) => (calls.length === 1 ? { type: 'call', call: calls[0]! } : { type: 'batch', calls }));

describe('list elements against the independent oracle', () => {
  it('agrees on every score when swaps change the lines later preconditions count, with and without the guard', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(lineDecisionArb, { minLength: 1, maxLength: 7 }),
        fc.integer({ min: 0, max: 1000 }),
        fc.boolean(),
        async (decisions, seed, guarded) => {
          const r = await runDecisions(lines, decisions, { seed, ...(guarded ? { gate: createGuard() } : {}) });
          expect(oracleScores(r.events, lines)).toEqual(recordedScores(r.events));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('fuzzing a scenario written in the language', () => {
  it('generates plans that ask for the confirmations the table lists and make the confirmed calls; every default property holds, and HTTP equals in process', async () => {
    const plans = fc.sample(planArbitrary(retailPlain), { numRuns: 80, seed: 4 });
    const calls = plans.flatMap((p) =>
      p.flatMap((item) => (typeof item === 'object' && !('parallel' in item) ? [item] : [])),
    );
    // A confirmation asked about a call in the table, and that very call made.
    expect(
      calls.some(
        (c) =>
          JSON.stringify(c.confirm) ===
          JSON.stringify({ tool: 'cancel_pending_order', args: { order_id: '#W1', reason: 'no longer needed' } }),
      ),
    ).toBe(true);
    expect(
      calls.some(
        (c) =>
          JSON.stringify(c.cancel_pending_order) === JSON.stringify({ order_id: '#W1', reason: 'no longer needed' }),
      ),
    ).toBe(true);
    const report = await fuzzScenario({
      scenario: retailPlain,
      properties: BUILTIN_PROPERTIES.filter(
        (p) => DEFAULT_PROPERTIES.includes(p.name) || p.name === 'transport-equivalence',
      ),
      runs: 40,
      seed: 2,
    });
    expect(report.failures).toEqual([]);
  });
});

// Flights by number and date (a list lookup on two fields), seats and prices read under the cabin the
// call names, the seats taken per flight (so later calls read what earlier ones left, and min() refuses
// a flight short of them), count() and max(), items by index (-1: the last), a total in cents.
const flights = scenarioFrom(`
id: flights-prop
title: Book flights
task: Book flights.
world:
  tables:
    flight_dates:
      - { flight_number: F1, date: d1, status: available, prices: { economy: 100, business: 300 }, available_seats: { economy: 3, business: 1 } }
      - { flight_number: F1, date: d2, status: available, prices: { economy: 110.5, business: 320 }, available_seats: { economy: 5, business: 2 } }
      - { flight_number: F2, date: d1, status: landed }
      - { flight_number: F2, date: d2, status: available, prices: { economy: 50.25, business: 200 }, available_seats: { economy: 4, business: 3 } }
    ids:
      - { kind: booking, ids: { 1: BK-A, 2: BK-B } }
    bookings: []
tools:
  - name: book
    reversibility: irreversible
    parameters:
      type: object
      properties: { cabin: { type: string }, flights: { type: array, items: { type: object } }, passengers: { type: integer }, amount: { type: number } }
      required: [cabin, flights, passengers, amount]
    lookups:
      legs: { table: flight_dates, where: { flight_number: "{{args.flights[*].flight_number}}", date: "{{args.flights[*].date}}" }, each: true }
      names: { table: ids, where: { kind: booking } }
    preconditions:
      - when: "round(sum({{legs[*].prices[args.cabin]}}) * {{args.passengers}} * 1.01, 2) == {{args.amount}}"
      - when: "sum({{legs[*].available_seats[args.cabin]}}) >= len({{legs}}) * {{args.passengers}}"
      - when: "count({{legs[*].status}}, available) == len({{legs}})"
      - when: "{{legs[-1].available_seats[args.cabin]}} > 2 or {{args.flights[0].date}} == d1"
      - when: "max({{legs[*].available_seats[args.cabin]}}) > 4 or {{args.passengers}} == 1"
    validate:
      - { when: "landed not in {{legs[*].status}}", error: "Flight not available" }
      - { when: "min({{legs[*].available_seats[args.cabin]}}) >= {{args.passengers}}", error: "Not enough seats" }
    returns: { booking: "{{names.ids[seq.bookings]}}" }
    effects:
      - insert: { table: bookings, row: { id: "{{names.ids[seq.bookings]}}", cabin: "{{args.cabin}}" } }
      - for_each:
          in: "{{args.flights}}"
          as: f
          zip: { leg: "{{legs}}" }
          do:
            - if: "{{args.cabin}} == economy"
              update: { table: flight_dates, where: { flight_number: "{{f.flight_number}}", date: "{{f.date}}" }, set: { available_seats: { economy: "= {{leg.available_seats[args.cabin]}} - {{args.passengers}}", business: "{{leg.available_seats.business}}" } } }
            - if: "{{args.cabin}} == business"
              update: { table: flight_dates, where: { flight_number: "{{f.flight_number}}", date: "{{f.date}}" }, set: { available_seats: { economy: "{{leg.available_seats.economy}}", business: "= {{leg.available_seats[args.cabin]}} - {{args.passengers}}" } } }
            - if: "{{leg.available_seats[args.cabin]}} - {{args.passengers}} <= 0"
              establish: "sold_out(flight={{f.flight_number}}, date={{f.date}})"
      - establish: "booked(id={{names.ids[seq.bookings]}}, cabin={{args.cabin}})"
goal: ["booked(id=BK-A, cabin=economy)"]
forbidden: ["sold_out(flight=F1, date=d2)"]
max_steps: 20
`);
const legsArb = fc.constantFrom(
  [
    { flight_number: 'F1', date: 'd2' },
    { flight_number: 'F2', date: 'd2' },
  ],
  [{ flight_number: 'F1', date: 'd1' }],
  [{ flight_number: 'F2', date: 'd1' }],
  [{ flight_number: 'F3', date: 'd2' }],
);
// 324.72 is the economy total of F1 and F2 on d2 for 2 (a half rounded away from zero), 1050.4 the business one.
const bookArb = fc
  .record({
    cabin: fc.constantFrom('economy', 'business'),
    flights: legsArb,
    passengers: fc.constantFrom(1, 2),
    amount: fc.constantFrom(324.72, 324.71, 1050.4, 101, 303),
  })
  .map((args) => ({ tool: 'book', args }));
const flightDecisionArb: fc.Arbitrary<Decision> = fc
  .array(bookArb, { minLength: 1, maxLength: 2 })
  .map((calls) => (calls.length === 1 ? { type: 'call', call: calls[0]! } : { type: 'batch', calls }));

describe('keys computed from values, two-field list lookups, round(), min(), max() and count() against the independent oracle', () => {
  it('agrees on every score for any sequence of bookings, with and without the guard', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(flightDecisionArb, { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 0, max: 1000 }),
        fc.boolean(),
        async (decisions, seed, guarded) => {
          const r = await runDecisions(flights, decisions, { seed, ...(guarded ? { gate: createGuard() } : {}) });
          expect(oracleScores(r.events, flights)).toEqual(recordedScores(r.events));
        },
      ),
      { numRuns: 200 },
    );
  });
});
