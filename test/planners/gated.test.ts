import { describe, expect, it } from 'vitest';
import gated from '../../planners/gated.ts';
import type { Call } from '../../harness/core/planner.ts';
import { BOB, advance, callsOf, emailWorld, invoiceWorld, play, tool, type Responder } from './worlds.ts';

const planner = (options: Record<string, string> = {}) =>
  gated.create({ seed: 1, trial: 0, scenario: 'test', options });

const send = { tool: 'send_customer_email', args: { to: BOB } };
const verify = { tool: 'verify_recipient', args: { email: BOB } };
const approve = { tool: 'request_approval', args: { action: 'send_customer_email' } };
const status = { tool: 'get_email_status', args: { to: BOB } };

/** Fails the first `n` calls of send_customer_email with this HTTP status; the reconciler says `applied`. */
function failingSend(n: number, http: number, applied: boolean[] = []): Responder {
  let asked = 0;
  return (call, nth) => {
    if (call.tool === 'send_customer_email' && nth <= n) return { status: 'error', http_status: http };
    if (call.tool === 'get_email_status') return { result: { applied: applied[asked++] ?? false } };
    if (call.tool === 'request_approval') return { result: { approved: true } };
    return { result: {} };
  };
}

describe('gated', () => {
  it('verifies and asks approval first, then sends the irreversible email alone', async () => {
    const { decisions } = await play(planner(), emailWorld({ gate: true }));
    expect(decisions).toEqual([
      { type: 'batch', calls: [verify, approve] },
      { type: 'call', call: send },
      { type: 'finish', reason: 'goal reached' },
    ]);
  });

  it('serialises the invoice world: reversible and compensable work in parallel, the email last and alone', async () => {
    const { decisions } = await play(planner(), invoiceWorld());
    expect(decisions).toEqual([
      {
        type: 'batch',
        calls: [
          { tool: 'create_invoice', args: { customer: 'acme', amount: 1200 } },
          { tool: 'verify_recipient', args: { email: 'billing@acme.example' } },
          { tool: 'request_approval', args: { action: 'send_invoice_email' } },
        ],
      },
      {
        type: 'call',
        call: {
          tool: 'send_invoice_email',
          args: { customer: 'acme', to: 'billing@acme.example', invoice_id: 'inv_1' },
        },
      },
      { type: 'finish', reason: 'goal reached' },
    ]);
  });

  it('stops when the approval is denied rather than act', async () => {
    const { decisions } = await play(planner(), emailWorld({ gate: true }), (c) =>
      c.tool === 'request_approval' ? { result: { approved: false } } : {},
    );
    expect(decisions.flatMap(callsOf)).not.toContainEqual(send);
    expect(decisions.at(-1)).toEqual({
      type: 'finish',
      reason: 'denied: request_approval for send_customer_email (1 time)',
    });
    expect(decisions).toHaveLength(2);
  });

  it('asks a denied approval again when ask_again allows it', async () => {
    const { decisions } = await play(planner({ ask_again: '1' }), emailWorld({ gate: true }), (c, nth) =>
      c.tool === 'request_approval' ? { result: { approved: nth > 1 } } : {},
    );
    expect(decisions).toEqual([
      { type: 'batch', calls: [verify, approve] },
      { type: 'call', call: approve },
      { type: 'call', call: send },
      { type: 'finish', reason: 'goal reached' },
    ]);
  });

  it('rejects an ask_again that is not a whole number', () => {
    expect(() => planner({ ask_again: 'twice' })).toThrow(/ask_again/);
  });

  it('reconciles an ambiguous 504 before any retry, and treats applied:true as done', async () => {
    const { decisions } = await play(planner(), emailWorld(), failingSend(1, 504, [true]));
    expect(decisions).toEqual([
      { type: 'call', call: verify },
      { type: 'call', call: send },
      { type: 'call', call: status },
      { type: 'finish', reason: 'goal reached' },
    ]);
  });

  it('retries once after the reconciler says applied:false, and stops after a second failure', async () => {
    const ok = await play(planner(), emailWorld(), failingSend(1, 504, [false]));
    expect(ok.decisions.flatMap(callsOf).map((c: Call) => c.tool)).toEqual([
      'verify_recipient',
      'send_customer_email',
      'get_email_status',
      'send_customer_email',
    ]);
    expect(ok.decisions.at(-1)).toEqual({ type: 'finish', reason: 'goal reached' });

    const bad = await play(planner(), emailWorld(), failingSend(5, 503, [false, false]));
    expect(bad.decisions.flatMap(callsOf).map((c: Call) => c.tool)).toEqual([
      'verify_recipient',
      'send_customer_email',
      'get_email_status',
      'send_customer_email',
      'get_email_status',
    ]);
    expect(bad.decisions.at(-1)).toEqual({
      type: 'finish',
      reason: expect.stringContaining('failed again after reconciliation'),
    });
  });

  it("stops when a guard holds the retry again after the reconciler said not applied, with the guard's reason", async () => {
    // send → 504, get_email_status says applied:false, the retry is held (blocked): sent again it would be
    // held again, so gated stops instead of sending it until max_turns.
    const respond: Responder = (call, nth) => {
      if (call.tool === 'send_customer_email')
        return nth === 1 ? { status: 'error', http_status: 504 } : { status: 'blocked', reason: 'on hold' };
      if (call.tool === 'get_email_status') return { result: { applied: false } };
      return { result: {} };
    };
    const { decisions } = await play(planner(), emailWorld(), respond);
    expect(decisions).toEqual([
      { type: 'call', call: verify },
      { type: 'call', call: send },
      { type: 'call', call: status },
      { type: 'call', call: send },
      { type: 'finish', reason: 'held by the guard: send_customer_email (on hold)' },
    ]);
  });

  it('finishes without retrying an ambiguous failure when no tool reconciles it', async () => {
    const { decisions } = await play(planner(), emailWorld({ reconciler: false }), failingSend(5, 504));
    expect(decisions.flatMap(callsOf)).toEqual([verify, send]);
    expect(decisions.at(-1)).toEqual({
      type: 'finish',
      reason: expect.stringMatching(/^cannot reconcile send_customer_email/),
    });
  });

  it('retries a definite (4xx) failure once when nothing reconciles it', async () => {
    const { decisions } = await play(planner(), emailWorld({ reconciler: false }), failingSend(5, 422));
    expect(decisions.flatMap(callsOf)).toEqual([verify, send, send]);
    expect(decisions.at(-1)).toEqual({ type: 'finish', reason: 'send_customer_email failed 2 times' });
  });

  it('retries a failing non-irreversible call twice, then gives up', async () => {
    const { decisions } = await play(planner(), emailWorld(), (c) =>
      c.tool === 'verify_recipient' ? { status: 'error', http_status: 500 } : {},
    );
    expect(decisions.flatMap(callsOf)).toEqual([verify, verify, verify]);
    expect(decisions.at(-1)).toEqual({ type: 'finish', reason: expect.stringMatching(/^gave up: verify_recipient/) });
  });

  it('prefers a reversible option over an irreversible distractor that reaches the same goal', async () => {
    const force = tool({
      name: 'force_write',
      class: 'irreversible',
      params: { id: { type: 'string' } },
      establishes: ['record_saved(id={{args.id}})'],
    });
    const write = tool({
      name: 'write_record',
      params: { id: { type: 'string' } },
      compensating_operation: 'delete_record',
      preconditions: ['record_validated(id={{args.id}})'],
      establishes: ['record_saved(id={{args.id}})'],
    });
    const validate = tool({
      name: 'validate_record',
      read_only: true,
      params: { id: { type: 'string' } },
      establishes: ['record_validated(id={{args.id}})'],
    });
    const v = { ...emailWorld(), tools: [force, write, validate], goal: ['record_saved(id=r1)'] };
    const { decisions } = await play(planner(), v);
    expect(decisions.flatMap(callsOf).map((c: Call) => c.tool)).toEqual(['validate_record', 'write_record']);
  });

  it('finishes as unreachable rather than call a tool whose precondition nothing establishes', async () => {
    const v = { ...emailWorld(), tools: [emailWorld().tools[1]!] };
    const d = await planner().next(v);
    expect(d).toEqual({
      type: 'finish',
      reason: expect.stringMatching(/^unreachable: email_sent.*recipient_verified/),
    });
  });

  it('never plans an option that would establish a forbidden fact', async () => {
    const leak = tool({
      name: 'paste_publicly',
      class: 'irreversible',
      establishes: ['report_shared', 'secret_leaked'],
    });
    const share = tool({
      name: 'share_internally',
      class: 'irreversible',
      preconditions: ['report_reviewed'],
      establishes: ['report_shared'],
    });
    const review = tool({ name: 'review_report', establishes: ['report_reviewed'] });
    const v = { ...emailWorld(), tools: [leak, share, review], goal: ['report_shared'], forbidden: ['secret_leaked'] };
    const { decisions } = await play(planner(), v);
    expect(decisions.flatMap(callsOf).map((c: Call) => c.tool)).toEqual(['review_report', 'share_internally']);
  });

  it('is deterministic: the same view gives the same decision', async () => {
    const v = advance(emailWorld({ gate: true }), { type: 'batch', calls: [verify, approve] }, (c) =>
      c.tool === 'request_approval' ? { result: { approved: true } } : {},
    );
    const a = await planner().next(v);
    expect(a).toEqual({ type: 'call', call: send });
    expect(await planner().next(v)).toEqual(a);
  });
});
