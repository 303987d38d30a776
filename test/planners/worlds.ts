/**
 * Hand-built planner views for the planner tests: a tiny "verify then email"
 * world and an "invoice + email behind an approval gate" world, plus a loop
 * that plays turns by appending scripted observations to the history.
 */
import type { Call, Decision, Observation, Planner, PlannerView, ToolView } from '../../harness/core/planner.ts';

type ToolSpec = Partial<ToolView> & {
  name: string;
  params?: Record<string, Record<string, unknown>>;
  required?: string[];
};

/** A ToolView with defaults: a reversible action without preconditions. */
export function tool(spec: ToolSpec): ToolView {
  const { params, required, ...rest } = spec;
  const properties = params ?? {};
  return {
    description: '',
    kind: 'action',
    class: 'reversible',
    read_only: false,
    parameters: { type: 'object', properties, required: required ?? Object.keys(properties) },
    preconditions: [],
    establishes: [],
    revokes: [],
    compensating_operation: null,
    compensation_requires_approval: false,
    compensation_args: null,
    reconciles: [],
    latency_ms: 100,
    ...rest,
  };
}

export const BOB = 'bob@acme.example';

const verifyRecipient = tool({
  name: 'verify_recipient',
  read_only: true,
  params: { email: { type: 'string' } },
  establishes: ['recipient_verified(email={{args.email}})'],
});

export const requestApproval = tool({
  name: 'request_approval',
  kind: 'approval',
  read_only: true,
  params: { action: { type: 'string' } },
  establishes: ['human_gate_passed(action={{args.action}})'],
});

const getEmailStatus = tool({
  name: 'get_email_status',
  read_only: true,
  params: { to: { type: 'string' } },
  reconciles: ['send_customer_email'],
});

function sendCustomerEmail(gate: boolean): ToolView {
  return tool({
    name: 'send_customer_email',
    class: 'irreversible',
    params: { to: { type: 'string' } },
    preconditions: [
      'recipient_verified(email={{args.to}})',
      ...(gate ? ['human_gate_passed(action=send_customer_email)'] : []),
    ],
    establishes: ['email_sent(to={{args.to}})'],
  });
}

/** Verify the recipient, then send one irreversible email. */
export function emailWorld(opts: { gate?: boolean; reconciler?: boolean; extraTools?: ToolView[] } = {}): PlannerView {
  const tools = [verifyRecipient, sendCustomerEmail(opts.gate ?? false)];
  if (opts.gate) tools.push(requestApproval);
  if (opts.reconciler ?? true) tools.push(getEmailStatus);
  return view({
    tools: [...tools, ...(opts.extraTools ?? [])],
    inputs: { email: BOB },
    goal: [`email_sent(to=${BOB})`],
  });
}

export const createInvoice = tool({
  name: 'create_invoice',
  class: 'compensable',
  compensating_operation: 'void_invoice',
  compensation_requires_approval: true,
  compensation_args: { invoice_id: '{{result.id}}' },
  params: { customer: { type: 'string' }, amount: { type: 'number' } },
  preconditions: ['customer_exists(customer={{args.customer}})'],
  establishes: [
    'invoice_created(customer={{args.customer}})',
    'invoice_exists(id={{result.id}}, customer={{args.customer}})',
  ],
});

export const voidInvoice = tool({
  name: 'void_invoice',
  class: 'compensable',
  compensating_operation: 'create_invoice',
  params: { invoice_id: { type: 'string' } },
  preconditions: ['invoice_exists(id={{args.invoice_id}})'],
  revokes: ['invoice_exists(id={{args.invoice_id}})'],
  establishes: ['invoice_voided(id={{args.invoice_id}})'],
});

export const sendInvoiceEmail = tool({
  name: 'send_invoice_email',
  class: 'irreversible',
  params: { invoice_id: { type: 'string' }, customer: { type: 'string' }, to: { type: 'string' } },
  preconditions: [
    'invoice_exists(id={{args.invoice_id}}, customer={{args.customer}})',
    'recipient_verified(email={{args.to}})',
    'human_gate_passed(action=send_invoice_email)',
  ],
  establishes: ['invoice_sent(customer={{args.customer}}, to={{args.to}})'],
});

/** Create an invoice, verify the recipient, pass the human gate, then email the invoice. */
export function invoiceWorld(): PlannerView {
  return view({
    tools: [requestApproval, createInvoice, voidInvoice, verifyRecipient, sendInvoiceEmail],
    inputs: { customer: 'acme', amount: 1200, email: 'billing@acme.example' },
    initial_facts: ['customer_exists(customer=acme)'],
    goal: ['invoice_sent(customer=acme, to=billing@acme.example)'],
  });
}

export function view(part: Partial<PlannerView> & { tools: ToolView[]; goal: string[] }): PlannerView {
  return {
    scenario: { id: 'test', title: 'test', task: 'test' },
    inputs: {},
    deployment: {},
    initial_facts: [],
    forbidden: [],
    history: [],
    turn: 1,
    steps_used: 0,
    max_steps: 30,
    max_turns: 30,
    ...part,
  };
}

/** The calls of a decision (none for finish). */
export function callsOf(d: Decision): Call[] {
  return d.type === 'call' ? [d.call] : d.type === 'batch' ? d.calls : [];
}

/** How the scripted world answers the nth call (1-based) of a tool. */
export type Responder = (call: Call, nth: number) => Partial<Observation>;

/** Every call succeeds; approvals are approved; create_invoice returns id inv_1. */
const okResponder: Responder = (call) => {
  if (call.tool === 'request_approval') return { result: { approved: true } };
  if (call.tool === 'create_invoice') return { result: { id: 'inv_1' } };
  return { result: {} };
};

/** The view after appending the observations of this decision's calls. */
export function advance(v: PlannerView, d: Decision, respond: Responder = okResponder): PlannerView {
  const calls = callsOf(d);
  let step = v.steps_used;
  const observations: Observation[] = calls.map((call) => {
    const nth = v.history.flatMap((h) => h.observations).filter((o) => o.tool === call.tool).length + 1;
    step++;
    return { step, tool: call.tool, args: call.args, status: 'ok', ...respond(call, nth) };
  });
  return {
    ...v,
    history: [...v.history, { turn: v.turn, batch: v.history.length, observations }],
    turn: v.turn + 1,
    steps_used: step,
  };
}

/** Plays a planner until it finishes (or `maxTurns`), returning every decision. */
export async function play(planner: Planner, start: PlannerView, respond: Responder = okResponder, maxTurns = 12) {
  const decisions: Decision[] = [];
  let v = start;
  for (let i = 0; i < maxTurns; i++) {
    const d = await planner.next(v);
    decisions.push(d);
    if (d.type === 'finish') break;
    v = advance(v, d, respond);
  }
  return { decisions, view: v };
}
