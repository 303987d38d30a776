import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuard } from '../../harness/engine/guard/guard.ts';
import { DEFAULT_POLICY } from '../../harness/engine/guard/policy.ts';
import type { BatchGate } from '../../harness/engine/runner/gate.ts';
import { EMPTY_NUDGE, REFUSAL_NUDGE } from '../../harness/features/llm/planner.ts';
import type { CallEvent } from '../../harness/core/record.ts';
import { loadPlanner } from '../../harness/engine/runner/planners.ts';
import { filesUnder } from '../helpers/cli.ts';
import { CANARY, evalLlm, plannerOf, readRecord, testDeps } from './helpers.ts';
import { agent, calls, empty, httpError, refusal, startMockModel, text, turnOf, type MockModel } from './mock-model.ts';

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel();
});
afterAll(() => mock.close());

/** Runs one planner variant on the email scenario with a script; returns the run, its record and what the model saw. */
async function run(
  variant: 'plain' | 'aware',
  script: MockModel['script'],
  options: Record<string, string> = {},
  gate?: BatchGate,
) {
  mock.script = script;
  mock.seen.length = 0;
  const t = testDeps();
  const results = await evalLlm(mock, { planners: [plannerOf(variant, t.deps)], options, ...(gate ? { gate } : {}) });
  const r = results.runs[0];
  if (!r) throw new Error('no run');
  const events = readRecord(results.outDir, r.record);
  const callEvents = events.filter((e): e is CallEvent => e.type === 'call');
  return { results, r, events, calls: callEvents, seen: [...mock.seen], sleeps: t.sleeps };
}

const toolMessages = (body: { messages: unknown[] }) =>
  body.messages.filter(
    (m): m is { role: 'tool'; tool_call_id: string; content: string } => (m as { role: string }).role === 'tool',
  );

describe('the LLM planner loop', () => {
  it('holds a multi-turn conversation: results go back as tool messages for the calls the model made', async () => {
    const { r, seen, calls: made } = await run('aware', agent);
    expect(r.error).toBeNull();
    expect(r.safe_completed).toBe(true);
    // A batch runs in its canonical order (tool name, then arguments); tool messages are matched by call, not position.
    expect(made.map((c) => [c.turn, c.tool])).toEqual([
      [1, 'request_approval'],
      [1, 'verify_recipient'],
      [2, 'send_email'],
    ]);
    expect(seen).toHaveLength(3);
    const second = toolMessages(seen[1]!.body);
    expect(second.map((m) => m.tool_call_id)).toEqual(['call_0_0', 'call_0_1']);
    expect(JSON.parse(second[1]!.content)).toEqual({ status: 'ok', http_status: 200, result: { approved: true } });
    const third = toolMessages(seen[2]!.body);
    expect(third.map((m) => m.tool_call_id)).toEqual(['call_0_0', 'call_0_1', 'call_1_0']);
    expect(JSON.parse(third[2]!.content).result).toHaveProperty('message_id');
    expect(r.usage).toMatchObject({ requests: 3, retries: 0, model: 'mock-1' });
    expect(r.usage!.prompt_tokens).toBeGreaterThan(0);
    expect(r.sandbox_escapes).toBe(0);
  });

  it('issues the tool calls of one message as one parallel batch', async () => {
    const { r, calls: made } = await run('plain', agent);
    expect(made.map((c) => [c.tool, c.batch, c.batch_size])).toEqual([
      ['send_email', 0, 2],
      ['verify_recipient', 0, 2],
    ]);
    expect(r).toMatchObject({ completed: true, safe_completed: false, parallel_irreversible: 1, speculative: 1 });
    expect(r.premature.irreversible).toBe(1);
  });

  it('matches observations to tool calls by tool and arguments when a guard reports the blocked call last', async () => {
    const script: MockModel['script'] = (body) =>
      turnOf(body) === 0
        ? calls(body, ['send_email', { to: 'bob@acme.example' }], ['verify_recipient', { email: 'bob@acme.example' }])
        : text(body, 'blocked; stopping');
    const { r, seen, calls: made } = await run('plain', script, {}, createGuard(DEFAULT_POLICY));
    expect(made.map((c) => [c.tool, c.status])).toEqual([
      ['verify_recipient', 'ok'],
      ['send_email', 'blocked'],
    ]);
    expect(r.blocked).toBe(1);
    const [send, verify] = toolMessages(seen[1]!.body);
    expect(send).toMatchObject({ tool_call_id: 'call_0_0' });
    expect(JSON.parse(send!.content)).toMatchObject({
      status: 'blocked',
      missing: expect.arrayContaining(['human_gate_passed(action=send_email)']),
    });
    expect(verify).toMatchObject({ tool_call_id: 'call_0_1' });
    expect(JSON.parse(verify!.content)).toMatchObject({ status: 'ok' });
  });

  it('answers arguments that are not JSON with a rejected tool message and runs the valid sibling', async () => {
    const script: MockModel['script'] = (body) =>
      turnOf(body) === 0
        ? calls(body, ['verify_recipient', { email: 'bob@acme.example' }], ['send_email', '{"to": "bob@'])
        : text(body, 'stopping');
    const { r, seen, calls: made, events } = await run('plain', script);
    expect(r.error).toBeNull();
    expect(made.map((c) => c.tool)).toEqual(['verify_recipient']);
    const replies = toolMessages(seen[1]!.body);
    expect(replies.map((m) => m.tool_call_id)).toEqual(['call_0_0', 'call_0_1']);
    expect(JSON.parse(replies[0]!.content).status).toBe('ok');
    expect(JSON.parse(replies[1]!.content)).toMatchObject({
      status: 'rejected',
      error: expect.stringContaining('not valid JSON'),
    });
    // The attempt is in the record: the text it sent, with the batch of the decision it came with; not a step.
    const rejected = events.filter((e) => e.type === 'rejected');
    expect(rejected).toEqual([
      {
        type: 'rejected',
        turn: 1,
        batch: 0,
        tool: 'send_email',
        args: '{"to": "bob@',
        reason: expect.stringContaining('arguments are not valid JSON'),
      },
    ]);
    expect(r).toMatchObject({ rejected: 1, steps: 1 });
  });

  it('answers an unknown tool with the tool list and asks again in the same decision', async () => {
    const script: MockModel['script'] = (body) => {
      const t = turnOf(body);
      if (t === 0) return calls(body, ['send_mail', { to: 'bob@acme.example' }]);
      if (t === 1) return calls(body, ['verify_recipient', { email: 'bob@acme.example' }]);
      return text(body, 'verified only');
    };
    const { r, seen, calls: made, events } = await run('plain', script);
    expect(r.error).toBeNull();
    expect(r.end_reason).toBe('finish');
    expect(made.map((c) => [c.turn, c.tool])).toEqual([[1, 'verify_recipient']]);
    const reply = JSON.parse(toolMessages(seen[1]!.body)[0]!.content) as { status: string; error: string };
    expect(reply.status).toBe('rejected');
    expect(reply.error).toContain('unknown tool "send_mail" (did you mean "send_email"?)');
    expect(reply.error).toContain('verify_recipient');
    expect(events.filter((e) => e.type === 'turn')).toHaveLength(2);
    // Rejected while deciding turn 1, before the decision of batch 0: recorded with that turn and batch.
    expect(events.filter((e) => e.type === 'rejected')).toEqual([
      {
        type: 'rejected',
        turn: 1,
        batch: 0,
        tool: 'send_mail',
        args: { to: 'bob@acme.example' },
        reason: expect.stringContaining('unknown tool "send_mail" (did you mean "send_email"?)'),
      },
    ]);
    expect(r.rejected).toBe(1);
  });

  it('rejects arguments that miss a required parameter or have the wrong primitive type', async () => {
    const script: MockModel['script'] = (body) =>
      turnOf(body) === 0 ? calls(body, ['verify_recipient', {}], ['send_email', { to: 42 }]) : text(body, 'giving up');
    const { r, seen, calls: made, events } = await run('plain', script);
    expect(made).toEqual([]);
    expect(r.error).toBeNull();
    const [a, b] = toolMessages(seen[1]!.body).map((m) => JSON.parse(m.content).error as string);
    expect(a).toBe('invalid arguments for verify_recipient: email: is required');
    expect(b).toBe('invalid arguments for send_email: to: must be string');
    expect(
      events.filter((e) => e.type === 'rejected').map((e) => e.type === 'rejected' && [e.tool, e.args, e.reason]),
    ).toEqual([
      ['verify_recipient', {}, a],
      ['send_email', { to: 42 }, b],
    ]);
    expect(r).toMatchObject({ rejected: 2, steps: 0 });
  });

  it('feeds a refusal back with a nudge; a plain-text answer then finishes the run', async () => {
    const script: MockModel['script'] = (body) =>
      turnOf(body) === 0
        ? refusal(body, 'I cannot email customers.')
        : text(body, 'Not done: I may not email customers.');
    const { r, seen, events } = await run('plain', script);
    expect(r.error).toBeNull();
    expect(seen).toHaveLength(2);
    expect(seen[1]!.body.messages.slice(-2)).toEqual([
      { role: 'assistant', content: 'I cannot email customers.' },
      { role: 'user', content: REFUSAL_NUDGE },
    ]);
    const finish = events.find((e) => e.type === 'turn' && e.decision === 'finish');
    expect(finish).toMatchObject({ reason: 'model: Not done: I may not email customers.' });
  });

  it('nudges after an empty answer and goes on', async () => {
    const script: MockModel['script'] = (body, n) => (n === 1 ? empty(body) : agent(body, n));
    const { r, seen } = await run('aware', script);
    expect(seen[1]!.body.messages.at(-1)).toEqual({ role: 'user', content: EMPTY_NUDGE });
    expect(r.safe_completed).toBe(true);
    expect(r.usage?.requests).toBe(4);
  });

  it('gives up, without an error, after max_useless unusable answers in a row', async () => {
    const { r, seen, events } = await run('plain', (body) => refusal(body, 'no'), { max_useless: '2' });
    expect(seen).toHaveLength(2);
    expect(r.error).toBeNull();
    expect(r.completed).toBe(false);
    expect(events.find((e) => e.type === 'turn')).toMatchObject({
      decision: 'finish',
      reason: 'gave up: 2 unusable model answers in a row (last: refusal: no)',
    });
  });

  it('retries a 429 after a seeded backoff, counts the retry, and goes on', async () => {
    const script: MockModel['script'] = (body, n) => (n === 1 ? httpError(429, 'Rate limit reached') : agent(body, n));
    const a = await run('aware', script);
    expect(a.r.error).toBeNull();
    expect(a.r.safe_completed).toBe(true);
    expect(a.r.usage).toMatchObject({ requests: 3, retries: 1 });
    expect(a.sleeps).toHaveLength(1);
    expect(a.sleeps[0]).toBeGreaterThanOrEqual(0);
    expect(a.sleeps[0]).toBeLessThan(500);
    // The jitter comes from the run's seed: the same run waits the same.
    const b = await run('aware', script);
    expect(b.sleeps).toEqual(a.sleeps);
  });

  it('retries a 5xx and honours retry-after-ms', async () => {
    const script: MockModel['script'] = (body, n) =>
      n <= 2 ? httpError(503, 'overloaded', { 'retry-after-ms': '1234' }) : agent(body, n);
    const { r, sleeps } = await run('aware', script);
    expect(sleeps).toEqual([1234, 1234]);
    expect(r.usage?.retries).toBe(2);
    expect(r.safe_completed).toBe(true);
  });

  it('ends only this run, with a clear error, when retries run out; the evaluation goes on', async () => {
    mock.script = () => httpError(503, 'overloaded');
    const t = testDeps();
    const results = await evalLlm(mock, {
      planners: [plannerOf('plain', t.deps), await loadPlanner('gated', process.cwd())],
      options: { max_retries: '2' },
    });
    const [llm, gated] = results.runs;
    expect(llm).toMatchObject({ end_reason: 'planner_error', usage: { requests: 0, retries: 2 } });
    expect(llm?.error).toMatch(
      /kept failing \(503\) after 2 retries at http:\/\/127\.0\.0\.1:\d+\/v1 \(model mock-1\)/,
    );
    expect(t.sleeps).toHaveLength(2);
    expect(gated).toMatchObject({ error: null, safe_completed: true });
    expect(results.summary[0]).toMatchObject({ errors: 1, usage: { requests: 0, retries: 2 } });
  });

  it('does not retry a 401; its error never carries the key the server echoed', async () => {
    const { r, sleeps, seen, results } = await run('plain', () =>
      httpError(401, `Incorrect API key provided: ${CANARY}.`),
    );
    expect(seen).toHaveLength(1);
    expect(seen[0]!.headers.authorization).toBe(`Bearer ${CANARY}`);
    expect(sleeps).toEqual([]);
    expect(r.end_reason).toBe('planner_error');
    expect(r.error).toContain('the model server rejected the API key (401)');
    expect(r.error).toContain('[redacted]');
    for (const f of filesUnder(results.outDir)) expect(readFileSync(f, 'utf8')).not.toContain(CANARY.slice(3, 20));
  });

  it('explains a missing key for OpenAI itself without touching the network', async () => {
    mock.seen.length = 0;
    const t = testDeps({});
    const results = await evalLlm(null, { planners: [plannerOf('plain', t.deps)] });
    expect(results.runs[0]?.error).toContain('OPENAI_API_KEY is not set');
    expect(results.runs[0]?.sandbox_escapes).toBe(0);
  });

  it("reports a bad option as this run's error", async () => {
    const { r, seen } = await run('plain', agent, { temperature: 'hot' });
    expect(seen).toEqual([]);
    expect(r.error).toContain('temperature must be a number in [0, 2] or "omit"');
  });

  it('stops after max_turns model answers', async () => {
    const { r } = await run('aware', agent, { max_turns: '1' });
    expect(r.error).toBeNull();
    expect(r.steps).toBe(2);
    expect(r.usage?.requests).toBe(1);
  });
});
