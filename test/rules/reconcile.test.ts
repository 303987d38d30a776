/** The reconciliation rule, by hand: which earlier call a reconciler reports on. */
import { describe, expect, it } from 'vitest';
import {
  reconciledIndex,
  reconcilersByTarget,
  reportsOn,
  sharedParameters,
  valueText,
} from '../../harness/domain/rules/reconcile.ts';
import { canonicalOrder, callKey } from '../../harness/domain/rules/same-call.ts';

const pay = { name: 'pay', reconciles: [], parameters: ['payee', 'amount'] };
const status = { name: 'payment_status', reconciles: ['pay'], parameters: ['payee'] };
const anyStatus = { name: 'last_payment', reconciles: ['pay'], parameters: [] };
const tools = new Map([pay, status, anyStatus].map((t) => [t.name, t]));
const named = (n: string) => tools.get(n);

describe('reconciliation', () => {
  it('matches on the parameters both tools declare, values as text', () => {
    expect(sharedParameters(status, pay)).toEqual(['payee']);
    expect(reportsOn(status, { payee: 'acme' }, pay, { payee: 'acme', amount: 5 })).toBe(true);
    // Checking globex says nothing about a payment to acme.
    expect(reportsOn(status, { payee: 'globex' }, pay, { payee: 'acme', amount: 5 })).toBe(false);
    // Values compare as text: 1200 and "1200" agree, 1200.00 (text "1200.00") does not.
    const amountStatus = { name: 's', reconciles: ['pay'], parameters: ['amount'] };
    expect(reportsOn(amountStatus, { amount: '1200' }, pay, { amount: 1200 })).toBe(true);
    expect(reportsOn(amountStatus, { amount: '1200.00' }, pay, { amount: 1200 })).toBe(false);
    expect(valueText({ b: 1, a: 2 })).toBe('{"a":2,"b":1}');
  });

  it('reports on the most recent matching call, or the most recent call when nothing is shared', () => {
    const earlier = [
      { tool: 'pay', args: { payee: 'acme', amount: 1 } },
      { tool: 'pay', args: { payee: 'globex', amount: 2 } },
      { tool: 'payment_status', args: { payee: 'acme' } },
    ];
    expect(reconciledIndex(status, { payee: 'acme' }, earlier, named)).toBe(0);
    expect(reconciledIndex(status, { payee: 'globex' }, earlier, named)).toBe(1);
    expect(reconciledIndex(status, { payee: 'initech' }, earlier, named)).toBe(-1);
    // An argument the reconciler was not given does not narrow the match.
    expect(reconciledIndex(status, {}, earlier, named)).toBe(1);
    expect(reconciledIndex(anyStatus, {}, earlier, named)).toBe(1);
    expect(reconcilersByTarget([pay, status, anyStatus])).toEqual(
      new Map([['pay', ['payment_status', 'last_payment']]]),
    );
  });
});

describe('the same call', () => {
  it('ignores key order and orders a batch canonically', () => {
    expect(callKey({ tool: 'send', args: { to: 'a', cc: 'b' } })).toBe(
      callKey({ tool: 'send', args: { cc: 'b', to: 'a' } }),
    );
    expect(callKey({ tool: 'send', args: { n: 1 } })).not.toBe(callKey({ tool: 'send', args: { n: '1' } }));
    const batch = [
      { tool: 'verify', args: { e: 'b' } },
      { tool: 'send', args: { to: 'x' } },
      { tool: 'verify', args: { e: 'a' } },
    ];
    const sorted = canonicalOrder(batch);
    expect(sorted.map((c) => `${c.tool}:${Object.values(c.args)[0]}`)).toEqual(['send:x', 'verify:a', 'verify:b']);
    expect(canonicalOrder([...batch].reverse())).toEqual(sorted);
  });
});
