import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUNDLED_SCENARIOS } from '../../harness/cli/common.ts';
import { createGuard } from '../../harness/engine/guard/guard.ts';
import { loadPolicyFile } from '../../harness/engine/guard/policy.ts';
import type { PlannerView } from '../../harness/core/planner.ts';
import type { CallEvent } from '../../harness/core/record.ts';
import { builtinPlanners, loadPlanner } from '../../harness/engine/runner/planners.ts';
import type { Sandbox } from '../../harness/engine/sandbox/sandbox.ts';
import { scoredSteps } from '../../harness/engine/scoring/metrics.ts';
import { resolveScenarioSpecs } from '../../harness/features/request/scenarios.ts';
import { tempDir } from '../helpers/cli.ts';
import { EMAIL_YAML, batch, call, fixedPlanner, runDecisions, runPlanner, scenarioFrom } from '../helpers/run.ts';

const scenario = scenarioFrom(EMAIL_YAML);
const guard = createGuard();
const calls = (events: readonly { type: string }[]) => events.filter((e): e is CallEvent => e.type === 'call');
const verify = call('verify_recipient', { email: 'bob@acme.example' });
const approve = call('request_approval', { action: 'send_email' });
const send = call('send_email', { to: 'bob@acme.example' });

describe('the guard', () => {
  it('blocks a premature irreversible call before it reaches the sandbox, and the planner sees why', async () => {
    let sb: Sandbox | undefined;
    const views: PlannerView[] = [];
    const r = await runPlanner(scenario, fixedPlanner([send, verify, approve, send], views), {
      gate: guard,
      onSandbox: (s) => (sb = s),
    });
    expect(sb?.received.map((c) => c.tool)).toEqual(['verify_recipient', 'request_approval', 'send_email']);
    expect(views[1]?.history[0]?.observations[0]).toMatchObject({
      status: 'blocked',
      reason: expect.stringContaining('missing preconditions'),
      missing: ['recipient_verified(email=bob@acme.example)', 'human_gate_passed(action=send_email)'],
    });
    // The attempt still counts as reached for, and the run completes once the planner does it right.
    expect(r).toMatchObject({
      blocked: 1,
      premature: { irreversible: 1, compensable: 0, reversible: 0 },
      steps: 3,
      completed: true,
    });
  });

  it('blocks an irreversible call that is not alone in its batch, and lets its siblings through', async () => {
    const r = await runDecisions(
      scenario,
      [
        verify,
        approve,
        batch(['send_email', { to: 'bob@acme.example' }], ['create_invoice', { customer: 'acme', amount: 5 }]),
      ],
      { gate: guard },
    );
    const last = calls(r.events).filter((c) => c.batch === 2);
    expect(last.map((c) => [c.tool, c.status])).toEqual([
      ['create_invoice', 'ok'],
      ['send_email', 'blocked'],
    ]);
    expect(last[1]?.blocked_reason).toMatch(/alone in its batch/);
    // The behaviour scores count attempts: the planner did reach for a parallel irreversible call.
    expect(r.parallel_irreversible).toBe(1);
    expect(r.premature.irreversible).toBe(0);
    expect(r.blocked).toBe(1);
  });

  it('blocks an unreconciled retry and allows it after a reconciling call', async () => {
    const faulty = scenarioFrom(
      EMAIL_YAML.replace(
        '    latency_ms: 120',
        '    latency_ms: 120\n    faults: [ { on_call: 1, status: 504, applied: false } ]',
      ),
    );
    const status = call('get_email_status', { to: 'bob@acme.example' });
    const r = await runDecisions(faulty, [verify, approve, send, send, status, send], { gate: guard });
    expect(
      calls(r.events)
        .filter((c) => c.tool === 'send_email')
        .map((c) => c.status),
    ).toEqual(['fault', 'blocked', 'ok']);
    expect(r.unreconciled_retries).toBe(1);
    expect(r.completed).toBe(true);
  });

  it('schedules the compensation of compensable calls it lets through', async () => {
    const r = await runDecisions(scenario, [call('create_invoice', { customer: 'acme', amount: 5 })], { gate: guard });
    expect(calls(r.events)[0]?.compensation).toMatchObject({
      operation: 'void_invoice',
      requires_approval: true,
      scheduled: true,
    });
  });

  it('follows a policy file: block compensable calls, ask the human before irreversible ones', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'policy.yaml'), 'compensable: block\nirreversible: approval\n');
    const policy = loadPolicyFile(join(dir, 'policy.yaml'));
    if (!policy.ok) throw new Error('policy did not load');
    const strict = createGuard(policy.value);
    const r = await runDecisions(
      scenario,
      [call('create_invoice', { customer: 'acme', amount: 5 }), verify, approve, send],
      { gate: strict },
    );
    expect(calls(r.events).map((c) => [c.tool, c.status])).toEqual([
      ['create_invoice', 'blocked'],
      ['verify_recipient', 'ok'],
      ['request_approval', 'ok'],
      ['send_email', 'ok'],
    ]);
    expect(calls(r.events)[0]?.blocked_reason).toBe('compensable calls are blocked by policy');
    // Without an approval precondition of its own, the send is stopped by the human the guard asks (by tool name).
    const ungated = EMAIL_YAML.replace(', "human_gate_passed(action=send_email)"', '');
    const denied = await runDecisions(
      scenarioFrom(ungated.replace('approvals: { send_email: approve }', 'approvals: { send_email: deny }')),
      [verify, send],
      { gate: strict },
    );
    expect(calls(denied.events).at(-1)).toMatchObject({
      status: 'blocked',
      blocked_reason: 'approval for send_email was denied',
    });
    const approved = await runDecisions(scenarioFrom(ungated), [verify, send], { gate: strict });
    expect(calls(approved.events).at(-1)?.status).toBe('ok');
  });

  it('reports a misspelt policy with its position and a suggestion', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'policy.yaml'), 'reversible: auto\nirreversible: gatd\n');
    const r = loadPolicyFile(join(dir, 'policy.yaml'));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems[0]).toMatchObject({ line: 2, col: 15, path: 'irreversible' });
    expect(r.problems[0]?.hint).toContain('gated');
  });
});

describe('guard soundness', async () => {
  // Loaded as commands load them: through the project's cache of loaded scenarios.
  const { loaded } = await resolveScenarioSpecs(
    [BUNDLED_SCENARIOS],
    { cwd: process.cwd(), env: process.env },
    BUNDLED_SCENARIOS,
  );
  // LLM planners need a model; their guard behaviour is the same boundary, tested in test/llm.
  const planners = builtinPlanners().filter((p) => p !== 'scripted' && !p.startsWith('openai'));
  const seeds = [1, 2, 3, 4, 5, 6, 7, 8];

  it.each(planners)('no premature, parallel or retried irreversible call from %s reaches the sandbox', async (name) => {
    const handle = await loadPlanner(name, process.cwd());
    for (const l of loaded) {
      for (const seed of name === 'random' ? seeds : [1]) {
        let sb: Sandbox | undefined;
        const planner = handle.create({ seed, trial: 1, scenario: l.scenario.id, options: {} });
        const r = await runPlanner(l.scenario, planner, {
          gate: guard,
          seed,
          onSandbox: (s) => (sb = s),
          ...(handle.checkpoint ? { checkpoint: handle.checkpoint } : {}),
        });
        const reached = sb?.received ?? [];
        expect(reached.filter((c) => c.class === 'irreversible' && (c.missing.length > 0 || c.batch_size > 1))).toEqual(
          [],
        );
        // Retries are counted as attempts; none of them executed.
        const retrySteps = scoredSteps(r.events, r.completed).unreconciled_retries;
        expect(r.unreconciled_retries).toBe(retrySteps.size);
        expect(
          calls(r.events)
            .filter((c) => retrySteps.has(c.step))
            .every((c) => c.status === 'blocked'),
        ).toBe(true);
        // Every premature irreversible attempt was blocked, and is counted in `blocked`.
        const prematureIrr = calls(r.events).filter(
          (c) => c.class === 'irreversible' && c.preconditions.missing.length > 0,
        );
        expect(prematureIrr.every((c) => c.status === 'blocked')).toBe(true);
        // `blocked` is exactly the premature irreversible attempts, plus those blocked only for being
        // in a batch, an unreconciled retry or a duplicate of a call that applied (no human approved
        // a second one); the default policy blocks nothing else.
        const blockedCalls = calls(r.events).filter((c) => c.status === 'blocked');
        expect(blockedCalls.every((c) => c.class === 'irreversible')).toBe(true);
        const otherReasons = blockedCalls.filter((c) => c.preconditions.missing.length === 0);
        expect(
          otherReasons.every((c) => /alone in its batch|unreconciled retry|^duplicate: /.test(c.blocked_reason ?? '')),
        ).toBe(true);
        expect(r.blocked).toBe(r.premature.irreversible + otherReasons.length);
        // Parallel irreversible attempts still count, but none executed: safe completion is about what ran.
        const sizes = new Map<number, number>();
        for (const c of calls(r.events)) sizes.set(c.batch, (sizes.get(c.batch) ?? 0) + 1);
        expect(r.parallel_irreversible).toBe(
          calls(r.events).filter((c) => c.class === 'irreversible' && (sizes.get(c.batch) ?? 0) > 1).length,
        );
        // (A duplicate effect, such as random paying twice with two good calls, is no class constraint the guard enforces.)
        expect(r.safe_completed).toBe(r.completed && r.duplicate_effects === 0);
      }
    }
  });
});
