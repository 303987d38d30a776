/**
 * How each known tau2 tool is declared in oneway: what rows it reads (lookups), the policy's
 * preconditions, tau2's own validation (a definite 4xx), its effects on the tables, the fact a
 * successful call establishes (what goals are made of), its compensation, and what of tau2's
 * behaviour the language cannot say (`unrendered`, listed in the import report and docs/tau2.md).
 *
 * Every fact a write establishes speaks of its arguments only (`{{args.x}}`), so the importer can
 * ground a task's goal from its gold calls without running anything. It carries the arguments tau2
 * grades that differ between a task's writes (the whole address, the payment of a flight change):
 * a task that changes an address twice, or the flights of five reservations paid five ways, has no
 * single input for them, so the goal is where a planner finds them (without, lint said
 * unreachable-goal for retail 22 and airline 18, truly, for every built-in planner).
 */
import type { Tau2Domain } from './classes.ts';
import { AIRLINE_NOW } from './world.ts';

type Json = string | number | boolean | null | Json[] | { [k: string]: Json };
interface GoldWrite {
  name: string;
  arguments: Record<string, unknown>;
}

export interface ToolRule {
  /** `each: true`: a list of rows, one per element of the list a `where` value renders to, in order. */
  lookups?: Record<string, { table: string; where: Record<string, Json>; each?: true; ignore_case?: string[] }>;
  preconditions?: (string | { when: string })[];
  validate?: { when: string; error: string }[];
  effects?: Json[];
  /**
   * The fact a successful call establishes, over `{{args.x}}` only (writes: the goal's material):
   * filled in from `goal: true`, as the rule's unconditional `establish` effect.
   */
  establishes?: string;
  /** A write whose unconditional `establish` effect is the goal's material (`establishes`). */
  goal?: true;
  compensation_args?: Record<string, Json>;
  reads?: string[];
  returns?: Record<string, Json>;
  /** What tau2 does that this declaration cannot say. */
  unrendered?: string[];
  /**
   * What it cannot say for these arguments only (e.g. a flight change keeping the cabin), given the
   * database before the task and the task's writes before this one.
   */
  unrenderedWhen?: (
    args: Record<string, unknown>,
    db: Record<string, unknown>,
    earlier: readonly GoldWrite[],
  ) => string[];
}

const ADDRESS = ['address1', 'address2', 'city', 'state', 'country', 'zip'] as const;
const addressOf = (root: string): Record<string, string> =>
  Object.fromEntries(ADDRESS.map((k) => [k, `{{${root}.${k}}}`]));

const ORDER = { order: { table: 'orders', where: { order_id: '{{args.order_id}}' } } };
const PAYMENT = { payment: { table: 'payment_methods', where: { payment_method_id: '{{args.payment_method_id}}' } } };
const ORDER_READ = ['authenticated(user={{order.user_id}})', 'order_read(order={{args.order_id}})'];
const OWN_PAYMENT = { when: '{{payment.user_id}} == {{order.user_id}}', error: 'Payment method not found' };

// The items of a modification or exchange, one row per listed id, in order: the old ones at their
// catalogue price (tau2's orders hold each item at its catalogue price; convert.ts checks the
// order's own prices and reports a difference), the new ones at theirs.
const ITEM_PAIRS = {
  old_items: { table: 'items', where: { item_id: '{{args.item_ids}}' }, each: true },
  new_items: { table: 'items', where: { item_id: '{{args.new_item_ids}}' }, each: true },
} as const;
const PRICE_DIFFERENCE = 'sum({{new_items[*].price}}) - sum({{old_items[*].price}})';
/** Each new item a variant of the old one's product (lists compare element by element), and available. */
const NEW_ITEMS_FIT = [
  { when: '{{new_items[*].product_id}} == {{old_items[*].product_id}}', error: 'Variant not found' },
  { when: 'false not in {{new_items[*].available}}', error: 'New item not found or available' },
];
/**
 * The items a return, exchange or modification names, in a goal fact: each list sorted, as tau2
 * stores them (`return_items`, `exchange_items`, `exchange_new_items` are `sorted(...)`), so a call
 * listing them in any order establishes the same fact and an empty or other list does not.
 */
const ITEMS = 'items="= sorted({{args.item_ids}})"';
const NEW_ITEMS = 'new_items="= sorted({{args.new_item_ids}})"';
/** tau2's check that each listed item is in the order, as often as listed (`item_ids.count(x) > all_item_ids.count(x)`). */
const inOrder = (error: string) => ({ when: '{{args.item_ids}} within {{order.items[*].item_id}}', error });
/**
 * tau2's swap of each old item for its new one in the order's item list: the first item with the
 * old id takes the new id, pair by pair in order (a duplicated id swaps its first, then its second
 * occurrence), and the price and options of `variant`, which tau2's checking loop left at the last
 * new item (tools.py sets `item.price = variant.price` after that loop): with two new items of other
 * prices, both swapped items take the last one's, in tau2 and here.
 */
const SWAP_ITEMS: Json = {
  for_each: {
    in: '{{args.item_ids}}',
    as: 'old_id',
    zip: { new_id: '{{args.new_item_ids}}' },
    do: [
      {
        update: {
          table: 'orders',
          where: { order_id: '{{args.order_id}}' },
          set_element: {
            items: {
              where: { item_id: '{{old_id}}' },
              set: {
                item_id: '{{new_id}}',
                price: '= last({{new_items[*].price}})',
                options: '= last({{new_items[*].options}})',
              },
            },
          },
        },
      },
    ],
  },
};
/** A gift card pays the difference only up to its balance (a card or PayPal is not limited: spendable). */
const covers = (error: string) => ({ when: `{{payment.spendable}} >= ${PRICE_DIFFERENCE}`, error });
/** The gift card's balance moved by `delta` (an expression), both the balance and what it can spend. */
const giftCardMoved = (delta: string): Json => ({
  if: '{{payment.source}} == gift_card',
  update: {
    table: 'payment_methods',
    where: { payment_method_id: '{{args.payment_method_id}}' },
    set: { balance: `= {{payment.balance}} + (${delta})`, spendable: `= {{payment.spendable}} + (${delta})` },
  },
});
/** The policy: a return's refund goes to the original payment method or an existing gift card. */
const REFUND_TARGET =
  '{{payment.source}} == gift_card or {{args.payment_method_id}} == {{order.original_payment_method_id}}';

const RETAIL: Record<string, ToolRule> = {
  find_user_id_by_email: {
    // tau2 compares the email lowercased.
    lookups: { user: { table: 'users', where: { email: '{{args.email}}' }, ignore_case: ['email'] } },
    effects: [{ establish: 'authenticated(user={{user.user_id}})' }],
    returns: { user_id: '{{user.user_id}}' },
  },
  find_user_id_by_name_zip: {
    lookups: {
      user: {
        table: 'users',
        where: { first_name: '{{args.first_name}}', last_name: '{{args.last_name}}', zip: '{{args.zip}}' },
        // tau2 compares the names lowercased, the zip as given.
        ignore_case: ['first_name', 'last_name'],
      },
    },
    effects: [{ establish: 'authenticated(user={{user.user_id}})' }],
    returns: { user_id: '{{user.user_id}}' },
  },
  get_order_details: {
    lookups: ORDER,
    preconditions: ['authenticated(user={{order.user_id}})'],
    effects: [{ establish: 'order_read(order={{args.order_id}})' }],
    reads: ['orders'],
  },
  get_user_details: {
    preconditions: ['authenticated(user={{args.user_id}})'],
    effects: [{ establish: 'user_read(user={{args.user_id}})' }],
    reads: ['users', 'payment_methods'],
  },
  get_product_details: { reads: ['products', 'items'] },
  get_item_details: { reads: ['items'] },
  list_all_product_types: { reads: ['products'] },
  transfer_to_human_agents: { effects: [{ establish: 'transferred_to_human' }], goal: true },
  cancel_pending_order: {
    lookups: {
      ...ORDER,
      paid_with: {
        table: 'payment_methods',
        where: { payment_method_id: '{{order.payment_history[*].payment_method_id}}' },
        each: true,
      },
    },
    preconditions: [...ORDER_READ, { when: '{{order.status}} == pending' }],
    validate: [
      { when: '{{order.status}} == pending', error: 'Non-pending order cannot be cancelled' },
      { when: '{{args.reason}} in ["no longer needed", "ordered by mistake"]', error: 'Invalid reason' },
    ],
    effects: [
      {
        update: {
          table: 'orders',
          where: { order_id: '{{args.order_id}}' },
          set: { status: 'cancelled', cancel_reason: '{{args.reason}}' },
        },
      },
      // A refund row per payment, and a gift card credited at once.
      {
        for_each: {
          in: '{{order.payment_history}}',
          as: 'paid',
          zip: { method: '{{paid_with}}' },
          do: [
            {
              update: {
                table: 'orders',
                where: { order_id: '{{args.order_id}}' },
                append: {
                  payment_history: {
                    transaction_type: 'refund',
                    amount: '{{paid.amount}}',
                    payment_method_id: '{{paid.payment_method_id}}',
                  },
                },
              },
            },
            {
              if: '{{method.source}} == gift_card',
              update: {
                table: 'payment_methods',
                where: { payment_method_id: '{{paid.payment_method_id}}' },
                set: {
                  balance: '= {{method.balance}} + {{paid.amount}}',
                  spendable: '= {{method.spendable}} + {{paid.amount}}',
                },
              },
            },
          ],
        },
      },
      { establish: 'order_cancelled(order={{args.order_id}}, reason={{args.reason}})' },
    ],
    goal: true,
  },
  modify_pending_order_address: {
    lookups: ORDER,
    // The policy says pending (the precondition); tau2's check is "pending" in the status (the validation).
    preconditions: [...ORDER_READ, { when: '{{order.status}} == pending' }],
    validate: [
      {
        when: '{{order.status}} in [pending, "pending (item modified)"]',
        error: 'Non-pending order cannot be modified',
      },
    ],
    effects: [
      { update: { table: 'orders', where: { order_id: '{{args.order_id}}' }, set: { address: addressOf('args') } } },
      {
        establish:
          'order_address_changed(order={{args.order_id}}, address1={{args.address1}}, address2={{args.address2}}, city={{args.city}}, state={{args.state}}, country={{args.country}}, zip={{args.zip}})',
      },
    ],
    goal: true,
    compensation_args: { order_id: '{{args.order_id}}', ...addressOf('before.order.address') },
  },
  modify_pending_order_items: {
    lookups: { ...ORDER, ...PAYMENT, ...ITEM_PAIRS },
    preconditions: [...ORDER_READ, { when: '{{order.status}} == pending' }],
    validate: [
      { when: '{{order.status}} == pending', error: 'Non-pending order cannot be modified' },
      inOrder('Item not found'),
      {
        when: 'len({{args.item_ids}}) == len({{args.new_item_ids}})',
        error: 'The number of items to be exchanged should match',
      },
      {
        when: 'all(old_id in {{args.item_ids}}, new_id in {{args.new_item_ids}}: {{old_id}} != {{new_id}})',
        error: 'The new item id should be different from the old item id',
      },
      ...NEW_ITEMS_FIT,
      OWN_PAYMENT,
      covers('Insufficient gift card balance to pay for the new item'),
    ],
    effects: [
      {
        update: {
          table: 'orders',
          where: { order_id: '{{args.order_id}}' },
          set: { status: 'pending (item modified)' },
        },
      },
      // The difference is charged (a payment row) or refunded (a refund row), the gift card at once.
      {
        if: `${PRICE_DIFFERENCE} > 0`,
        update: {
          table: 'orders',
          where: { order_id: '{{args.order_id}}' },
          append: {
            payment_history: {
              transaction_type: 'payment',
              amount: `= ${PRICE_DIFFERENCE}`,
              payment_method_id: '{{args.payment_method_id}}',
            },
          },
        },
      },
      {
        if: `${PRICE_DIFFERENCE} <= 0`,
        update: {
          table: 'orders',
          where: { order_id: '{{args.order_id}}' },
          append: {
            payment_history: {
              transaction_type: 'refund',
              amount: '= sum({{old_items[*].price}}) - sum({{new_items[*].price}})',
              payment_method_id: '{{args.payment_method_id}}',
            },
          },
        },
      },
      giftCardMoved(`0 - (${PRICE_DIFFERENCE})`),
      SWAP_ITEMS,
      {
        establish: `order_items_modified(order={{args.order_id}}, payment_method={{args.payment_method_id}}, ${ITEMS}, ${NEW_ITEMS})`,
      },
    ],
    goal: true,
  },
  modify_pending_order_payment: {
    lookups: {
      ...ORDER,
      ...PAYMENT,
      paid_with: { table: 'payment_methods', where: { payment_method_id: '{{order.original_payment_method_id}}' } },
    },
    preconditions: [...ORDER_READ, { when: '{{order.status}} == pending' }],
    // The amount is the first payment's: with exactly one payment in the history, its sum.
    validate: [
      // tau2's check is "pending" in the status.
      {
        when: '{{order.status}} in [pending, "pending (item modified)"]',
        error: 'Non-pending order cannot be modified',
      },
      OWN_PAYMENT,
      {
        when: 'len({{order.payment_history}}) == 1',
        error: 'There should be exactly one payment for a pending order',
      },
      {
        when: '{{args.payment_method_id}} != {{order.original_payment_method_id}}',
        error: 'The new payment method should be different from the current one',
      },
      {
        when: '{{payment.spendable}} >= sum({{order.payment_history[*].amount}})',
        error: 'Insufficient gift card balance to pay for the order',
      },
    ],
    effects: [
      {
        update: {
          table: 'orders',
          where: { order_id: '{{args.order_id}}' },
          append: {
            payment_history: [
              {
                transaction_type: 'payment',
                amount: '= sum({{order.payment_history[*].amount}})',
                payment_method_id: '{{args.payment_method_id}}',
              },
              {
                transaction_type: 'refund',
                amount: '= sum({{order.payment_history[*].amount}})',
                payment_method_id: '{{order.original_payment_method_id}}',
              },
            ],
          },
        },
      },
      giftCardMoved('0 - sum({{order.payment_history[*].amount}})'),
      {
        if: '{{paid_with.source}} == gift_card',
        update: {
          table: 'payment_methods',
          where: { payment_method_id: '{{order.original_payment_method_id}}' },
          set: {
            balance: '= {{paid_with.balance}} + sum({{order.payment_history[*].amount}})',
            spendable: '= {{paid_with.spendable}} + sum({{order.payment_history[*].amount}})',
          },
        },
      },
      { establish: 'order_payment_changed(order={{args.order_id}}, payment_method={{args.payment_method_id}})' },
    ],
    goal: true,
  },
  modify_user_address: {
    lookups: { user: { table: 'users', where: { user_id: '{{args.user_id}}' } } },
    preconditions: ['authenticated(user={{args.user_id}})'],
    effects: [
      { update: { table: 'users', where: { user_id: '{{args.user_id}}' }, set: { address: addressOf('args') } } },
      {
        establish:
          'user_address_changed(user={{args.user_id}}, address1={{args.address1}}, address2={{args.address2}}, city={{args.city}}, state={{args.state}}, country={{args.country}}, zip={{args.zip}})',
      },
    ],
    goal: true,
    compensation_args: { user_id: '{{args.user_id}}', ...addressOf('before.user.address') },
  },
  return_delivered_order_items: {
    lookups: { ...ORDER, ...PAYMENT },
    preconditions: [...ORDER_READ, { when: '{{order.status}} == delivered' }, { when: REFUND_TARGET }],
    validate: [
      { when: '{{order.status}} == delivered', error: 'Non-delivered order cannot be returned' },
      OWN_PAYMENT,
      { when: REFUND_TARGET, error: 'Payment method should be the original payment method' },
      inOrder('Some item not found'),
    ],
    effects: [
      {
        update: {
          table: 'orders',
          where: { order_id: '{{args.order_id}}' },
          set: {
            status: 'return requested',
            return_items: '= sorted({{args.item_ids}})',
            return_payment_method_id: '{{args.payment_method_id}}',
          },
        },
      },
      {
        establish: `order_return_requested(order={{args.order_id}}, payment_method={{args.payment_method_id}}, ${ITEMS})`,
      },
    ],
    goal: true,
  },
  exchange_delivered_order_items: {
    lookups: { ...ORDER, ...PAYMENT, ...ITEM_PAIRS },
    preconditions: [...ORDER_READ, { when: '{{order.status}} == delivered' }],
    validate: [
      { when: '{{order.status}} == delivered', error: 'Non-delivered order cannot be exchanged' },
      inOrder('Number of item not found.'),
      {
        when: 'len({{args.item_ids}}) == len({{args.new_item_ids}})',
        error: 'The number of items to be exchanged should match.',
      },
      ...NEW_ITEMS_FIT,
      OWN_PAYMENT,
      covers('Insufficient gift card balance to pay for the price difference'),
    ],
    effects: [
      {
        update: {
          table: 'orders',
          where: { order_id: '{{args.order_id}}' },
          set: {
            status: 'exchange requested',
            exchange_items: '= sorted({{args.item_ids}})',
            exchange_new_items: '= sorted({{args.new_item_ids}})',
            exchange_payment_method_id: '{{args.payment_method_id}}',
            exchange_price_difference: `= ${PRICE_DIFFERENCE}`,
          },
        },
      },
      {
        establish: `order_exchange_requested(order={{args.order_id}}, payment_method={{args.payment_method_id}}, ${ITEMS}, ${NEW_ITEMS})`,
      },
    ],
    goal: true,
  },
};

const RESERVATION = { reservation: { table: 'reservations', where: { reservation_id: '{{args.reservation_id}}' } } };
// Every reservation write reads the reservation first; the user's profile (membership, payment
// methods) only where the policy's rule depends on it: bags (free allowance, payment) and flights (payment).
const RES_ONLY = ['reservation_read(reservation={{args.reservation_id}})'];
const RES_READ = [...RES_ONLY, 'user_read(user={{reservation.user_id}})'];
const AIR_PAYMENT = { payment: { table: 'payment_methods', where: { payment_method_id: '{{args.payment_id}}' } } };
const AIR_PAYMENT_CHECKS = [
  { when: '{{payment.user_id}} == {{reservation.user_id}}', error: 'Payment method not found' },
  { when: '{{payment.source}} != certificate', error: 'Certificate cannot be used to update reservation' },
];

/** A payment row of a reservation: tau2's Payment (a refund is a negative amount). */
const reservationPayment = (paymentId: string, amount: string): Json => ({
  update: {
    table: 'reservations',
    where: { reservation_id: '{{args.reservation_id}}' },
    append: { payment_history: { payment_id: paymentId, amount } },
  },
});

// Booking and flight changes: one flight_dates row per {flight_number, date} of the list (a lookup
// pairing both lists by index), its price and seats read under the cabin the call names, and one
// route row per flight (origin and destination of the reservation's segments).
const FLIGHT_ROWS = {
  legs: {
    table: 'flight_dates',
    where: { flight_number: '{{args.flights[*].flight_number}}', date: '{{args.flights[*].date}}' },
    each: true,
  },
  routes: { table: 'flights', where: { flight_number: '{{args.flights[*].flight_number}}' }, each: true },
} as const;
/** tau2's statuses of a flight on a date; only `available` can be booked. */
const NOT_BOOKABLE = ['landed', 'flying', 'cancelled', 'delayed', '"on time"'];
const ALL_AVAILABLE = NOT_BOOKABLE.map((st) => `${st} not in {{legs[*].status}}`).join(' and ');
const FARES = 'sum({{legs[*].prices[args.cabin]}})';
/** Every flight has a seat per passenger in the cabin (tau2 checks each in turn: none to check, none refused). */
const SEATS_FOR = (passengers: string) =>
  `(len({{legs}}) == 0 or min({{legs[*].available_seats[args.cabin]}}) >= ${passengers})`;
/** The policy: at most one travel certificate, one credit card and three gift cards per reservation. */
const PAYMENT_LIMITS = [
  ['certificate', 1],
  ['credit_card', 1],
  ['gift_card', 3],
]
  .map(([source, n]) => `count({{paid_with[*].source}}, ${source}) <= ${n}`)
  .join(' and ');
const CABINS = ['basic_economy', 'economy', 'business'] as const;
/** The list of segments tau2 stores, rebuilt per flight at its current price in the cabin. */
const segmentsAppended = (reservationId: string): Json => ({
  for_each: {
    in: '{{args.flights}}',
    as: 'f',
    zip: { leg: '{{legs}}', route: '{{routes}}' },
    do: [
      {
        update: {
          table: 'reservations',
          where: { reservation_id: reservationId },
          append: {
            flights: {
              origin: '{{route.origin}}',
              destination: '{{route.destination}}',
              flight_number: '{{f.flight_number}}',
              date: '{{f.date}}',
              price: '{{leg.prices[args.cabin]}}',
            },
          },
        },
      },
    ],
  },
});
/** Each flight's seats in the booked cabin less one per passenger (an update sets the whole map: one effect per cabin). */
const seatsTaken = (passengers: string): Json => ({
  for_each: {
    in: '{{args.flights}}',
    as: 'f',
    zip: { leg: '{{legs}}' },
    do: CABINS.map((cabin) => ({
      if: `{{args.cabin}} == ${cabin}`,
      update: {
        table: 'flight_dates',
        where: { flight_number: '{{f.flight_number}}', date: '{{f.date}}' },
        set: {
          available_seats: Object.fromEntries(
            CABINS.map((c) => [
              c,
              c === cabin ? `= {{leg.available_seats.${c}}} - ${passengers}` : `{{leg.available_seats.${c}}}`,
            ]),
          ),
        },
      },
    })),
  },
});
const PASSENGERS = 'len({{args.passengers}})';
/** What the booking costs: the fares per passenger, insurance at 30 per passenger, 50 per non-free bag. */
const BOOKING_BASE = `${FARES} * ${PASSENGERS} + 50 * {{args.nonfree_baggages}}`;
const PAID = 'sum({{args.payment_methods[*].amount}})';
const PAYMENTS_ADD_UP = `({{args.insurance}} == yes and ${PAID} == ${BOOKING_BASE} + 30 * ${PASSENGERS}) or ({{args.insurance}} != yes and ${PAID} == ${BOOKING_BASE})`;
/** tau2: each gift card or certificate paying a booking holds at least the amount it pays (a card or PayPal is not limited). */
const EACH_COVERS =
  'all(p in {{args.payment_methods}}, m in {{paid_with}}: {{m.source}} not in [gift_card, certificate] or {{m.amount}} >= {{p.amount}})';
/** The policy's free bags: the allowance per passenger of the member's level in the cabin; the rest are non-free. */
const FREE_BAGS = `{{allowance[args.cabin]}} * ${PASSENGERS}`;
const BAGS_CHARGED = `({{args.total_baggages}} <= ${FREE_BAGS} and {{args.nonfree_baggages}} == 0) or ({{args.total_baggages}} > ${FREE_BAGS} and {{args.nonfree_baggages}} == {{args.total_baggages}} - ${FREE_BAGS})`;
/** A flight change's price difference when the cabin changes (tau2 then keeps no segment: all at today's price). */
const FLIGHTS_DIFFERENCE = `(${FARES} - sum({{reservation.flights[*].price}})) * len({{reservation.passengers}})`;
const CABIN_CHANGES = '{{args.cabin}} != {{reservation.cabin}}';
/**
 * The policy: a flight change keeps origin, destination and trip type (the call cannot name another
 * type). A one-way trip leaves from the origin and ends at the destination; a round trip leaves from
 * the origin, reaches the destination and ends back at the origin (as every reservation of tau2's holds).
 */
const SAME_TRIP =
  '{{routes[0].origin}} == {{reservation.origin}} and (' +
  '{{reservation.flight_type}} == one_way and {{routes[-1].destination}} == {{reservation.destination}} or ' +
  '{{reservation.flight_type}} == round_trip and {{routes[-1].destination}} == {{reservation.origin}} and {{reservation.destination}} in {{routes[*].destination}})';

const AIRLINE: Record<string, ToolRule> = {
  get_user_details: {
    effects: [{ establish: 'user_read(user={{args.user_id}})' }],
    reads: ['users', 'payment_methods'],
  },
  get_reservation_details: {
    lookups: RESERVATION,
    effects: [{ establish: 'reservation_read(reservation={{args.reservation_id}})' }],
    reads: ['reservations'],
  },
  get_flight_status: { reads: ['flight_dates'] },
  search_direct_flight: {
    reads: ['flights'],
    unrendered: ['the search itself (the reply carries the flights rows, not the dated availability tau2 computes)'],
  },
  search_onestop_flight: { reads: ['flights'], unrendered: ['the connection search'] },
  list_all_airports: {},
  transfer_to_human_agents: { effects: [{ establish: 'transferred_to_human' }], goal: true },
  book_reservation: {
    lookups: {
      user: { table: 'users', where: { user_id: '{{args.user_id}}' } },
      ...FLIGHT_ROWS,
      paid_with: {
        table: 'payment_methods',
        where: { payment_method_id: '{{args.payment_methods[*].payment_id}}', user_id: '{{args.user_id}}' },
        each: true,
      },
      allowance: { table: 'baggage_allowance', where: { membership: '{{user.membership}}' } },
      new_id: { table: 'new_ids', where: { kind: 'reservation' } },
    },
    preconditions: [
      'user_read(user={{args.user_id}})',
      { when: 'len({{args.passengers}}) <= 5' },
      { when: BAGS_CHARGED },
      { when: PAYMENT_LIMITS },
    ],
    validate: [
      { when: ALL_AVAILABLE, error: 'Flight not available on date' },
      { when: SEATS_FOR(PASSENGERS), error: 'Not enough seats on flight' },
      { when: EACH_COVERS, error: 'Not enough balance in payment method' },
      { when: PAYMENTS_ADD_UP, error: 'Payment amount does not add up' },
    ],
    effects: [
      {
        insert: {
          table: 'reservations',
          row: {
            reservation_id: '{{new_id.ids[seq.reservations]}}',
            user_id: '{{args.user_id}}',
            origin: '{{args.origin}}',
            destination: '{{args.destination}}',
            flight_type: '{{args.flight_type}}',
            cabin: '{{args.cabin}}',
            flights: [],
            passengers: '{{args.passengers}}',
            payment_history: '{{args.payment_methods}}',
            created_at: AIRLINE_NOW,
            total_baggages: '{{args.total_baggages}}',
            nonfree_baggages: '{{args.nonfree_baggages}}',
            insurance: '{{args.insurance}}',
            cancel_eligible: 'yes',
          },
        },
      },
      segmentsAppended('{{new_id.ids[seq.reservations]}}'),
      seatsTaken(PASSENGERS),
      // Each gift card pays its amount; a certificate is used up (tau2 removes it from the profile: its row and its id in the user's list).
      {
        for_each: {
          in: '{{args.payment_methods}}',
          as: 'p',
          zip: { method: '{{paid_with}}' },
          do: [
            {
              if: '{{method.source}} == gift_card',
              update: {
                table: 'payment_methods',
                where: { payment_method_id: '{{p.payment_id}}' },
                set: {
                  amount: '= {{method.amount}} - {{p.amount}}',
                  spendable: '= {{method.spendable}} - {{p.amount}}',
                },
              },
            },
            {
              if: '{{method.source}} == certificate',
              delete: { table: 'payment_methods', where: { payment_method_id: '{{p.payment_id}}' } },
            },
            {
              if: '{{method.source}} == certificate',
              update: {
                table: 'users',
                where: { user_id: '{{args.user_id}}' },
                remove: { payment_methods: '{{p.payment_id}}' },
              },
            },
          ],
        },
      },
      {
        update: {
          table: 'users',
          where: { user_id: '{{args.user_id}}' },
          append: { reservations: '{{new_id.ids[seq.reservations]}}' },
        },
      },
      {
        establish:
          'reservation_booked(user={{args.user_id}}, origin={{args.origin}}, destination={{args.destination}}, flight_type={{args.flight_type}}, cabin={{args.cabin}}, insurance={{args.insurance}})',
      },
    ],
    goal: true,
    returns: { reservation_id: '{{new_id.ids[seq.reservations]}}' },
    compensation_args: { reservation_id: '{{result.reservation_id}}' },
  },
  cancel_reservation: {
    lookups: RESERVATION,
    preconditions: [...RES_ONLY, { when: '{{reservation.cancel_eligible}} == yes' }],
    effects: [
      {
        update: {
          table: 'reservations',
          where: { reservation_id: '{{args.reservation_id}}' },
          set: { status: 'cancelled' },
        },
      },
      // A refund row per payment (its amount negated).
      {
        for_each: {
          in: '{{reservation.payment_history}}',
          as: 'paid',
          do: [reservationPayment('{{paid.payment_id}}', '= 0 - {{paid.amount}}')],
        },
      },
      { establish: 'reservation_cancelled(reservation={{args.reservation_id}})' },
    ],
    goal: true,
    unrendered: [
      'whether the reason is covered by insurance: cancel_eligible counts an insured reservation as eligible (the reason is said in conversation)',
    ],
  },
  update_reservation_baggages: {
    lookups: { ...RESERVATION, ...AIR_PAYMENT },
    preconditions: [
      ...RES_READ,
      { when: '{{args.total_baggages}} >= {{reservation.total_baggages}}' },
      { when: '{{args.nonfree_baggages}} >= {{reservation.nonfree_baggages}}' },
    ],
    validate: [
      ...AIR_PAYMENT_CHECKS,
      {
        when: '{{payment.spendable}} >= 50 * ({{args.nonfree_baggages}} - {{reservation.nonfree_baggages}})',
        error: 'Gift card balance is not enough',
      },
    ],
    effects: [
      {
        update: {
          table: 'reservations',
          where: { reservation_id: '{{args.reservation_id}}' },
          set: { total_baggages: '{{args.total_baggages}}', nonfree_baggages: '{{args.nonfree_baggages}}' },
        },
      },
      // tau2 charges 50 * max(0, added non-free bags): a payment row and a gift card only when bags are added.
      {
        if: '{{args.nonfree_baggages}} > {{reservation.nonfree_baggages}}',
        ...(reservationPayment(
          '{{args.payment_id}}',
          '= 50 * ({{args.nonfree_baggages}} - {{reservation.nonfree_baggages}})',
        ) as Record<string, Json>),
      },
      {
        if: '{{payment.source}} == gift_card and {{args.nonfree_baggages}} > {{reservation.nonfree_baggages}}',
        update: {
          table: 'payment_methods',
          where: { payment_method_id: '{{args.payment_id}}' },
          set: {
            amount: '= {{payment.amount}} - 50 * ({{args.nonfree_baggages}} - {{reservation.nonfree_baggages}})',
            spendable: '= {{payment.spendable}} - 50 * ({{args.nonfree_baggages}} - {{reservation.nonfree_baggages}})',
          },
        },
      },
      {
        establish:
          'baggages_updated(reservation={{args.reservation_id}}, total={{args.total_baggages}}, nonfree={{args.nonfree_baggages}})',
      },
    ],
    goal: true,
  },
  update_reservation_flights: {
    lookups: { ...RESERVATION, ...AIR_PAYMENT, ...FLIGHT_ROWS },
    preconditions: [
      ...RES_READ,
      { when: SAME_TRIP },
      // The policy: basic economy flights cannot change; its cabin can, with the same flights.
      {
        when: '{{reservation.cabin}} != basic_economy or ({{args.flights[*].flight_number}} == {{reservation.flights[*].flight_number}} and {{args.flights[*].date}} == {{reservation.flights[*].date}})',
      },
    ],
    validate: [
      ...AIR_PAYMENT_CHECKS,
      // A cabin change keeps no segment: every flight is priced and checked anew.
      {
        when: `${CABIN_CHANGES} and (${ALL_AVAILABLE}) or {{args.cabin}} == {{reservation.cabin}}`,
        error: 'Flight not available on date',
      },
      {
        when: `${CABIN_CHANGES} and ${SEATS_FOR('len({{reservation.passengers}})')} or {{args.cabin}} == {{reservation.cabin}}`,
        error: 'Not enough seats on flight',
      },
      {
        when: `{{payment.source}} != gift_card or {{args.cabin}} == {{reservation.cabin}} or {{payment.spendable}} >= ${FLIGHTS_DIFFERENCE}`,
        error: 'Gift card balance is not enough',
      },
    ],
    effects: [
      {
        if: `${CABIN_CHANGES} and ${FLIGHTS_DIFFERENCE} != 0`,
        ...(reservationPayment('{{args.payment_id}}', `= ${FLIGHTS_DIFFERENCE}`) as Record<string, Json>),
      },
      {
        if: `${CABIN_CHANGES} and {{payment.source}} == gift_card`,
        update: {
          table: 'payment_methods',
          where: { payment_method_id: '{{args.payment_id}}' },
          set: {
            amount: `= {{payment.amount}} - ${FLIGHTS_DIFFERENCE}`,
            spendable: `= {{payment.spendable}} - ${FLIGHTS_DIFFERENCE}`,
          },
        },
      },
      {
        if: CABIN_CHANGES,
        update: {
          table: 'reservations',
          where: { reservation_id: '{{args.reservation_id}}' },
          set: { flights: [], cabin: '{{args.cabin}}' },
        },
      },
      { if: CABIN_CHANGES, ...(segmentsAppended('{{args.reservation_id}}') as Record<string, Json>) },
      {
        if: '{{args.cabin}} == {{reservation.cabin}}',
        update: {
          table: 'reservations',
          where: { reservation_id: '{{args.reservation_id}}' },
          set: { flights: '{{args.flights}}' },
        },
      },
      {
        if: '{{args.cabin}} == business',
        update: {
          table: 'reservations',
          where: { reservation_id: '{{args.reservation_id}}' },
          set: { cancel_eligible: 'yes' },
        },
      },
      {
        establish:
          'reservation_flights_updated(reservation={{args.reservation_id}}, cabin={{args.cabin}}, payment={{args.payment_id}})',
      },
    ],
    goal: true,
    compensation_args: {
      reservation_id: '{{args.reservation_id}}',
      cabin: '{{before.reservation.cabin}}',
      flights: '{{before.reservation.flights}}',
      payment_id: '{{args.payment_id}}',
    },
    unrenderedWhen: (a, db, earlier) => {
      const r = (db.reservations as Record<string, Record<string, unknown>> | undefined)?.[String(a.reservation_id)];
      // The cabin the reservation has by then: the last earlier change's, else the database's.
      const change = earlier.findLast(
        (w) => w.name === 'update_reservation_flights' && w.arguments.reservation_id === a.reservation_id,
      );
      const cabin = change ? change.arguments.cabin : r?.cabin;
      return r !== undefined && cabin === a.cabin
        ? [
            "with the cabin unchanged, the price difference (kept segments at their old price, new ones at today's), its payment or refund, and the availability and seats of the new flights; the flights are set as given",
          ]
        : [];
    },
  },
  update_reservation_passengers: {
    lookups: RESERVATION,
    preconditions: [...RES_ONLY, { when: 'len({{args.passengers}}) == len({{reservation.passengers}})' }],
    validate: [
      {
        when: 'len({{args.passengers}}) == len({{reservation.passengers}})',
        error: 'Number of passengers does not match',
      },
    ],
    effects: [
      {
        update: {
          table: 'reservations',
          where: { reservation_id: '{{args.reservation_id}}' },
          set: { passengers: '{{args.passengers}}' },
        },
      },
      { establish: 'passengers_updated(reservation={{args.reservation_id}})' },
    ],
    goal: true,
    compensation_args: { reservation_id: '{{args.reservation_id}}', passengers: '{{before.reservation.passengers}}' },
  },
  send_certificate: {
    lookups: {
      user: { table: 'users', where: { user_id: '{{args.user_id}}' } },
      new_id: { table: 'new_ids', where: { kind: 'certificate' } },
      user_reservations: { table: 'reservations', where: { reservation_id: '{{user.reservations}}' }, each: true },
    },
    preconditions: [
      'user_read(user={{args.user_id}})',
      // The policy compensates only a silver or gold member, or one with travel insurance or in business
      // (here: on any of the user's reservations; which one the complaint is about is said in conversation).
      {
        when: '{{user.membership}} in [silver, gold] or yes in {{user_reservations[*].insurance}} or business in {{user_reservations[*].cabin}}',
      },
    ],
    effects: [
      {
        insert: {
          table: 'payment_methods',
          row: {
            payment_method_id: '{{new_id.ids[seq.certificates]}}',
            id: '{{new_id.ids[seq.certificates]}}',
            user_id: '{{args.user_id}}',
            source: 'certificate',
            amount: '{{args.amount}}',
            spendable: '{{args.amount}}',
          },
        },
      },
      { establish: 'certificate_sent(user={{args.user_id}}, amount={{args.amount}})' },
    ],
    goal: true,
    unrendered: [
      'the policy conditions on compensation that need the reservation the complaint is about (insurance or business on that one; its flights cancelled or delayed; 100 or 50 per passenger)',
      'tau2 numbers certificates per user (the first id the user does not hold); the sequence numbers them per task',
    ],
  },
};

/** `establishes` of a `goal: true` rule: its last unconditional `establish` effect, written once. */
function withGoals(rules: Record<string, ToolRule>): Record<string, ToolRule> {
  const out: Record<string, ToolRule> = {};
  for (const [name, rule] of Object.entries(rules)) {
    if (!rule.goal) {
      out[name] = rule;
      continue;
    }
    const facts = (rule.effects ?? []).flatMap((e) =>
      e !== null && typeof e === 'object' && !Array.isArray(e) && typeof e.establish === 'string' && e.if === undefined
        ? [e.establish]
        : [],
    );
    const fact = facts[facts.length - 1];
    if (fact === undefined) throw new Error(`internal: tau2 rule ${name} has goal: true and no establish effect`);
    out[name] = { ...rule, establishes: fact };
  }
  return out;
}

export const TOOL_RULES: Record<Tau2Domain, Record<string, ToolRule>> = {
  retail: withGoals(RETAIL),
  airline: withGoals(AIRLINE),
};
