/**
 * The session planner against the real run loop, in process: calls become
 * one batch when they arrive together (one-call batches with the window off), observations go back to the caller, and
 * however the run ends, every waiting client gets an answer.
 */
import { describe, expect, it } from 'vitest';
import { createGuard } from '../../harness/engine/guard/guard.ts';
import type { Scenario } from '../../harness/core/scenario.ts';
import { EMAIL, fixtureScenario, startChannelRun, textOf } from './helpers.ts';

function fixture(over: Partial<Scenario> = {}): Scenario {
  return { ...fixtureScenario(), ...over };
}

const send = { tool: 'send_email', args: { email: EMAIL } };
const verify = { tool: 'verify_recipient', args: { email: EMAIL } };

describe('the session planner', () => {
  it('with the batch window off, runs calls that arrive together one by one, in arrival order, and answers each with its own result', async () => {
    const { channel, done } = startChannelRun(fixture(), { batchWindowMs: 0 });
    const [v, s] = await Promise.all([channel.call(verify), channel.call(send)]);
    expect(v.structuredContent).toEqual({ email: EMAIL, status: 'verified' });
    expect(s.structuredContent).toMatchObject({ message_id: expect.stringMatching(/^msg_/) });
    await channel.finish('done');
    const o = await done;
    expect(o).toMatchObject({ end_reason: 'finish', steps: 2, depth: 2, premature: { irreversible: 0 } });
    expect(o.events.filter((e) => e.type === 'turn').map((e) => e.calls)).toEqual([1, 1, 0]);
  });

  it('makes calls that arrive together one batch (run in canonical order), and answers each with its own result', async () => {
    const { channel, done } = startChannelRun(fixture(), { batchWindowMs: 200 });
    const [s, v] = await Promise.all([channel.call(send), channel.call(verify)]);
    expect(v.structuredContent).toEqual({ email: EMAIL, status: 'verified' });
    expect(s.structuredContent).toMatchObject({ message_id: expect.stringMatching(/^msg_/) });
    await channel.finish('done');
    const o = await done;
    expect(o).toMatchObject({
      end_reason: 'finish',
      steps: 2,
      depth: 1,
      parallel_irreversible: 1,
      speculative: 1,
      premature: { irreversible: 1 },
    });
    expect(o.events.filter((e) => e.type === 'turn').map((e) => e.calls)).toEqual([2, 0]);
  });

  it('answers a call the step budget refuses, and refuses calls after the run ended', async () => {
    const { channel, done } = startChannelRun(fixture({ max_steps: 1 }));
    await channel.call(verify);
    const over = await channel.call(send);
    expect(over.isError).toBe(true);
    expect(textOf(over)).toContain('max_steps');
    expect((await done).end_reason).toBe('max_steps');
    const late = await channel.call(verify);
    expect(textOf(late)).toContain('this run has ended');
  });

  it('turns faults and guard refusals into tool errors the client sees', async () => {
    const scenario = fixture();
    const faulty = {
      ...scenario,
      tools: scenario.tools.map((t) =>
        t.name === 'verify_recipient' ? { ...t, faults: [{ on_call: 1, status: 504, applied: false }] } : t,
      ),
    };
    const { channel, done } = startChannelRun(faulty, { gate: createGuard() });
    const fault = await channel.call(verify);
    expect(fault.isError).toBe(true);
    expect(JSON.parse(textOf(fault))).toMatchObject({ status: 'error', http_status: 504 });
    const blocked = await channel.call(send);
    expect(blocked.isError).toBe(true);
    expect(JSON.parse(textOf(blocked))).toMatchObject({
      status: 'blocked',
      missing: [`recipient_verified(email=${EMAIL})`],
    });
    channel.close({ ok: true, value: 'bye' });
    expect(await done).toMatchObject({ end_reason: 'finish', blocked: 1, premature: { irreversible: 1 } });
  });

  it('ends the run with an error when the client leaves with a call unanswered, after running it', async () => {
    const { channel, done } = startChannelRun(fixture());
    const pending = channel.call(send);
    channel.close({ ok: false, message: 'the client disconnected during a tool call' });
    const o = await done;
    expect(o).toMatchObject({ end_reason: 'planner_error', steps: 1 });
    expect(o.error).toContain('the client disconnected during a tool call');
    expect((await pending).isError).toBeFalsy(); // it ran; nobody may be listening, but it is answered
  });

  it('lets a run loop that timed out go, and answers the caller', async () => {
    const { channel, done } = startChannelRun(fixture(), { decisionTimeoutMs: 50 });
    const o = await done;
    expect(o.end_reason).toBe('decision_timeout');
    const late = await channel.finish();
    expect(late.isError).toBe(true);
    expect(textOf(late)).toContain('decision_timeout');
  });
});
