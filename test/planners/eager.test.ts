import { describe, expect, it } from 'vitest';
import eager from '../../planners/eager.ts';
import { BOB, advance, emailWorld, invoiceWorld, play, tool } from './worlds.ts';

const planner = () => eager.create({ seed: 1, trial: 0, scenario: 'test', options: {} });

describe('eager', () => {
  it('sends the irreversible email on turn 1 without verifying or asking', async () => {
    const d = await planner().next(emailWorld({ gate: true }));
    expect(d).toEqual({ type: 'call', call: { tool: 'send_customer_email', args: { to: BOB } } });
  });

  it('calls every goal at once in one batch and finishes when all are believed', async () => {
    const v = { ...emailWorld(), goal: [`email_sent(to=${BOB})`, `recipient_verified(email=${BOB})`] };
    const { decisions } = await play(planner(), v);
    expect(decisions).toEqual([
      {
        type: 'batch',
        calls: [
          { tool: 'send_customer_email', args: { to: BOB } },
          { tool: 'verify_recipient', args: { email: BOB } },
        ],
      },
      { type: 'finish', reason: 'goal reached' },
    ]);
  });

  it('retries a failed call with the same args, three times at most, never reconciling', async () => {
    const { decisions } = await play(planner(), emailWorld(), () => ({ status: 'error', http_status: 504 }));
    const send = { type: 'call', call: { tool: 'send_customer_email', args: { to: BOB } } };
    expect(decisions).toEqual([send, send, send, send, { type: 'finish', reason: 'nothing left to try' }]);
  });

  it('stops retrying once a retry succeeds', async () => {
    const { decisions } = await play(planner(), emailWorld(), (_c, nth) =>
      nth === 1 ? { status: 'error', http_status: 500 } : {},
    );
    expect(decisions.map((d) => d.type)).toEqual(['call', 'call', 'finish']);
  });

  it('takes the shortcut with the fewest preconditions, even an irreversible one', async () => {
    const blast = tool({
      name: 'blast_email',
      class: 'irreversible',
      params: { to: { type: 'string' } },
      establishes: ['email_sent(to={{args.to}})'],
    });
    const d = await planner().next(emailWorld({ gate: true, extraTools: [blast] }));
    expect(d).toEqual({ type: 'call', call: { tool: 'blast_email', args: { to: BOB } } });
  });

  it('never calls a tool only to establish a precondition', async () => {
    // send_invoice_email needs an invoice id that only create_invoice would yield: eager has nothing to try.
    expect(await planner().next(invoiceWorld())).toEqual({ type: 'finish', reason: 'nothing left to try' });
  });

  it('is deterministic: the same view gives the same decision', async () => {
    const v = advance(emailWorld(), { type: 'call', call: { tool: 'send_customer_email', args: { to: BOB } } }, () => ({
      status: 'error',
      http_status: 500,
    }));
    expect(await planner().next(v)).toEqual(await planner().next(v));
  });
});
