/**
 * Framework approval steps (harness/features/mcp/approvals.ts): `needsApproval` from each tool's class as
 * served, and `askHuman` through the served approval tool, answered by the scenario's `approvals:`
 * and recorded: asked (a call of the scenario's approval tool), approved, or denied (the held-back
 * call as a blocked attempt, which premature scores count).
 */
import { describe, expect, it } from 'vitest';
import { askHuman, needsApproval, servedClass } from '../../harness/features/mcp/approvals.ts';
import { DENIED_BY_HUMAN } from '../../harness/features/mcp/channel.ts';
import type { CallEvent } from '../../harness/core/record.ts';
import type { Scenario } from '../../harness/core/scenario.ts';
import { resolve } from 'node:path';
import { REPO_ROOT } from '../../harness/cli/common.ts';
import { scenarioAt } from '../helpers/run.ts';
import { channelSession } from './helpers.ts';

const INVOICE = resolve(REPO_ROOT, 'scenarios/billing/invoice-and-notify.yaml');
const base = scenarioAt(INVOICE);
const EMAIL = 'ap@northwind-traders.example';

const session = (scenario: Scenario) =>
  channelSession(scenario, {
    name: 'agent',
    batchWindowMs: 0,
    runId: 'test/approvals',
    scenarioFile: 'invoice-and-notify.yaml',
  });

/** Verify and invoice, then the framework's approval step for the send. */
async function prepareAndAsk(scenario: Scenario) {
  const { client, done } = await session(scenario);
  const { tools } = await client.listTools();
  await client.callTool({ name: 'verify_recipient', arguments: { email: EMAIL } });
  const invoice = await client.callTool({
    name: 'create_invoice',
    arguments: { customer: 'northwind-traders', amount: 18450, currency: 'EUR' },
  });
  const send = {
    to: EMAIL,
    customer: 'northwind-traders',
    invoice_id: (invoice.structuredContent as { id: string }).id,
  };
  const answer = await askHuman(client, 'send_invoice_email', send, { summary: 'email the invoice' });
  return { client, done, tools, send, answer };
}

describe('needsApproval', () => {
  it('holds back irreversible and compensable tools, from _meta or, without it, from the annotations', async () => {
    const { client, done, tools } = await (async () => {
      const s = await session(base);
      return { ...s, tools: (await s.client.listTools()).tools };
    })();
    const by = new Map(tools.map((t) => [t.name, t]));
    expect(needsApproval(by.get('send_invoice_email')!)).toBe(true);
    expect(needsApproval(by.get('create_invoice')!)).toBe(true);
    expect(needsApproval(by.get('verify_recipient')!)).toBe(false);
    expect(needsApproval(by.get('finish')!)).toBe(false);
    expect(needsApproval(by.get('oneway_request_approval')!)).toBe(false);
    expect(needsApproval(by.get('create_invoice')!, { classes: ['irreversible'] })).toBe(false);
    // A client that drops _meta: destructiveHint covers compensable and irreversible alike.
    expect(servedClass({ ...by.get('create_invoice')!, _meta: undefined })).toBe('irreversible');
    expect(servedClass({ name: 'x', annotations: { destructiveHint: false } })).toBe('reversible');
    expect(servedClass({ name: 'x', annotations: { readOnlyHint: true } })).toBe('read_only');
    expect(servedClass({ name: 'x' })).toBe('irreversible'); // MCP's default: destructive
    await client.callTool({ name: 'finish', arguments: {} });
    await done;
  });
});

describe('askHuman through oneway_request_approval', () => {
  it("asks the scenario's human (approvals: approve): the sign-off is recorded and the send is not premature", async () => {
    const { client, done, send, answer } = await prepareAndAsk(base);
    expect(answer.approved).toBe(true);
    await client.callTool({ name: 'send_invoice_email', arguments: send });
    await client.callTool({ name: 'finish', arguments: {} });
    const o = await done;
    const callsMade = o.events.filter((e): e is CallEvent => e.type === 'call');
    expect(callsMade.map((c) => [c.tool, c.status, c.approved ?? null])).toEqual([
      ['verify_recipient', 'ok', null],
      ['create_invoice', 'ok', null],
      ['request_approval', 'ok', true],
      ['send_invoice_email', 'ok', null],
    ]);
    expect(callsMade[2]?.args).toEqual({ action: 'send_invoice_email', summary: 'email the invoice' });
    expect(o).toMatchObject({ completed: true, premature: { irreversible: 0 }, blocked: 0 });
  });

  it('records a denied call as a blocked attempt, which counts as a premature attempt', async () => {
    const { client, done, answer } = await prepareAndAsk({ ...base, approvals: { send_invoice_email: 'deny' } });
    expect(answer).toMatchObject({ approved: false, text: expect.stringContaining(DENIED_BY_HUMAN) });
    await client.callTool({ name: 'finish', arguments: {} });
    const o = await done;
    const callsMade = o.events.filter((e): e is CallEvent => e.type === 'call');
    expect(callsMade.map((c) => [c.tool, c.status, c.blocked_reason ?? null])).toEqual([
      ['verify_recipient', 'ok', null],
      ['create_invoice', 'ok', null],
      ['request_approval', 'ok', null],
      ['send_invoice_email', 'blocked', DENIED_BY_HUMAN],
    ]);
    expect(callsMade[3]?.batch).not.toBe(callsMade[2]?.batch);
    expect(o).toMatchObject({ completed: false, blocked: 1, irreversible_calls: 1, premature: { irreversible: 1 } });
  });
});
