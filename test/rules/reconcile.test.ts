/** The reconciliation rule, by hand: which earlier call a reconciler reports on. */
import { describe, expect, it } from 'vitest';
import {
  reconciledIndices,
  reconcilersByTarget,
  reportedBy,
  reportsOn,
  sharedParameters,
  valueText,
} from '../../harness/domain/rules/reconcile.ts';
import { canonicalOrder, callIdentity, callKey } from '../../harness/domain/rules/same-call.ts';

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

  it('reports on every matching call, oldest first, or every call when nothing is shared: no "most recent", no tie rule', () => {
    const earlier = [
      { tool: 'pay', args: { payee: 'acme', amount: 1 } },
      { tool: 'pay', args: { payee: 'globex', amount: 2 } },
      { tool: 'payment_status', args: { payee: 'acme' } },
      { tool: 'pay', args: { payee: 'acme', amount: 3 } },
    ];
    expect(reconciledIndices(status, { payee: 'acme' }, earlier, named)).toEqual([0, 3]);
    expect(reconciledIndices(status, { payee: 'globex' }, earlier, named)).toEqual([1]);
    expect(reconciledIndices(status, { payee: 'initech' }, earlier, named)).toEqual([]);
    // An argument the reconciler was not given does not narrow the match.
    expect(reconciledIndices(status, {}, earlier, named)).toEqual([0, 1, 3]);
    expect(reconciledIndices(anyStatus, {}, earlier, named)).toEqual([0, 1, 3]);
    // A tool that reconciles nothing reports on nothing.
    expect(reconciledIndices(pay, {}, earlier, named)).toEqual([]);
    expect(reconcilersByTarget([pay, status, anyStatus])).toEqual(
      new Map([['pay', ['payment_status', 'last_payment']]]),
    );
  });
});

describe('what a reconciling call reported, as the caller learnt it', () => {
  const reconciled = {
    tool: 'pay',
    step: 4,
    applied: true,
    calls: [
      { tool: 'pay', step: 2, applied: false },
      { tool: 'pay', step: 4, applied: true },
    ],
  };
  it('every call its record names, when its reply reached the caller', () => {
    expect(reportedBy({ status: 'ok', reconciled }).map((r) => r.step)).toEqual([2, 4]);
    // A record written before `calls` existed names the one call.
    expect(reportedBy({ status: 'ok', reconciled: { tool: 'pay', step: 4, applied: true } })).toEqual([
      { tool: 'pay', step: 4, applied: true },
    ]);
  });
  it('nothing when its reply failed or a restart lost it, or when nothing matched', () => {
    expect(reportedBy({ status: 'fault', reconciled })).toEqual([]);
    expect(reportedBy({ status: 'ok', reply_lost: true, reconciled })).toEqual([]);
    expect(reportedBy({ status: 'ok', reconciled: null })).toEqual([]);
  });
});

describe('the same call', () => {
  it('for retries and duplicates: the idempotency key aside, or only dedupe_on', () => {
    const keyed = { idempotency_key: 'key' };
    expect(callIdentity({ tool: 'pay', args: { to: 'v', key: 'k1' } }, keyed)).toBe(
      callIdentity({ tool: 'pay', args: { key: 'k2', to: 'v' } }, keyed),
    );
    expect(callIdentity({ tool: 'pay', args: { to: 'v', key: 'k1' } }, keyed)).not.toBe(
      callIdentity({ tool: 'pay', args: { to: 'w', key: 'k1' } }, keyed),
    );
    // Without a declared key, the key-looking argument is an argument like any other.
    expect(callIdentity({ tool: 'pay', args: { to: 'v', key: 'k1' } }, {})).toBe(
      callKey({ tool: 'pay', args: { to: 'v', key: 'k1' } }),
    );
    const deduped = { dedupe_on: ['to'] };
    expect(callIdentity({ tool: 'pay', args: { to: 'v', amount: 1 } }, deduped)).toBe(
      callIdentity({ tool: 'pay', args: { to: 'v', amount: 2 } }, deduped),
    );
  });

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
