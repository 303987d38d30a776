/**
 * MCP serve and rejected calls, in process (the SDK's client over an in-memory
 * transport, the real server and run loop): a tools/call with an unknown tool or
 * arguments that violate the schema gets an MCP tool error with the reason, is
 * recorded on that run as a `rejected` event, is not a step, and the run goes on.
 */
import { describe, expect, it } from 'vitest';
import type { CallEvent, RejectedEvent } from '../../harness/core/record.ts';
import { channelSession, EMAIL, fixtureScenario, textOf } from './helpers.ts';

const session = () => channelSession(fixtureScenario(), { runId: 'test/mcp-rejected' });

describe('MCP tools/call that the run rejects', () => {
  it('answers invalid arguments and an unknown tool with a tool error, records both as rejected, and goes on', async () => {
    const { client, done } = await session();

    const invalid = await client.callTool({ name: 'send_email', arguments: { email: 42 } });
    expect(invalid).toMatchObject({ isError: true, _meta: { 'oneway/status': 'rejected' } });
    expect(textOf(invalid)).toBe('invalid arguments for send_email: email: must be string');

    const missing = await client.callTool({ name: 'create_invoice', arguments: { customer: 'acme', amount: '120' } });
    expect(textOf(missing)).toBe('invalid arguments for create_invoice: amount: must be number');

    const unknown = await client.callTool({ name: 'send_mail', arguments: { email: EMAIL } });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatch(
      /^unknown tool "send_mail" \(did you mean "send_email"\?\); the tools are: send_email, verify_recipient/,
    );

    const ok = await client.callTool({ name: 'verify_recipient', arguments: { email: EMAIL } });
    expect(ok.isError).toBeFalsy();
    expect(ok._meta).toMatchObject({ 'oneway/status': 'ok', 'oneway/step': 1 });
    await client.callTool({ name: 'finish', arguments: {} });
    const o = await done;

    expect(o).toMatchObject({ end_reason: 'finish', error: null, steps: 1, rejected: 3 });
    // Each MCP call is one decision (one batch index); the rejected ones sent nothing to the sandbox.
    expect(
      o.events.filter((e): e is RejectedEvent => e.type === 'rejected').map((e) => [e.turn, e.batch, e.tool, e.args]),
    ).toEqual([
      [1, 0, 'send_email', { email: 42 }],
      [2, 1, 'create_invoice', { customer: 'acme', amount: '120' }],
      [3, 2, 'send_mail', { email: EMAIL }],
    ]);
    expect(o.events.filter((e): e is CallEvent => e.type === 'call').map((e) => [e.tool, e.step, e.batch])).toEqual([
      ['verify_recipient', 1, 3],
    ]);
    await client.close();
  });
});
