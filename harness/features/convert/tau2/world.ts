/**
 * tau2's databases as oneway tables. Rows keep tau2's fields; what a lookup needs as a column is
 * added beside them (a user's first_name/last_name/zip, a payment method's owner), payment methods
 * get a table of their own (a lookup finds one row by id), and derived columns carry what a
 * condition cannot compute:
 * - `spendable` on a payment method: what it can pay (a gift card's or certificate's balance; a card
 *   or PayPal is not limited by tau2, written as UNLIMITED);
 * - `original_payment_method_id` on a retail order: the method of its first payment (a return's
 *   refund goes to it or to a gift card; a condition cannot index a list);
 * - `cancel_eligible` on an airline reservation: the policy's cancellation conditions that the
 *   database decides (nothing flown, and booked within 24 hours of the policy's clock, a flight
 *   cancelled by the airline, business cabin, or travel insurance), evaluated at import.
 *
 * An airline flight is two tables: `flights` (its route and times) and `flight_dates` (one row per
 * flight and date: status, seats and prices by cabin), so a list lookup finds the row of each
 * `{flight_number, date}` of a booking. The policy's numbers a rule reads go in tables too:
 * `baggage_allowance` (free bags per passenger by membership and cabin) and `new_ids` (the ids tau2
 * gives the Nth reservation or certificate a task makes).
 */
import type { Tau2Domain } from './classes.ts';

export type Obj = Record<string, unknown>;
export type Tables = Record<string, Obj[]>;

/** What a card or PayPal account can pay in tau2: not limited. */
const UNLIMITED = 1_000_000_000;

/** The airline policy's clock ("The current time is 2024-05-15 15:00:00 EST"). */
export const AIRLINE_NOW = '2024-05-15T15:00:00';
const DAY_BEFORE = '2024-05-14T15:00:00';

const byKey = (key: string) => (a: Obj, b: Obj) => {
  const x = String(a[key]);
  const y = String(b[key]);
  return x < y ? -1 : x > y ? 1 : 0;
};

function paymentRows(userId: string, methods: Obj, balanceField: 'balance' | 'amount'): Obj[] {
  return Object.entries(methods).map(([id, m]) => {
    const method = m as Obj;
    const limited = method.source === 'gift_card' || method.source === 'certificate';
    return {
      payment_method_id: id,
      user_id: userId,
      ...method,
      spendable: limited ? Number(method[balanceField] ?? 0) : UNLIMITED,
    };
  });
}

function userRow(id: string, u: Obj): Obj {
  const name = (u.name ?? {}) as Obj;
  const address = (u.address ?? {}) as Obj;
  const { payment_methods: methods, ...rest } = u;
  return {
    user_id: id,
    ...rest,
    first_name: name.first_name,
    last_name: name.last_name,
    zip: address.zip,
    payment_methods: Object.keys((methods ?? {}) as Obj),
  };
}

/** An order with the method of its first payment beside its history (tau2 only appends to the history). */
function originalPayment(o: Obj): Obj {
  const first = ((o.payment_history ?? []) as Obj[])[0];
  return first === undefined ? o : { ...o, original_payment_method_id: first.payment_method_id };
}

/** Whether a reservation's cancellation is allowed by the facts the database holds (see the module doc). */
function cancelEligible(r: Obj, flights: Obj): 'yes' | 'no' {
  if (r.status === 'cancelled') return 'no';
  const segments = (r.flights ?? []) as Obj[];
  const statusOf = (s: Obj) =>
    ((
      ((flights[String(s.flight_number)] as Obj | undefined)?.dates as Obj | undefined)?.[String(s.date)] as
        Obj | undefined
    )?.status as string | undefined) ?? 'unknown';
  if (segments.some((s) => ['landed', 'flying'].includes(statusOf(s)))) return 'no';
  const recent = String(r.created_at ?? '') >= DAY_BEFORE;
  const airlineCancelled = segments.some((s) => statusOf(s) === 'cancelled');
  return recent || airlineCancelled || r.cabin === 'business' || r.insurance === 'yes' ? 'yes' : 'no';
}

/** The domain's tables, grouped by the shared world file that holds them (each file under 2 MiB). */
export function worldTables(domain: Tau2Domain, db: Obj): Record<string, Tables> {
  const users = (db.users ?? {}) as Record<string, Obj>;
  const userRows: Obj[] = [];
  const payments: Obj[] = [];
  const balance = domain === 'retail' ? 'balance' : 'amount';
  for (const id of Object.keys(users).sort()) {
    const u = users[id] as Obj;
    userRows.push(userRow(id, u));
    payments.push(...paymentRows(id, (u.payment_methods ?? {}) as Obj, balance));
  }
  payments.sort(byKey('payment_method_id'));
  if (domain === 'retail') {
    const products = Object.values((db.products ?? {}) as Record<string, Obj>).sort(byKey('product_id'));
    const items: Obj[] = [];
    for (const p of products)
      for (const v of Object.values((p.variants ?? {}) as Record<string, Obj>))
        items.push({ ...v, product_id: p.product_id });
    items.sort(byKey('item_id'));
    return {
      users: { users: userRows, payment_methods: payments },
      orders: {
        orders: Object.values((db.orders ?? {}) as Record<string, Obj>)
          .map(originalPayment)
          .sort(byKey('order_id')),
      },
      products: { products: products.map((p) => ({ product_id: p.product_id, name: p.name })), items },
    };
  }
  const flights = (db.flights ?? {}) as Obj;
  const reservations = Object.entries((db.reservations ?? {}) as Record<string, Obj>)
    .map(([id, r]) => ({ reservation_id: id, ...r, cancel_eligible: cancelEligible(r, flights) }))
    .sort(byKey('reservation_id'));
  const routes: Obj[] = [];
  const dated: Obj[] = [];
  for (const f of Object.values(flights as Record<string, Obj>).sort(byKey('flight_number'))) {
    const { dates, ...route } = f;
    routes.push(route);
    for (const date of Object.keys((dates ?? {}) as Obj).sort())
      dated.push({ flight_number: f.flight_number, date, ...((dates as Record<string, Obj>)[date] as Obj) });
  }
  return {
    users: { users: userRows, payment_methods: payments },
    reservations: { reservations },
    flights: { flights: routes },
    'flight-dates': { flight_dates: dated },
    policy: { baggage_allowance: BAGGAGE_ALLOWANCE, new_ids: NEW_IDS },
  };
}

/** The airline policy's free checked bags per passenger, by membership and cabin. */
const BAGGAGE_ALLOWANCE: Obj[] = [
  { membership: 'regular', basic_economy: 0, economy: 1, business: 2 },
  { membership: 'silver', basic_economy: 1, economy: 2, business: 3 },
  { membership: 'gold', basic_economy: 2, economy: 3, business: 4 },
];

/**
 * The ids tau2's airline tools give new rows, by their number in the task: reservations HATHAT,
 * HATHAU, HATHAV (the first not yet in the database; tau2 refuses a fourth), certificates
 * certificate_3221322..4 (the first the user does not hold yet).
 */
const NEW_IDS: Obj[] = [
  { kind: 'reservation', ids: { 1: 'HATHAT', 2: 'HATHAU', 3: 'HATHAV' } },
  { kind: 'certificate', ids: { 1: 'certificate_3221322', 2: 'certificate_3221323', 3: 'certificate_3221324' } },
];
