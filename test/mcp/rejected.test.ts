/**
 * MCP serve and rejected calls, in process (the SDK's client over an in-memory
 * transport, the real server and run loop): a tools/call with an unknown tool or
 * arguments that violate the schema gets an MCP tool error with the reason, is
 * recorded on that run as a `rejected` event, is not a step, and the run goes on.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile } from '../../harness/engine/loader/load.ts';
import { RunChannel } from '../../harness/features/mcp/channel.ts';
import { createRunServer, scenarioSurface } from '../../harness/features/mcp/server.ts';
import type { CallEvent, RejectedEvent } from '../../harness/core/record.ts';
import { memorySink } from '../../harness/engine/record/writer.ts';
import { runOne } from '../../harness/engine/runner/run.ts';
import { EMAIL, FIXTURE, textOf } from './helpers.ts';

async function session() {
  const loaded = loadScenarioFile(FIXTURE);
  if (!loaded.ok) throw new Error('fixture does not load');
  const scenario = loaded.value.scenario;
  const channel = new RunChannel('mcp');
  const done = runOne({
    scenario,
    scenarioFile: 'notify.yaml',
    planner: channel.handle,
    plannerContext: { options: {} },
    trial: 1,
    seed: 1,
    runId: 'test/mcp-rejected',
    sink: memorySink(),
    transport: 'inprocess',
    maxTurns: 50,
    decisionTimeoutMs: 60_000, // a safety net: the test is the client, and may be slow on a busy machine
  }).then((o) => {
    channel.end({ end_reason: o.end_reason, error: o.error, record: 'runs/x.jsonl' });
    return o;
  });
  const server = createRunServer(scenarioSurface(scenario, 50), channel);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'oneway-test', version: '1.0.0' });
  await client.connect(clientSide);
  return { client, done };
}

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
