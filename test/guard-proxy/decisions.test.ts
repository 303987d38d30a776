/**
 * The guard's decision rules in front of a server that answers as real servers do: a failure with
 * no status is ambiguous unless declared definite, a reply that breaks the framing ends its call at
 * once, a repeat after an ambiguous failure waits for a reconciler whatever its key or its extra
 * arguments, a repeat after a success is a duplicate held for approval, and who approves is the
 * policy's. Where evaluation can make the same calls, `eval --guard` decides the same.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { main as guardMain } from '../../harness/cli/guard.ts';
import { main as recover } from '../../harness/cli/recover.ts';
import type { Call, Decision } from '../../harness/core/planner.ts';
import type { CallEvent } from '../../harness/core/record.ts';
import { createGuard } from '../../harness/engine/guard/guard.ts';
import { DEFAULT_POLICY, type Policy } from '../../harness/engine/guard/policy.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { runDecisions, scenarioFrom } from '../helpers/run.ts';
import {
  MISBEHAVING_SERVER,
  MISBEHAVING_TOOLS,
  nodeServer,
  outcomes,
  textOf,
  toolsAt,
  whenFile,
  type GuardSetup,
  useGuard,
} from './helpers.ts';

const startGuard = useGuard();

/** The guard in front of the misbehaving server; `hangTimeout`: a call times out after 1 ms while STATE_DIR/hang exists. */
async function misbehaving(setup: Partial<GuardSetup> = {}, opts: { hangTimeout?: boolean; stateTool?: boolean } = {}) {
  const dir = tempDir('oneway-guard-decide-');
  const journal = join(dir, 'journal.jsonl');
  const guard = await startGuard({
    tools: toolsAt(MISBEHAVING_TOOLS),
    target: nodeServer(MISBEHAVING_SERVER, [dir, ...(opts.stateTool ? ['--state-tool'] : [])]),
    journal,
    ...(opts.hangTimeout ? { callTimeoutMs: () => (existsSync(join(dir, 'hang')) ? 1 : 60_000) } : {}),
    ...setup,
  });
  const reached = () =>
    readFileSync(join(dir, 'calls.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { name: string; args: Record<string, unknown> });
  const arrived = (n: number) => whenFile(join(dir, 'calls.jsonl'), () => (reached().length >= n ? true : undefined));
  return { dir, journal, client: guard.client, reached, arrived };
}

/** The same tools in evaluation, where the first charge and the first pay fail with a 503 after they applied. */
const EVALUATED = scenarioFrom(`
id: real-503
title: A 503 after the charge
task: Charge acme.
tools:
  - name: charge
    reversibility: irreversible
    parameters: { type: object, properties: { to: { type: string }, amount: { type: number } }, required: [to, amount] }
    faults: [ { on_call: 1, status: 503, applied: true, message: "503 Service Unavailable: upstream timed out" } ]
  - name: pay
    reversibility: irreversible
    idempotency_key: key
    parameters: { type: object, properties: { to: { type: string }, amount: { type: number }, key: { type: string } }, required: [to, amount] }
    faults: [ { on_call: 1, status: 503, applied: true, message: "503 Service Unavailable: upstream timed out" } ]
goal: ["charged()"]
max_steps: 10
`);

/** Each call's verdict through eval --guard: pass, or the start of the refusal's reason. */
async function evalVerdicts(calls: Call[], policy: Policy = DEFAULT_POLICY): Promise<string[]> {
  const decisions: Decision[] = calls.map((call) => ({ type: 'call', call }));
  const r = await runDecisions(EVALUATED, decisions, { gate: createGuard(policy) });
  return r.events
    .filter((e): e is CallEvent => e.type === 'call')
    .map((c) => (c.status === 'blocked' ? ((c.blocked_reason ?? '').split(':')[0] ?? '') : c.status));
}

describe("oneway guard's decisions on what real servers send", () => {
  it('takes a tool error with no status (a real 503) as ambiguous: no blind repeat, no fresh key, uncertain in recover, as eval --guard', async () => {
    const { dir, journal, client, reached } = await misbehaving();
    writeFileSync(join(dir, 'fail503'), '');
    const charge = { to: 'acme', amount: 50 };
    const failed = await client.callTool({ name: 'charge', arguments: charge });
    expect(textOf(failed)).toBe('503 Service Unavailable: upstream timed out');
    expect(failed._meta).toMatchObject({ 'oneway/ambiguous': true });
    const paid = await client.callTool({ name: 'pay', arguments: { to: 'acme', amount: 50 } });
    expect(paid._meta).toMatchObject({ 'oneway/ambiguous': true });
    rmSync(join(dir, 'fail503'));

    const blind = await client.callTool({ name: 'charge', arguments: charge });
    expect(textOf(blind)).toMatch(
      /^refused by oneway guard: unreconciled retry: the same call failed ambiguously at step 1/,
    );
    // The guard fills the failed call's own key, and the client may bring a fresh one: neither is a reconciliation.
    const sameKey = await client.callTool({ name: 'pay', arguments: { to: 'acme', amount: 50 } });
    const freshKey = await client.callTool({ name: 'pay', arguments: { to: 'acme', amount: 50, key: 'k-2' } });
    for (const r of [sameKey, freshKey]) expect(textOf(r)).toMatch(/^refused by oneway guard: unreconciled retry/);
    expect(reached().map((c) => c.name)).toEqual(['charge', 'pay']);
    expect(outcomes(journal).map((c) => [c.tool, c.status, c.ambiguous, c.http_status])).toEqual([
      ['charge', 'fault', true, null],
      ['pay', 'fault', true, null],
      ['charge', 'blocked', false, null],
      ['pay', 'blocked', false, null],
      ['pay', 'blocked', false, null],
    ]);

    const checklist = await runCli(recover, [journal], process.cwd(), { NO_COLOR: '1', COLUMNS: '1000' });
    expect(checklist.stdout).toContain('2 uncertain');
    expect(checklist.stdout).toContain('UNCERTAIN: may have happened: reconcile first (check with charge_status)');

    // The same calls in evaluation: the same decisions.
    expect(
      await evalVerdicts([
        { tool: 'charge', args: charge },
        { tool: 'pay', args: { to: 'acme', amount: 50 } },
        { tool: 'charge', args: charge },
        { tool: 'pay', args: { to: 'acme', amount: 50 } },
        { tool: 'pay', args: { to: 'acme', amount: 50, key: 'k-2' } },
      ]),
    ).toEqual(['fault', 'fault', 'unreconciled retry', 'unreconciled retry', 'unreconciled retry']);
  });

  it('takes a failure the tool declares definite as definite: the repeat goes through', async () => {
    const tools = toolsAt(MISBEHAVING_TOOLS);
    const charge = tools.tools.find((t) => t.name === 'charge');
    if (!charge) throw new Error('no charge tool');
    charge.definite_failures = { errors: ['^503 Service Unavailable'] };
    const { dir, journal, client } = await misbehaving({ tools });
    writeFileSync(join(dir, 'fail503'), '');
    await client.callTool({ name: 'charge', arguments: { to: 'acme', amount: 50 } });
    rmSync(join(dir, 'fail503'));
    const again = await client.callTool({ name: 'charge', arguments: { to: 'acme', amount: 50 } });
    expect(again.isError).toBeFalsy();
    expect(outcomes(journal).map((c) => [c.status, c.ambiguous])).toEqual([
      ['fault', false],
      ['ok', false],
    ]);
  });

  it('ends a call whose reply breaks the JSON-RPC framing at once, journaled as ambiguous, and the session goes on', async () => {
    // The default call timeout (60 s): the broken call must end long before it.
    const { journal, client } = await misbehaving();
    const broken = await client.callTool({ name: 'broken', arguments: {} });
    expect(textOf(broken)).toMatch(/^broken failed: the server sent a reply that breaks the JSON-RPC framing/);
    // A gated call afterwards is alone: nothing of the broken call is left in flight.
    const charged = await client.callTool({ name: 'charge', arguments: { to: 'acme', amount: 5 } });
    expect(charged.isError).toBeFalsy();
    expect(outcomes(journal).map((c) => [c.tool, c.status, c.ambiguous])).toEqual([
      ['broken', 'fault', true],
      ['charge', 'ok', false],
    ]);
  });

  it('refuses a repeat of an ambiguous payout that adds an argument outside dedupe_on', async () => {
    const { dir, client, arrived } = await misbehaving({ callTimeoutMs: () => 1 });
    writeFileSync(join(dir, 'hang'), '');
    await client.callTool({ name: 'payout', arguments: { to: 'initech', amount: 900 } });
    await arrived(1);
    rmSync(join(dir, 'hang'));
    const memo = await client.callTool({ name: 'payout', arguments: { to: 'initech', amount: 900, memo: 'again' } });
    expect(textOf(memo)).toMatch(/^refused by oneway guard: unreconciled retry: the same call failed ambiguously/);
  });
});

describe('a reconciler that says how its reply answers', () => {
  /** The misbehaving server's tools, and its status tool that answers with a status, not applied: true. */
  function withChargeState(): GuardSetup['tools'] {
    const file = join(tempDir('oneway-guard-tools-'), 'tools.yaml');
    writeFileSync(
      file,
      `${readFileSync(MISBEHAVING_TOOLS, 'utf8')}
  - name: charge_state
    reversibility: reversible
    read_only: true
    reconciles: [{ tool: charge, applied: "{{result.status}} == succeeded" }]
    parameters: { type: object, properties: { to: { type: string } }, required: [to] }
`,
    );
    return toolsAt(file);
  }

  it('settles an ambiguous charge by its condition, and a reply it cannot read settles nothing, as the refusal says', async () => {
    const { dir, journal, client, arrived } = await misbehaving(
      { tools: withChargeState() },
      { hangTimeout: true, stateTool: true },
    );
    writeFileSync(join(dir, 'hang'), '');
    await client.callTool({ name: 'charge', arguments: { to: 'acme', amount: 50 } });
    await arrived(1);
    rmSync(join(dir, 'hang'));

    writeFileSync(join(dir, 'vague'), '');
    const vague = await client.callTool({ name: 'charge_state', arguments: { to: 'acme' } });
    expect(vague.structuredContent).toEqual({ message: 'try again later' });
    const refused = await client.callTool({ name: 'charge', arguments: { to: 'acme', amount: 50 } });
    expect(textOf(refused)).toMatch(/^refused by oneway guard: unreconciled retry/);
    expect(textOf(refused)).toContain(
      'charge_state answered at step 2, but its reply has no status ({{result.status}} == succeeded): it settles nothing',
    );
    rmSync(join(dir, 'vague'));

    const state = await client.callTool({ name: 'charge_state', arguments: { to: 'acme' } });
    expect(state.structuredContent).toEqual({ status: 'succeeded' });
    // It applied: the repeat is now a second charge, which nobody approved.
    const again = await client.callTool({ name: 'charge', arguments: { to: 'acme', amount: 50 } });
    expect(textOf(again)).toMatch(/^refused by oneway guard: duplicate: the same call applied at step 1/);
    const calls = outcomes(journal);
    expect(calls.map((c) => [c.tool, c.status, c.reconciled?.calls ?? null])).toEqual([
      ['charge', 'fault', null],
      ['charge_state', 'ok', null],
      ['charge', 'blocked', null],
      ['charge_state', 'ok', [{ tool: 'charge', step: 1, applied: true }]],
      ['charge', 'blocked', null],
    ]);
  });
});

describe('a repeat after a success, and who approves', () => {
  it('holds a duplicate of a call that applied for approval, and tells the approver it repeats that step', async () => {
    const dir = tempDir('oneway-guard-approve-');
    const seen = join(dir, 'asked.json');
    const { journal, client } = await misbehaving({ approveCmd: `cat > ${seen}` });
    const first = await client.callTool({ name: 'charge', arguments: { to: 'acme', amount: 5 } });
    expect(first.isError).toBeFalsy();
    const second = await client.callTool({ name: 'charge', arguments: { to: 'acme', amount: 5 } });
    expect(second.isError).toBeFalsy();
    expect(JSON.parse(readFileSync(seen, 'utf8'))).toMatchObject({ tool: 'charge', repeats: 1 });
    expect(outcomes(journal).map((c) => [c.status, c.approved_by])).toEqual([
      ['ok', 'policy'],
      ['ok', 'cmd'],
    ]);
  });

  it('with --approve-cmd, the command approves: a client that declares elicitation and accepts is not asked', async () => {
    const asked: string[] = [];
    const { journal, client } = await misbehaving({
      approveCmd: 'false',
      policy: { ...DEFAULT_POLICY, irreversible: 'approval' },
      clientOptions: { capabilities: { elicitation: { form: {} } } },
    });
    client.setRequestHandler(ElicitRequestSchema, (req) => {
      asked.push(req.params.message);
      return { action: 'accept', content: {} };
    });
    const r = await client.callTool({ name: 'charge', arguments: { to: 'acme', amount: 5 } });
    expect(textOf(r)).toMatch(/^refused by oneway guard: approval for charge was denied \(--approve-cmd exited 1\)/);
    expect(asked).toEqual([]);
    expect(outcomes(journal).map((c) => c.status)).toEqual(['blocked']);
  });

  it('refuses to start with approver: cmd and no --approve-cmd: every held call would be refused', async () => {
    const dir = tempDir('oneway-guard-approver-');
    const policy = join(dir, 'policy.yaml');
    writeFileSync(policy, 'irreversible: approval\napprover: cmd\n');
    const r = await runCli(guardMain, [`--tools=${MISBEHAVING_TOOLS}`, `--policy=${policy}`, '--', 'true'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('says approver: cmd, and no --approve-cmd is given');
  });

  it('asks the client first when the policy names it approver, and journals who approved', async () => {
    const asked: string[] = [];
    const { journal, client } = await misbehaving({
      approveCmd: 'false',
      policy: { ...DEFAULT_POLICY, approver: 'client' },
      clientOptions: { capabilities: { elicitation: { form: {} } } },
    });
    client.setRequestHandler(ElicitRequestSchema, (req) => {
      asked.push(req.params.message);
      return { action: 'accept', content: {} };
    });
    await client.callTool({ name: 'charge', arguments: { to: 'acme', amount: 5 } });
    const again = await client.callTool({ name: 'charge', arguments: { to: 'acme', amount: 5 } });
    expect(again.isError).toBeFalsy();
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('This repeats step 1, the same call, which applied');
    expect(outcomes(journal).map((c) => c.approved_by)).toEqual(['policy', 'client']);
  });
});
