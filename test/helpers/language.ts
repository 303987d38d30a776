/** A small retail-and-airline world written in the scenario language for real domains (issue 41), shared by its tests. */
export const RETAIL_YAML = `
id: retail-tiny
title: Cancel, pay, re-address and book
task: Cancel order #W1, pay order #W1 with the gift card, and book a flight.
inputs: { order: "#W1" }
world:
  facts: ["authenticated(user=u1)"]
  tables:
    orders:
      - { order_id: "#W1", user_id: u1, status: pending, address: "1 Main St", payments: [] }
      - { order_id: "#W2", user_id: u1, status: delivered, address: "1 Main St", payments: [] }
    users:
      - { user_id: u1, gift_card_balance: 17 }
    reservations: []
confirmations:
  - { tool: cancel_pending_order, args: { order_id: "#W1", reason: "no longer needed" } }
  - { tool: cancel_pending_order, args: { order_id: "#W2", reason: "no longer needed" } }
  - { tool: exchange, args: { order_id: "#W1", items: [b, a] } }
tools:
  - name: confirm
    kind: confirmation
    reversibility: reversible
    read_only: true
    parameters: { type: object, properties: { tool: { type: string }, args: { type: object } }, required: [tool, args] }
  - name: cancel_pending_order
    reversibility: irreversible
    requires_confirmation: true
    lookups:
      order: { table: orders, where: { order_id: "{{args.order_id}}" } }
    preconditions:
      - "authenticated(user={{order.user_id}})"
      - when: "{{order.status}} == pending"
    parameters: { type: object, properties: { order_id: { type: string }, reason: { type: string } }, required: [order_id, reason] }
    effects:
      - update: { table: orders, where: { order_id: "{{args.order_id}}" }, set: { status: cancelled } }
      - establish: "cancelled(order={{args.order_id}})"
  - name: exchange
    reversibility: irreversible
    requires_confirmation: true
    parameters: { type: object, properties: { order_id: { type: string }, items: { type: array, items: { type: string } } }, required: [order_id, items] }
    effects:
      - establish: "exchanged(order={{args.order_id}})"
  - name: pay_with_gift_card
    reversibility: compensable
    compensating_operation: refund_gift_card
    compensation_args: { user_id: "{{order.user_id}}", amount: "{{args.amount}}" }
    lookups:
      order: { table: orders, where: { order_id: "{{args.order_id}}" } }
      user: { table: users, where: { user_id: "{{order.user_id}}" } }
    validate:
      - { when: "{{user.gift_card_balance}} >= {{args.amount}}", error: "insufficient gift card balance" }
    parameters: { type: object, properties: { order_id: { type: string }, amount: { type: number } }, required: [order_id, amount] }
    effects:
      - update: { table: users, where: { user_id: "{{order.user_id}}" }, set: { gift_card_balance: "= {{user.gift_card_balance}} - {{args.amount}}" } }
      - update: { table: orders, where: { order_id: "{{args.order_id}}" }, append: { payments: "{{args.amount}}" } }
      - establish: "paid(order={{args.order_id}})"
  - name: refund_gift_card
    reversibility: irreversible
    compensating_operation: null
    parameters: { type: object, properties: { user_id: { type: string }, amount: { type: number } }, required: [user_id, amount] }
    lookups:
      user: { table: users, where: { user_id: "{{args.user_id}}" } }
    effects:
      - update: { table: users, where: { user_id: "{{args.user_id}}" }, set: { gift_card_balance: "= {{user.gift_card_balance}} + {{args.amount}}" } }
  - name: update_address
    reversibility: compensable
    compensating_operation: update_address
    lookups:
      order: { table: orders, where: { order_id: "{{args.order_id}}" } }
    compensation_args: { order_id: "{{args.order_id}}", address: "{{before.order.address}}" }
    parameters: { type: object, properties: { order_id: { type: string }, address: { type: string } }, required: [order_id, address] }
    effects:
      - update: { table: orders, where: { order_id: "{{args.order_id}}" }, set: { address: "{{args.address}}" } }
      - establish: "addressed(order={{args.order_id}}, address={{args.address}})"
  - name: book
    reversibility: irreversible
    parameters: { type: object, properties: { cabin: { type: string } }, required: [cabin] }
    returns: { reservation_id: "R{{seq.reservations}}" }
    effects:
      - insert: { table: reservations, row: { reservation_id: "R{{seq.reservations}}", cabin: "{{args.cabin}}" } }
      - if: "{{args.cabin}} in [business, first]"
        establish: "cancellable(reservation=R{{seq.reservations}})"
goal: ["cancelled(order={{inputs.order}})"]
max_steps: 20
`;

/**
 * An order of item lines (objects in a list field) changed item by item, as tau2's retail tools
 * change them: a user found by email whatever its case (`ignore_case`), a swap allowed only for
 * items in the order as often as listed (`within`) and for new ids that differ from the old one at
 * each place (`all(...)`), each swap setting the fields of one element of the order's list
 * (`set_element` inside `for_each`, each line also told the last new id: `last()`), and a return
 * checked against the lines as the swaps left them; a new list may not end with a.
 */
export const LINES_YAML = `
id: lines-tiny
title: Swap and return order lines
task: Swap items of order #W1 and return some.
world:
  tables:
    users:
      - { user_id: u1, email: alice@example.com, zip: "10001" }
      - { user_id: u2, email: bob@example.com, zip: "20002" }
    orders:
      - { order_id: "#W1", user_id: u1, items: [ { item_id: a, price: 1, tag: x }, { item_id: a, price: 1, tag: y }, { item_id: b, price: 2, tag: z } ] }
    variants:
      - { item_id: a, price: 1 }
      - { item_id: b, price: 2 }
      - { item_id: c, price: 3 }
      - { item_id: d, price: 4 }
tools:
  - name: find_user
    reversibility: reversible
    read_only: true
    parameters: { type: object, properties: { email: { type: string }, zip: { type: string } }, required: [email, zip] }
    lookups:
      user: { table: users, where: { email: "{{args.email}}", zip: "{{args.zip}}" }, ignore_case: [email] }
    effects: [ { establish: "authenticated(user={{user.user_id}})" } ]
    returns: { user_id: "{{user.user_id}}" }
  - name: modify_items
    reversibility: irreversible
    parameters:
      type: object
      properties: { order_id: { type: string }, item_ids: { type: array, items: { type: string } }, new_item_ids: { type: array, items: { type: string } } }
      required: [order_id, item_ids, new_item_ids]
    lookups:
      order: { table: orders, where: { order_id: "{{args.order_id}}" } }
      new_items: { table: variants, where: { item_id: "{{args.new_item_ids}}" }, each: true }
    preconditions:
      - "authenticated(user={{order.user_id}})"
      - when: "{{args.item_ids}} within {{order.items[*].item_id}}"
      - when: "all(old in {{args.item_ids}}, new in {{args.new_item_ids}}: {{old}} != {{new}})"
      - when: "len({{args.new_item_ids}}) == 0 or last({{args.new_item_ids}}) != a"
    validate:
      - { when: "{{args.item_ids}} within {{order.items[*].item_id}}", error: "item not found" }
      - { when: "all(old in {{args.item_ids}}, new in {{args.new_item_ids}}: {{old}} != {{new}})", error: "the new item should differ" }
    effects:
      - for_each:
          in: "{{args.item_ids}}"
          as: old
          zip: { new: "{{args.new_item_ids}}", variant: "{{new_items}}" }
          do:
            - update: { table: orders, where: { order_id: "{{args.order_id}}" }, set_element: { items: { where: { item_id: "{{old}}" }, set: { item_id: "{{new}}", price: "{{variant.price}}", last_new: "= last({{new_items[*].item_id}})" } } } }
      - establish: "modified(order={{args.order_id}})"
  - name: return_items
    reversibility: irreversible
    parameters:
      type: object
      properties: { order_id: { type: string }, item_ids: { type: array, items: { type: string } } }
      required: [order_id, item_ids]
    lookups:
      order: { table: orders, where: { order_id: "{{args.order_id}}" } }
    preconditions:
      - when: "{{args.item_ids}} within {{order.items[*].item_id}}"
    effects:
      - establish: "returned(order={{args.order_id}})"
  - name: email_receipt
    reversibility: irreversible
    parameters: { type: object, properties: { email: { type: string } }, required: [email] }
    lookups:
      user: { table: users, where: { email: "{{args.email}}" }, ignore_case: [email] }
    preconditions: ["authenticated(user={{user.user_id}})"]
    effects: [ { establish: "receipt_sent(user={{user.user_id}})" } ]
goal: ["modified(order=#W1)", "returned(order=#W1)"]
max_steps: 20
`;
