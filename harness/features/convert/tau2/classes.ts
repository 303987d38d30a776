/**
 * The class of every tau2 tool oneway knows, with the reason, decided from tau2's policy documents
 * (data/tau2/domains/<d>/policy.md) and its tools (what a call changes, and whether any tool can take
 * it back). A tool this table lacks is imported as irreversible and marked for review: never guessed.
 *
 * The test for each class is design.md's: reversible when the same agent can undo it with no new
 * approval; compensable when a reversal exists but is a new action with its own approval or side
 * effects; irreversible when nothing takes it back. tau2's policies require the user's explicit yes
 * before every write, so an undo by calling a setter again is itself a new confirmed write: such
 * setters are compensable, never reversible.
 */
import type { ToolClass } from '../../../core/scenario.ts';

export type Tau2Domain = 'retail' | 'airline';

export interface ClassEntry {
  class: ToolClass;
  /** Effect-free: it changes no table. */
  readOnly?: boolean;
  /** The tool that undoes it (compensable tools). */
  compensatedBy?: string;
  reason: string;
}

const READ = (what: string): ClassEntry => ({
  class: 'reversible',
  readOnly: true,
  reason: `A lookup (${what}): tau2 types it READ and it changes nothing.`,
});

const CALCULATE: ClassEntry = {
  class: 'reversible',
  readOnly: true,
  reason: 'Arithmetic on its argument (GENERIC in tau2); it reads and changes nothing.',
};

const TRANSFER: ClassEntry = {
  class: 'irreversible',
  readOnly: true,
  reason:
    'Hands the conversation to a human agent (GENERIC in tau2, no database change): once transferred, the agent cannot take the customer back, so it is a one-way door for the run although no table changes.',
};

export const CLASS_TABLE: Record<Tau2Domain, Record<string, ClassEntry>> = {
  retail: {
    calculate: CALCULATE,
    find_user_id_by_email: READ('a user id by email; it authenticates the user'),
    find_user_id_by_name_zip: READ('a user id by name and zip; it authenticates the user'),
    get_item_details: READ('one item variant'),
    get_order_details: READ('an order with its status'),
    get_product_details: READ('a product and its variants'),
    get_user_details: READ('a user profile with payment methods and orders'),
    list_all_product_types: READ('the 50 product types'),
    transfer_to_human_agents: TRANSFER,
    cancel_pending_order: {
      class: 'irreversible',
      reason:
        'No tool reinstates a cancelled order (every write requires status pending, and the policy allows action on pending or delivered orders only), and a gift-card payment is refunded at once: the cancellation cannot be taken back.',
    },
    exchange_delivered_order_items: {
      class: 'irreversible',
      reason:
        'The status becomes "exchange requested"; the policy allows one return or exchange per delivered order and no tool withdraws the request, and the replacement ships.',
    },
    modify_pending_order_items: {
      class: 'irreversible',
      reason:
        'The policy: "This action can only be called once" and the status becomes "pending (item modified)", after which the order can be neither modified nor cancelled; the price difference is charged or refunded at once.',
    },
    modify_pending_order_payment: {
      class: 'irreversible',
      reason:
        'tau2 refuses a second payment change (the payment history must hold exactly one payment, and after a change it holds three), and a gift card is charged or refunded at once: calling it again with the old method fails.',
    },
    modify_pending_order_address: {
      class: 'compensable',
      compensatedBy: 'modify_pending_order_address',
      reason:
        'Calling it again with the address it replaced restores the order while it is pending, but that is a new write the policy requires the user to confirm: a compensation with its own approval, so compensable, not reversible.',
    },
    modify_user_address: {
      class: 'compensable',
      compensatedBy: 'modify_user_address',
      reason:
        "Calling it again with the address it replaced restores the user's default address, but the policy requires the user's yes for that write too: compensable.",
    },
    return_delivered_order_items: {
      class: 'irreversible',
      reason:
        'The status becomes "return requested" and the user is emailed return instructions; one return or exchange per delivered order and no tool withdraws it.',
    },
  },
  airline: {
    calculate: CALCULATE,
    get_flight_status: READ('the status of a flight on a date'),
    get_reservation_details: READ('a reservation'),
    get_user_details: READ('a user profile with membership, payment methods and reservations'),
    list_all_airports: READ('the airports served'),
    search_direct_flight: READ('direct flights on a date'),
    search_onestop_flight: READ('one-stop flights on a date'),
    transfer_to_human_agents: TRANSFER,
    book_reservation: {
      class: 'compensable',
      compensatedBy: 'cancel_reservation',
      reason:
        'A booking made within the last 24 hours can be cancelled under the policy, so cancel_reservation undoes it; but that is a new confirmed write, the refund takes 5 to 7 business days, and a travel certificate used to pay is consumed (its remainder is not refundable): compensable.',
    },
    cancel_reservation: {
      class: 'irreversible',
      reason:
        'No tool reinstates a cancelled reservation; rebooking is a new reservation at current prices and availability.',
    },
    send_certificate: {
      class: 'irreversible',
      reason: 'A certificate sent is money given to the user; no tool revokes it.',
    },
    update_reservation_baggages: {
      class: 'irreversible',
      reason: 'The policy: "The user can add but not remove checked bags", and the extra bags are charged at once.',
    },
    update_reservation_flights: {
      class: 'compensable',
      compensatedBy: 'update_reservation_flights',
      reason:
        'Calling it again with the flights and cabin it replaced restores the itinerary, but as a new confirmed write paid or refunded at the current prices (kept segments keep their old price): compensable. Not after a change to basic economy, whose flights cannot be modified.',
    },
    update_reservation_passengers: {
      class: 'compensable',
      compensatedBy: 'update_reservation_passengers',
      reason:
        'Calling it again with the passengers it replaced restores them (the count cannot change either way), as a new write the user confirms: compensable.',
    },
  },
};
