import { describe, expect, it } from 'vitest';
import scripted from '../../planners/scripted.ts';
import type { PlanItem } from '../../harness/core/scenario.ts';
import { advance, invoiceWorld, play, type Responder } from './worlds.ts';

const planner = (plan?: PlanItem[]) => scripted.create({ seed: 1, trial: 0, scenario: 'invoice', options: {}, plan });

const plan: PlanItem[] = [
  { verify_recipient: { email: '{{inputs.email}}' } },
  {
    parallel: [
      { create_invoice: { customer: '{{inputs.customer}}', amount: '{{inputs.amount}}' } },
      { request_approval: { action: 'send_invoice_email' } },
    ],
  },
  {
    send_invoice_email: { invoice_id: '{{results.create_invoice.id}}', note: 'invoice {{results.create_invoice.id}}' },
  },
  { list_invoices: null },
  'finish',
  { never_reached: {} },
];

describe('scripted', () => {
  it('replays one plan item per turn, rendering inputs and earlier results', async () => {
    const { decisions } = await play(planner(plan), invoiceWorld());
    expect(decisions).toEqual([
      { type: 'call', call: { tool: 'verify_recipient', args: { email: 'billing@acme.example' } } },
      {
        type: 'batch',
        calls: [
          { tool: 'create_invoice', args: { customer: 'acme', amount: 1200 } },
          { tool: 'request_approval', args: { action: 'send_invoice_email' } },
        ],
      },
      { type: 'call', call: { tool: 'send_invoice_email', args: { invoice_id: 'inv_1', note: 'invoice inv_1' } } },
      { type: 'call', call: { tool: 'list_invoices', args: {} } },
      { type: 'finish', reason: 'plan says finish' },
    ]);
  });

  it('uses the most recent successful result, and keeps a template that names nothing yet', async () => {
    let ids = 0;
    const respond: Responder = (c) =>
      c.tool === 'create_invoice'
        ? ++ids === 2
          ? { status: 'error', http_status: 500 }
          : { result: { id: `inv_${ids}` } }
        : {};
    const p: PlanItem[] = [
      { void_invoice: { invoice_id: '{{results.create_invoice.id}}' } },
      { create_invoice: {} },
      { create_invoice: {} },
      { void_invoice: { invoice_id: '{{results.create_invoice.id}}' } },
    ];
    const { decisions } = await play(planner(p), invoiceWorld(), respond);
    expect(decisions[0]).toEqual({
      type: 'call',
      call: { tool: 'void_invoice', args: { invoice_id: '{{results.create_invoice.id}}' } },
    });
    expect(decisions[3]).toEqual({ type: 'call', call: { tool: 'void_invoice', args: { invoice_id: 'inv_1' } } });
    expect(decisions[4]).toEqual({ type: 'finish', reason: 'end of plan' });
  });

  it('finishes past the end of the plan', async () => {
    const v = advance(invoiceWorld(), { type: 'call', call: { tool: 'verify_recipient', args: {} } });
    expect(await planner([{ verify_recipient: {} }]).next(v)).toEqual({ type: 'finish', reason: 'end of plan' });
  });

  it('says how to give it a plan when there is none', () => {
    expect(() => planner(undefined)).toThrow(/scripted: no plan for scenario "invoice"/);
  });

  it('is deterministic: the same view gives the same decision', async () => {
    const v = advance(invoiceWorld(), { type: 'call', call: { tool: 'verify_recipient', args: {} } });
    expect(await planner(plan).next(v)).toEqual(await planner(plan).next(v));
  });
});
