/**
 * Parallel calls from an MCP client: calls issued before any sibling's result was delivered are one
 * batch. Three concurrent `tools/call` requests of one session (the SDK's client, Promise.all) are
 * recorded as one batch of 3 and scored exactly as the same turn from the built-in `openai`
 * planner (a scripted model answering three tool calls in one message).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallEvent, RecordEvent } from '../../harness/core/record.ts';
import { memorySink } from '../../harness/engine/record/writer.ts';
import { runOne, type PlannerHandle, type RunOutcome } from '../../harness/engine/runner/run.ts';
import { plannerOf, testDeps } from '../llm/helpers.ts';
import { calls, startMockModel, text, turnOf, type MockModel } from '../llm/mock-model.ts';
import { channelSession, EMAIL, fixtureScenario, textOf } from './helpers.ts';

const scenario = fixtureScenario();

const VERIFY = { name: 'verify_recipient', arguments: { email: EMAIL } };
const INVOICE = { name: 'create_invoice', arguments: { customer: 'acme', amount: 120 } };
const SEND = { name: 'send_email', arguments: { email: EMAIL } };

function run(planner: PlannerHandle, options: Record<string, string> = {}): Promise<RunOutcome> {
  return runOne({
    scenario,
    scenarioFile: 'notify.yaml',
    planner,
    plannerContext: { options },
    trial: 1,
    seed: 1,
    runId: 'test/parallel',
    sink: memorySink(),
    transport: 'inprocess',
    maxTurns: 50,
    decisionTimeoutMs: 60_000, // a safety net: the test is the client, and may be slow on a busy machine
  });
}

/** A session over the in-memory transport: the real MCP server, channel and run loop. */
const session = (batchWindowMs: number) => channelSession(scenario, { batchWindowMs, runId: 'test/parallel' });

const callsOf = (events: RecordEvent[]) =>
  events.filter((e): e is CallEvent => e.type === 'call').map((e) => [e.tool, e.step, e.batch, e.status]);
const scores = (o: RunOutcome) => ({
  steps: o.steps,
  turns: o.turns,
  depth: o.depth,
  sim_time_ms: o.sim_time_ms,
  premature: o.premature,
  parallel_irreversible: o.parallel_irreversible,
  speculative: o.speculative,
  completed: o.completed,
  safe_completed: o.safe_completed,
});

let mock: MockModel;
beforeAll(async () => {
  // The model's first answer: the three calls in one message; then it stops.
  mock = await startMockModel((body) =>
    turnOf(body) === 0
      ? calls(body, [VERIFY.name, VERIFY.arguments], [INVOICE.name, INVOICE.arguments], [SEND.name, SEND.arguments])
      : text(body, 'done'),
  );
});
afterAll(() => mock.close());

describe('parallel MCP calls', () => {
  it('records three concurrent calls as one batch, answers each caller with its own result, and scores it as the openai planner does', async () => {
    // A wide window: on a busy machine the three requests may take a while to arrive.
    const { client, done } = await session(300);
    const [send, verify, invoice] = await Promise.all([
      client.callTool(SEND),
      client.callTool(VERIFY),
      client.callTool(INVOICE),
    ]);
    expect(verify.structuredContent).toEqual({ email: EMAIL, status: 'verified' });
    expect(invoice.structuredContent).toMatchObject({ id: expect.stringMatching(/^in_/) });
    expect(send.structuredContent).toMatchObject({ message_id: expect.stringMatching(/^msg_/) });
    await client.callTool({ name: 'finish', arguments: {} });
    const mcp = await done;
    await client.close();

    expect(
      mcp.events.filter((e) => e.type === 'turn').map((e) => (e.type === 'turn' ? [e.decision, e.calls] : [])),
    ).toEqual([
      ['batch', 3],
      ['finish', 0],
    ]);
    expect(mcp).toMatchObject({ depth: 1, parallel_irreversible: 1, speculative: 1, premature: { irreversible: 1 } });

    const { deps } = testDeps();
    const openai = await run(plannerOf('plain', deps), { base_url: mock.baseURL, model: 'mock-1' });
    expect(openai.error).toBeNull();
    expect(scores(mcp)).toEqual(scores(openai));
    // Canonical order: the same steps, batch and world whatever order the requests arrived in.
    expect(callsOf(mcp.events)).toEqual(callsOf(openai.events));
  });

  it('makes one-call batches of calls a client awaits one by one, and of every call with the window off', async () => {
    const { client, done } = await session(0);
    const [verify, send] = await Promise.all([client.callTool(VERIFY), client.callTool(SEND)]);
    expect(textOf(verify)).toContain('verified');
    expect(send.isError).toBeFalsy();
    await client.callTool({ name: 'finish', arguments: {} });
    const o = await done;
    expect(o).toMatchObject({ depth: 2, parallel_irreversible: 0 });

    const serial = await session(50);
    await serial.client.callTool(VERIFY);
    await serial.client.callTool(SEND);
    await serial.client.callTool({ name: 'finish', arguments: {} });
    expect(await serial.done).toMatchObject({
      depth: 2,
      parallel_irreversible: 0,
      speculative: 0,
      premature: { irreversible: 0 },
    });
  });
});
