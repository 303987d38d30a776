import { describe, expect, it } from 'vitest';
import type { Planner, PlannerView } from '../../harness/core/planner.ts';
import { EMAIL_YAML, call, fixedPlanner, runDecisions, runPlanner, scenarioFrom } from '../helpers/run.ts';

const scenario = scenarioFrom(EMAIL_YAML);
const verify = call('verify_recipient', { email: 'bob@acme.example' });

const broken = (next: Planner['next']): Planner => ({ name: 'broken', next });

describe('a run', () => {
  it('ends with the reason and an error when the planner throws, keeping the calls made before', async () => {
    let turn = 0;
    const r = await runPlanner(
      scenario,
      broken(() =>
        ++turn === 1
          ? verify
          : (() => {
              throw new Error('boom');
            })(),
      ),
    );
    expect(r.end_reason).toBe('planner_error');
    expect(r.error).toBe('planner threw: boom');
    expect(r.steps).toBe(1);
    expect(r.events.at(-1)?.type).toBe('run_end');
  });

  it('ends when the planner never decides', async () => {
    const r = await runPlanner(
      scenario,
      broken(() => new Promise(() => {})),
      { decisionTimeoutMs: 50 },
    );
    expect(r.end_reason).toBe('decision_timeout');
    expect(r.error).toMatch(/did not decide within 50 ms/);
  });

  it.each([
    ['null', null, /must be an object/],
    ['a string', 'send it', /must be an object/],
    ['an unknown type', { type: 'parallel' }, /decision.type must be/],
    [
      'args that are not an object',
      { type: 'call', call: { tool: 'send_email', args: [1] } },
      /args must be an object/,
    ],
    ['an empty batch', { type: 'batch', calls: [] }, /non-empty array/],
    ['huge arguments', { type: 'call', call: { tool: 'send_email', args: { to: 'x'.repeat(300_000) } } }, /limit is/],
  ])('ends with invalid_decision on %s', async (_name, decision, message) => {
    const r = await runPlanner(
      scenario,
      broken(() => decision as never),
    );
    expect(r.end_reason).toBe('invalid_decision');
    expect(r.error).toMatch(message);
    expect(r.steps).toBe(0);
  });

  it('stops a planner that loops within its turn budget', async () => {
    const r = await runPlanner(
      scenario,
      broken(() => ({ type: 'batch', calls: [] }) as never),
      {},
    );
    expect(r.end_reason).toBe('invalid_decision');
    const looping = await runPlanner(
      scenario,
      broken(() => verify),
      { maxTurns: 5 },
    );
    // max_steps (20) is not reached in 5 turns of one call each: the turn budget ends it.
    expect(looping.end_reason).toBe('max_turns');
    expect(looping.steps).toBe(5);
  });

  it('stops before a batch that would exceed max_steps', async () => {
    const r = await runPlanner(
      scenario,
      broken(() => verify),
      { maxTurns: 100 },
    );
    expect(r.end_reason).toBe('max_steps');
    expect(r.steps).toBe(20);
    // Running out of budget is the end reason, not an error.
    expect(r.error).toBeNull();
  });

  it('never shows the planner the facts the run established', async () => {
    const views: PlannerView[] = [];
    await runPlanner(scenario, fixedPlanner([verify, call('send_email', { to: 'bob@acme.example' })], views));
    const last = views.at(-1) as PlannerView;
    expect(last.initial_facts).toEqual(['customer_exists(customer=acme)']);
    expect(JSON.stringify(last)).not.toContain('recipient_verified(email=bob');
    expect(last.history.map((h) => h.observations.map((o) => o.status))).toEqual([['ok'], ['ok']]);
    expect(last.goal).toEqual(['email_sent(to=bob@acme.example)']);
    expect(last.tools.find((t) => t.name === 'send_email')?.preconditions).toEqual([
      'recipient_verified(email={{args.to}})',
      'human_gate_passed(action=send_email)',
    ]);
  });

  it('shows a failed call as an error without saying whether it applied', async () => {
    const faulty = scenarioFrom(
      EMAIL_YAML.replace(
        '    latency_ms: 120',
        '    latency_ms: 120\n    faults: [ { on_call: 1, status: 504, applied: true } ]',
      ),
    );
    const views: PlannerView[] = [];
    await runPlanner(faulty, fixedPlanner([call('send_email', { to: 'bob@acme.example' })], views));
    const obs = views.at(-1)?.history[0]?.observations[0];
    expect(obs).toEqual({
      step: 1,
      tool: 'send_email',
      args: { to: 'bob@acme.example' },
      status: 'error',
      http_status: 504,
      error: 'gateway timeout',
    });
  });

  it('answers approval tools from the scripted human, who may say no first', async () => {
    const s = scenarioFrom(
      EMAIL_YAML.replace('approvals: { send_email: approve }', 'approvals: { send_email: { approve_after: 2 } }'),
    );
    const ask = call('request_approval', { action: 'send_email' });
    const r = await runDecisions(s, [ask, ask, ask, call('request_approval', { action: 'unlisted' })]);
    const answers = r.events.flatMap((e) => (e.type === 'call' ? [e.approved] : []));
    expect(answers).toEqual([false, false, true, false]);
  });

  it('gives the same record for the same seed and different ids for another', async () => {
    const d = [call('create_invoice', { customer: 'acme', amount: 1 })];
    const a = await runDecisions(scenario, d, { seed: 11 });
    const b = await runDecisions(scenario, d, { seed: 11 });
    const c = await runDecisions(scenario, d, { seed: 12 });
    expect(a.events).toEqual(b.events);
    expect(JSON.stringify(a.events)).not.toEqual(JSON.stringify(c.events));
  });
});
