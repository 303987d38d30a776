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
