/**
 * tau2's own checks on a task's gold writes, re-done in TypeScript against a copy of the database in
 * the order the gold lists them (each write sees the earlier ones' changes, as in tau2). tau2 ignores
 * errors when it replays the gold to build the expected database, so a gold write that fails there
 * is a corpus defect: the expected end state does not contain it, and an agent that skips the write
 * passes. The importer leaves such a write out of the task's goal and lists it in the report.
 *
 * Only what decides success is re-done (statuses, lists, balances, prices, seats); rows a failing
 * check never reads are not kept up to date.
 */
import type { Tau2Domain } from './classes.ts';
import type { Obj } from './world.ts';

export interface GoldCall {
  name: string;
  arguments: Obj;
}

/** Why tau2 refuses the call, or undefined when it succeeds there. */
type Check = (db: Obj, args: Obj) => string | undefined;

const money = (n: number) => Math.round(n * 100) / 100;
const table = (db: Obj, name: string) => (db[name] ?? {}) as Record<string, Obj>;
const list = (v: unknown) => (Array.isArray(v) ? (v as unknown[]) : []);
const count = (xs: unknown[], x: unknown) => xs.filter((y) => y === x).length;

function userMethod(db: Obj, userId: unknown, id: unknown): Obj | undefined {
  const user = table(db, 'users')[String(userId)];
  return (user?.payment_methods as Record<string, Obj> | undefined)?.[String(id)];
}

/** Retail: the checks of exchange and modify-items, which share everything but the status. */
function itemSwap(status: 'delivered' | 'pending', apply: boolean): Check {
  return (db, a) => {
    const order = table(db, 'orders')[String(a.order_id)];
    if (!order) return 'Order not found';
    if (order.status !== status)
      return `Non-${status} order cannot be ${status === 'pending' ? 'modified' : 'exchanged'}`;
    const items = list(order.items) as Obj[];
    const all = items.map((i) => i.item_id);
    const olds = list(a.item_ids);
    const news = list(a.new_item_ids);
    for (const id of olds) if (count(olds, id) > count(all, id)) return `${String(id)} not found`;
    if (olds.length !== news.length) return 'The number of items to be exchanged should match';
    let diff = 0;
    for (let k = 0; k < olds.length; k++) {
      if (status === 'pending' && olds[k] === news[k])
        return 'The new item id should be different from the old item id';
      const item = items.find((i) => i.item_id === olds[k]);
      if (!item) return `Item ${String(olds[k])} not found`;
      const product = table(db, 'products')[String(item.product_id)];
      const variant = (product?.variants as Record<string, Obj> | undefined)?.[String(news[k])];
      if (!variant || variant.available !== true) return `New item ${String(news[k])} not found or available`;
      diff += Number(variant.price) - Number(item.price);
    }
    diff = money(diff);
    const method = userMethod(db, order.user_id, a.payment_method_id);
    if (!method) return 'Payment method not found';
    if (method.source === 'gift_card' && Number(method.balance) < diff)
      return `Insufficient gift card balance (${Number(method.balance).toFixed(2)}) for the price difference ${diff.toFixed(2)}`;
    if (apply && method.source === 'gift_card') method.balance = money(Number(method.balance) - diff);
    order.status = status === 'pending' ? 'pending (item modified)' : 'exchange requested';
    return undefined;
  };
}

const RETAIL: Record<string, Check> = {
  cancel_pending_order: (db, a) => {
    const order = table(db, 'orders')[String(a.order_id)];
    if (!order) return 'Order not found';
    if (order.status !== 'pending') return 'Non-pending order cannot be cancelled';
    if (!['no longer needed', 'ordered by mistake'].includes(String(a.reason))) return 'Invalid reason';
    for (const p of list(order.payment_history) as Obj[]) {
      const m = userMethod(db, order.user_id, p.payment_method_id);
      if (!m) return 'Payment method not found';
      if (m.source === 'gift_card') m.balance = money(Number(m.balance) + Number(p.amount));
    }
    order.status = 'cancelled';
    return undefined;
  },
  exchange_delivered_order_items: itemSwap('delivered', false),
  modify_pending_order_items: itemSwap('pending', true),
  modify_pending_order_address: (db, a) => {
    const order = table(db, 'orders')[String(a.order_id)];
    if (!order) return 'Order not found';
    if (!String(order.status).includes('pending')) return 'Non-pending order cannot be modified';
    return undefined;
  },
  modify_pending_order_payment: (db, a) => {
    const order = table(db, 'orders')[String(a.order_id)];
    if (!order) return 'Order not found';
    if (!String(order.status).includes('pending')) return 'Non-pending order cannot be modified';
    const method = userMethod(db, order.user_id, a.payment_method_id);
    if (!method) return 'Payment method not found';
    const history = list(order.payment_history) as Obj[];
    const first = history[0];
    if (history.length !== 1 || first?.transaction_type !== 'payment')
      return 'There should be exactly one payment for a pending order';
    if (first.payment_method_id === a.payment_method_id)
      return 'The new payment method should be different from the current one';
    const amount = Number(first.amount);
    if (method.source === 'gift_card' && Number(method.balance) < amount)
      return 'Insufficient gift card balance to pay for the order';
    if (method.source === 'gift_card') method.balance = money(Number(method.balance) - amount);
    const old = userMethod(db, order.user_id, first.payment_method_id);
    if (old?.source === 'gift_card') old.balance = money(Number(old.balance) + amount);
    order.payment_history = [...history, { transaction_type: 'payment' }, { transaction_type: 'refund' }];
    return undefined;
  },
  modify_user_address: (db, a) => (table(db, 'users')[String(a.user_id)] ? undefined : 'User not found'),
  return_delivered_order_items: (db, a) => {
    const order = table(db, 'orders')[String(a.order_id)];
    if (!order) return 'Order not found';
    if (order.status !== 'delivered') return 'Non-delivered order cannot be returned';
    const method = userMethod(db, order.user_id, a.payment_method_id);
    if (!method) return 'Payment method not found';
    const original = (list(order.payment_history)[0] as Obj | undefined)?.payment_method_id;
    if (method.source !== 'gift_card' && a.payment_method_id !== original)
      return 'Payment method should be the original payment method';
    const all = (list(order.items) as Obj[]).map((i) => i.item_id);
    const ids = list(a.item_ids);
    for (const id of ids) if (count(ids, id) > count(all, id)) return 'Some item not found';
    order.status = 'return requested';
    return undefined;
  },
};

function flightDate(db: Obj, number: unknown, date: unknown): Obj | string {
  const flight = table(db, 'flights')[String(number)];
  if (!flight) return 'Flight not found';
  const d = (flight.dates as Record<string, Obj> | undefined)?.[String(date)];
  return d ?? `Flight ${String(number)} not found on date ${String(date)}`;
}

/** tau2's `_payment_for_update`: the method exists, is no certificate, and a gift card covers the total. */
function payForUpdate(db: Obj, userId: unknown, paymentId: unknown, total: number): string | undefined {
  const m = userMethod(db, userId, paymentId);
  if (!m) return 'Payment method not found';
  if (m.source === 'certificate') return 'Certificate cannot be used to update reservation';
  if (m.source === 'gift_card' && Number(m.amount) < total) return 'Gift card balance is not enough';
  if (m.source === 'gift_card') m.amount = Number(m.amount) - total;
  return undefined;
}

const NEW_RESERVATIONS = ['HATHAT', 'HATHAU', 'HATHAV'];

const AIRLINE: Record<string, Check> = {
  book_reservation: (db, a) => {
    const user = table(db, 'users')[String(a.user_id)];
    if (!user) return 'User not found';
    const reservations = table(db, 'reservations');
    const id = NEW_RESERVATIONS.find((r) => !(r in reservations));
    if (!id) return 'Too many reservations';
    const passengers = list(a.passengers).length;
    const cabin = String(a.cabin);
    let total = 0;
    const taken: Obj[] = [];
    for (const f of list(a.flights) as Obj[]) {
      const d = flightDate(db, f.flight_number, f.date);
      if (typeof d === 'string') return d;
      if (d.status !== 'available') return `Flight ${String(f.flight_number)} not available on date ${String(f.date)}`;
      const seats = Number((d.available_seats as Obj)[cabin]);
      if (seats < passengers) return `Not enough seats on flight ${String(f.flight_number)}`;
      total += Number((d.prices as Obj)[cabin]) * passengers;
      taken.push(d);
    }
    if (a.insurance === 'yes') total += 30 * passengers;
    total += 50 * Number(a.nonfree_baggages);
    const methods = (user.payment_methods ?? {}) as Record<string, Obj>;
    for (const p of list(a.payment_methods) as Obj[]) {
      const m = methods[String(p.payment_id)];
      if (!m) return `Payment method ${String(p.payment_id)} not found`;
      if ((m.source === 'gift_card' || m.source === 'certificate') && Number(m.amount) < Number(p.amount))
        return `Not enough balance in payment method ${String(p.payment_id)}`;
    }
    const paid = (list(a.payment_methods) as Obj[]).reduce((s, p) => s + Number(p.amount), 0);
    if (paid !== total) return `Payment amount does not add up, total price is ${total}, but paid ${paid}`;
    for (const p of list(a.payment_methods) as Obj[]) {
      const m = methods[String(p.payment_id)] as Obj;
      if (m.source === 'gift_card') m.amount = Number(m.amount) - Number(p.amount);
      else if (m.source === 'certificate') delete methods[String(p.payment_id)];
    }
    for (const d of taken) (d.available_seats as Obj)[cabin] = Number((d.available_seats as Obj)[cabin]) - passengers;
    reservations[id] = { reservation_id: id, user_id: a.user_id, cabin, flights: a.flights, passengers: a.passengers };
    return undefined;
  },
  cancel_reservation: (db, a) => {
    const r = table(db, 'reservations')[String(a.reservation_id)];
    if (!r) return 'Reservation not found';
    r.status = 'cancelled';
    return undefined;
  },
  update_reservation_baggages: (db, a) => {
    const r = table(db, 'reservations')[String(a.reservation_id)];
    if (!r) return 'Reservation not found';
    const total = 50 * Math.max(0, Number(a.nonfree_baggages) - Number(r.nonfree_baggages));
    const err = payForUpdate(db, r.user_id, a.payment_id, total);
    if (err) return err;
    r.total_baggages = a.total_baggages;
    r.nonfree_baggages = a.nonfree_baggages;
    return undefined;
  },
  update_reservation_flights: (db, a) => {
    const r = table(db, 'reservations')[String(a.reservation_id)];
    if (!r) return 'Reservation not found';
    const passengers = list(r.passengers).length;
    const cabin = String(a.cabin);
    const old = list(r.flights) as Obj[];
    let total = 0;
    const next: Obj[] = [];
    for (const f of list(a.flights) as Obj[]) {
      const kept = old.find((o) => o.flight_number === f.flight_number && o.date === f.date && cabin === r.cabin);
      if (kept) {
        total += Number(kept.price) * passengers;
        next.push(kept);
        continue;
      }
      const d = flightDate(db, f.flight_number, f.date);
      if (typeof d === 'string') return d;
      if (d.status !== 'available') return `Flight ${String(f.flight_number)} not available on date ${String(f.date)}`;
      if (Number((d.available_seats as Obj)[cabin]) < passengers)
        return `Not enough seats on flight ${String(f.flight_number)}`;
      const price = Number((d.prices as Obj)[cabin]);
      total += price * passengers;
      next.push({ flight_number: f.flight_number, date: f.date, price });
    }
    total -= old.reduce((s, o) => s + Number(o.price), 0) * passengers;
    const err = payForUpdate(db, r.user_id, a.payment_id, total);
    if (err) return err;
    r.flights = next;
    r.cabin = cabin;
    return undefined;
  },
  update_reservation_passengers: (db, a) => {
    const r = table(db, 'reservations')[String(a.reservation_id)];
    if (!r) return 'Reservation not found';
    if (list(a.passengers).length !== list(r.passengers).length) return 'Number of passengers does not match';
    r.passengers = a.passengers;
    return undefined;
  },
  send_certificate: (db, a) => (table(db, 'users')[String(a.user_id)] ? undefined : 'User not found'),
};

/** The reads that fail in tau2 when what they name does not exist (a wrong email or id, or a product id that is an item id). */
const found =
  (tableName: string, arg: string): Check =>
  (db, a) =>
    table(db, tableName)[String(a[arg])] ? undefined : `${tableName.replace(/s$/, '')} ${String(a[arg])} not found`;

const RETAIL_READS: Record<string, Check> = {
  find_user_id_by_email: (db, a) =>
    Object.values(table(db, 'users')).some((u) => String(u.email).toLowerCase() === String(a.email).toLowerCase())
      ? undefined
      : `no user with email ${String(a.email)}`,
  find_user_id_by_name_zip: (db, a) =>
    Object.values(table(db, 'users')).some((u) => {
      const n = (u.name ?? {}) as Obj;
      return (
        String(n.first_name).toLowerCase() === String(a.first_name).toLowerCase() &&
        String(n.last_name).toLowerCase() === String(a.last_name).toLowerCase() &&
        (u.address as Obj | undefined)?.zip === a.zip
      );
    })
      ? undefined
      : `no user ${String(a.first_name)} ${String(a.last_name)} in zip ${String(a.zip)}`,
  get_order_details: found('orders', 'order_id'),
  get_user_details: found('users', 'user_id'),
  get_product_details: found('products', 'product_id'),
};

const AIRLINE_READS: Record<string, Check> = {
  get_reservation_details: found('reservations', 'reservation_id'),
  get_user_details: found('users', 'user_id'),
  get_flight_status: (db, a) => {
    const d = flightDate(db, a.flight_number, a.date);
    return typeof d === 'string' ? d : undefined;
  },
};

const CHECKS: Record<Tau2Domain, Record<string, Check>> = {
  retail: { ...RETAIL_READS, ...RETAIL },
  airline: { ...AIRLINE_READS, ...AIRLINE },
};

/**
 * Replays a task's gold calls with tau2's checks; for each call of a known write, or a read of
 * something by id, the error tau2 raises (or undefined). Other calls are not replayed: `skipped`.
 */
export function replayGold(
  domain: Tau2Domain,
  db: Obj,
  calls: readonly GoldCall[],
): (string | undefined | 'skipped')[] {
  const copy = structuredClone(db);
  return calls.map((c) => {
    const check = CHECKS[domain][c.name];
    return check ? check(copy, structuredClone(c.arguments)) : 'skipped';
  });
}
