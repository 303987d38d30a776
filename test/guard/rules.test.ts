/**
 * The guard's rules one by one, each in its one home: which failures are definite (failures.ts),
 * how a reconciler's reply answers (reply-condition.ts), filled keys and duplicates (applied.ts,
 * which `eval --guard` uses as the proxy does), and the declarations' problems at load.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CallEvent } from '../../harness/core/record.ts';
import { AppliedCalls } from '../../harness/domain/rules/applied.ts';
import { isAmbiguousFailure } from '../../harness/domain/rules/failures.ts';
import { repeatedFailure, walkAmbiguities, type RetryTool } from '../../harness/domain/rules/retries.ts';
import { isAmbiguousFailure as plannerSees } from '../../harness/domain/planner-kit/history.ts';
import { parseReplyCondition, replyAnswer } from '../../harness/domain/rules/reply-condition.ts';
import { createGuard } from '../../harness/engine/guard/guard.ts';
import { loadPolicyFile } from '../../harness/engine/guard/policy.ts';
import { loadScenarioText } from '../../harness/engine/loader/load.ts';
import { tempDir } from '../helpers/cli.ts';
import { call, runDecisions, scenarioFrom } from '../helpers/run.ts';

describe('which failures are definite', () => {
  const declared = { codes: [-32001], errors: ['^card declined'] };
  it.each([
    [{ kind: 'reply', http_status: null, text: '503 Service Unavailable' }, undefined, true],
    [{ kind: 'reply', http_status: 503, text: 'unavailable' }, undefined, true],
    [{ kind: 'reply', http_status: 404, text: 'no such customer' }, undefined, false],
    [{ kind: 'reply', http_status: 422, text: 'key reused' }, undefined, false],
    [{ kind: 'reply', http_status: 409, text: 'in progress' }, undefined, true],
    [{ kind: 'reply', http_status: 429, text: 'slow down' }, undefined, true],
    [{ kind: 'reply', http_status: 408, text: 'timeout' }, undefined, true],
    [{ kind: 'reply', http_status: null, text: 'card declined: insufficient funds' }, declared, false],
    [{ kind: 'reply', http_status: 502, text: 'card declined upstream?' }, declared, false],
    [{ kind: 'rpc_error', code: -32602, text: 'invalid params' }, undefined, false],
    [{ kind: 'rpc_error', code: -32603, text: 'internal error' }, undefined, true],
    [{ kind: 'rpc_error', code: -32001, text: 'rejected by the bank' }, declared, false],
    [{ kind: 'no_reply', text: 'card declined' }, declared, true],
  ] as const)('%j (declared %j): ambiguous %s', (failure, decl, ambiguous) => {
    expect(isAmbiguousFailure(failure, decl)).toBe(ambiguous);
  });
});

describe('the planners read failures by the same rule', () => {
  it('a 409 is ambiguous unless the tool declares its text definite; no status is ambiguous', () => {
    const failed = {
      step: 1,
      tool: 'deploy',
      args: {},
      status: 'error',
      http_status: 409,
      error: 'deploy lock held',
    } as const;
    expect(plannerSees(failed)).toBe(true);
    expect(plannerSees(failed, { definite_failures: { errors: ['^deploy lock'] } })).toBe(false);
    expect(plannerSees({ ...failed, http_status: 404 })).toBe(false);
    expect(plannerSees({ step: 1, tool: 'deploy', args: {}, status: 'error' })).toBe(true);
  });
});

describe("how a reconciler's reply answers", () => {
  it('reads a condition over the reply, and says why a reply cannot be read', () => {
    const cond = '{{result.status}} == succeeded';
    expect(replyAnswer(cond, { result: { status: 'succeeded' } })).toEqual({ ok: true, value: true });
    expect(replyAnswer(cond, { result: { status: 'failed' } })).toEqual({ ok: true, value: false });
    expect(replyAnswer('{{result.state}} != "not found"', { result: { state: 'not found' } })).toEqual({
      ok: true,
      value: false,
    });
    expect(replyAnswer(cond, { result: { text: 'try later' } })).toEqual({
      ok: false,
      why: 'its reply has no status ({{result.status}} == succeeded)',
    });
    // The default is oneway serve's applied field: anything but true or false settles nothing.
    expect(replyAnswer(undefined, { result: { applied: true } })).toEqual({ ok: true, value: true });
    expect(replyAnswer(undefined, { result: { applied: 'yes' } })).toEqual({
      ok: false,
      why: 'its reply has no applied: true|false',
    });
  });

  it('refuses a condition it cannot read, at its line in the scenario', () => {
    expect(parseReplyCondition('status = succeeded').ok).toBe(false);
    expect(parseReplyCondition('a == b')).toMatchObject({ ok: false, message: '"a == b" reads nothing of the reply' });
    const text = `id: bad-reconciler
title: t
task: t
tools:
  - name: pay
    reversibility: irreversible
    definite_failures: { errors: ["(a)\\\\1"] }
  - name: pay_status
    reversibility: reversible
    read_only: true
    reconciles: [{ tool: pay, applied: "{{result.status}} = ok" }]
goal: ["x()"]
`;
    const r = loadScenarioText(text, 'bad.yaml');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems.map((p) => [p.line, p.path, p.message])).toEqual([
      [7, 'tools[0].definite_failures.errors[0]', expect.stringContaining('cannot run the pattern')],
      [11, 'tools[1].reconciles[0].applied', 'cannot read the condition "{{result.status}} = ok"'],
    ]);
  });
});

describe('a repeat after an ambiguous failure: key_survives_failure (retries.ts, both doors)', () => {
  const failed = [
    {
      step: 1,
      batch: 0,
      tool: 'pay',
      args: { to: 'v1', key: 'k1' },
      class: 'irreversible',
      status: 'fault',
      ambiguous: true,
    },
  ] as const;
  const repeat = (args: Record<string, unknown>) => ({ tool: 'pay', args, class: 'irreversible' }) as const;
  const held = (tool: RetryTool, args: Record<string, unknown>) => {
    const open = walkAmbiguities(failed, new Map([['pay', tool]]));
    return repeatedFailure(repeat(args), open, tool)?.step;
  };

  it("lets through only the failed call's own key when the server keeps keys of failed requests", () => {
    const keeps = { idempotency_key: 'key', key_survives_failure: true };
    expect(held(keeps, { to: 'v1', key: 'k1' })).toBeUndefined();
    // Another key is another request to the server, and no key is nothing it could answer from.
    expect(held(keeps, { to: 'v1', key: 'k2' })).toBe(1);
    expect(held(keeps, { to: 'v1' })).toBe(1);
    // Another call (its key aside) repeats nothing.
    expect(held(keeps, { to: 'v2', key: 'k1' })).toBeUndefined();
  });

  it('without the declaration (or with false), holds the repeat whatever its key', () => {
    for (const tool of [{ idempotency_key: 'key' }, { idempotency_key: 'key', key_survives_failure: false }]) {
      expect(held(tool, { to: 'v1', key: 'k1' })).toBe(1);
      expect(held(tool, { to: 'v1', key: 'k2' })).toBe(1);
    }
  });
});

describe('filled keys and duplicates: one home for eval --guard and the proxy', () => {
  const tools = new Map([
    ['pay', { idempotency_key: 'key' }],
    ['publish', { idempotent: true }],
  ]);
  const payTo = (to: string): { tool: string; args: Record<string, unknown> } => ({ tool: 'pay', args: { to } });
  const outcome = (step: number, args: Record<string, unknown>, status: CallEvent['status']) =>
    ({ step, tool: 'pay', args, class: 'irreversible', status }) as const;

  it('fills the same key until the same call succeeded, then a new one, which makes a duplicate', () => {
    const a = new AppliedCalls(tools, 'run-1');
    const first = a.withKey(payTo('v1'));
    expect(first.args.key).toMatch(/^oneway-[0-9a-f]{32}$/);
    a.take(outcome(1, first.args, 'fault'));
    expect(a.withKey(payTo('v1')).args.key).toBe(first.args.key);
    a.take(outcome(2, first.args, 'ok'));
    const next = a.withKey(payTo('v1'));
    expect(next.args.key).not.toBe(first.args.key);
    expect(a.duplicated({ ...next, class: 'irreversible' })).toBe(2);
    // The key the applied call used is answered from it: no duplicate. A client's own key is kept.
    expect(a.duplicated({ tool: 'pay', args: first.args, class: 'irreversible' })).toBeUndefined();
    expect(a.withKey({ tool: 'pay', args: { to: 'v1', key: 'mine' } as Record<string, unknown> }).args.key).toBe(
      'mine',
    );
    // Another scope (another journal, another run) derives other keys.
    expect(new AppliedCalls(tools, 'run-2').withKey(payTo('v1')).args.key).not.toBe(first.args.key);
  });

  it('counts a call a reconciler reported applied, and never an idempotent tool', () => {
    const a = new AppliedCalls(tools, 'run-1');
    a.take(outcome(1, { to: 'v1', key: 'k1' }, 'fault'));
    expect(a.duplicated({ tool: 'pay', args: { to: 'v1' }, class: 'irreversible' })).toBeUndefined();
    a.take({
      step: 2,
      tool: 'pay_status',
      args: {},
      class: 'reversible',
      status: 'ok',
      reconciled: { tool: 'pay', step: 1, applied: true, calls: [{ tool: 'pay', step: 1, applied: true }] },
    });
    expect(a.duplicated({ tool: 'pay', args: { to: 'v1', key: 'k2' }, class: 'irreversible' })).toBe(1);
    a.take({ step: 3, tool: 'publish', args: { post: 'p' }, class: 'irreversible', status: 'ok' });
    expect(a.duplicated({ tool: 'publish', args: { post: 'p' }, class: 'irreversible' })).toBeUndefined();
  });

  it('eval --guard fills a missing declared key as the proxy does, before the schema that requires it: a retry after a definite answer carries the same key', async () => {
    const s = scenarioFrom(`
id: keyed
title: Keyed payout
task: Pay v1.
tools:
  - name: pay
    reversibility: irreversible
    idempotency_key: key
    parameters: { type: object, properties: { to: { type: string }, key: { type: string } }, required: [to, key] }
    effects: [ { establish: "paid(to={{args.to}})" } ]
    faults: [ { on_call: 1, status: 504, applied: false } ]
  - name: pay_status
    reversibility: reversible
    read_only: true
    reconciles: [pay]
    parameters: { type: object, properties: { to: { type: string } }, required: [to] }
goal: ["paid(to=v1)"]
`);
    const pay = call('pay', { to: 'v1' });
    // Without the guard the schema rejects the keyless call; with it, the key is filled first, as in production.
    const bare = await runDecisions(s, [pay], {});
    expect(bare.events.filter((e) => e.type === 'rejected')).toHaveLength(1);
    const r = await runDecisions(s, [pay, call('pay_status', { to: 'v1' }), pay], { gate: createGuard() });
    expect(r.events.filter((e) => e.type === 'rejected')).toEqual([]);
    const calls = r.events.filter((e): e is CallEvent => e.type === 'call');
    expect(calls.map((c) => c.status)).toEqual(['fault', 'ok', 'ok']);
    const [k1, , k3] = calls.map((c) => c.args.key);
    expect(k1).toMatch(/^oneway-[0-9a-f]{32}$/);
    expect(k3).toBe(k1);
  });
});

describe("the policy's approver", () => {
  it('is for oneway guard only: an evaluation refuses it with its line', () => {
    const file = join(tempDir(), 'policy.yaml');
    writeFileSync(file, 'irreversible: approval\napprover: client\n');
    expect(loadPolicyFile(file, { production: true })).toMatchObject({ ok: true, value: { approver: 'client' } });
    const r = loadPolicyFile(file);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems[0]).toMatchObject({ line: 2, path: 'approver' });
  });
});
