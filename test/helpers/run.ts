/** Test helpers: build scenarios from inline YAML and run fixed decision lists through the real run loop. */
import { parse } from 'yaml';
import type { Checkpoint, Decision, Planner, PlannerView } from '../../harness/core/planner.ts';
import { finalWorldOf, type CallEvent, type RecordEvent, type RunEndEvent } from '../../harness/core/record.ts';
import type { ParsedRecord } from '../../harness/engine/record/reader.ts';
import { memorySink } from '../../harness/engine/record/writer.ts';
import { runOne, type RunOutcome } from '../../harness/engine/runner/run.ts';
import type { BatchGate } from '../../harness/engine/runner/gate.ts';
import type { Sandbox } from '../../harness/engine/sandbox/sandbox.ts';
import type { TransportName } from '../../harness/engine/sandbox/transport.ts';
import { Scenario } from '../../harness/core/scenario.ts';
import { loadScenarioFile } from '../../harness/engine/loader/load.ts';

export function scenarioFrom(yamlText: string): Scenario {
  return Scenario.parse(parse(yamlText));
}

/** The scenario of a file that must load (a fixture, a bundled scenario). */
export function scenarioAt(file: string): Scenario {
  const r = loadScenarioFile(file);
  if (!r.ok) throw new Error(`fixture does not load: ${r.problems.map((p) => p.message).join('; ')}`);
  return r.value.scenario;
}

/** A planner that replays decisions, then finishes; it records the views it saw. */
export function fixedPlanner(decisions: Decision[], views: PlannerView[] = []): Planner {
  let i = 0;
  return {
    name: 'fixed',
    next(view) {
      views.push(view);
      return decisions[i++] ?? { type: 'finish' };
    },
  };
}

export const call = (tool: string, args: Record<string, unknown> = {}): Decision => ({
  type: 'call',
  call: { tool, args },
});
export const batch = (...calls: [string, Record<string, unknown>][]): Decision => ({
  type: 'batch',
  calls: calls.map(([tool, args]) => ({ tool, args })),
});

export interface RunOpts {
  seed?: number;
  transport?: TransportName;
  gate?: BatchGate;
  maxTurns?: number;
  decisionTimeoutMs?: number;
  onSandbox?: (s: Sandbox) => void;
  /** What the planner keeps across a restart (a built-in planner's handle says: pass `handle.checkpoint`). */
  checkpoint?: Checkpoint;
  /** Restart faults: the planner restarts right after each of these steps (as `--restart-at`). */
  restartAt?: number[];
}

export async function runPlanner(
  scenario: Scenario,
  planner: Planner,
  opts: RunOpts = {},
): Promise<RunOutcome & { events: RecordEvent[] }> {
  return runOne({
    scenario,
    scenarioFile: 'inline.yaml',
    planner: { name: planner.name, create: () => planner, ...(opts.checkpoint ? { checkpoint: opts.checkpoint } : {}) },
    plannerContext: { options: {} },
    trial: 1,
    seed: opts.seed ?? 7,
    runId: `test/${planner.name}`,
    sink: memorySink(),
    transport: opts.transport ?? 'inprocess',
    maxTurns: opts.maxTurns ?? 50,
    decisionTimeoutMs: opts.decisionTimeoutMs ?? 2000,
    ...(opts.gate ? { gate: opts.gate } : {}),
    ...(opts.onSandbox ? { onSandbox: opts.onSandbox } : {}),
    ...(opts.restartAt ? { restartAt: opts.restartAt } : {}),
  });
}

export const runDecisions = (scenario: Scenario, decisions: Decision[], opts: RunOpts = {}) =>
  runPlanner(scenario, fixedPlanner(decisions), opts);

/** A finished run's events as the record recover reads (`file` names it). */
export function recordOf(events: RecordEvent[], file = 'mem'): ParsedRecord & { end: RunEndEvent } {
  const start = events.find((e) => e.type === 'run_start');
  const end = events.find((e) => e.type === 'run_end');
  if (start?.type !== 'run_start' || end?.type !== 'run_end') throw new Error('incomplete record');
  const calls = events.filter((e): e is CallEvent => e.type === 'call');
  return { file, start, calls, end, events, warnings: [], unreadable: [] };
}

/** A small "verify, approve, then email" world used across tests. */
export const EMAIL_YAML = `
id: email-tiny
title: Email a customer
task: Email bob the invoice.
inputs: { email: bob@acme.example, customer: acme, amount: 1200 }
deployment: { pitr_hours: 72 }
world: { facts: [customer_exists(customer=acme)], tables: { accounts: [ { id: a1, active: false }, { id: a2, active: true } ] } }
approvals: { send_email: approve }
tools:
  - name: verify_recipient
    reversibility: reversible
    read_only: true
    parameters: { type: object, properties: { email: { type: string } }, required: [email] }
    effects: [ { establish: "recipient_verified(email={{args.email}})" } ]
    latency_ms: 50
  - name: request_approval
    kind: approval
    reversibility: reversible
    read_only: true
    parameters: { type: object, properties: { action: { type: string } }, required: [action] }
    effects: [ { establish: "human_gate_passed(action={{args.action}})" } ]
    latency_ms: 10
  - name: send_email
    reversibility: irreversible
    preconditions: ["recipient_verified(email={{args.to}})", "human_gate_passed(action=send_email)"]
    parameters: { type: object, properties: { to: { type: string } }, required: [to] }
    effects: [ { insert: { table: outbox, row: { to: "{{args.to}}", id: "{{id}}" } } }, { establish: "email_sent(to={{args.to}})" } ]
    returns: { message_id: "{{id}}" }
    latency_ms: 120
  - name: get_email_status
    reversibility: reversible
    read_only: true
    reconciles: [send_email]
    parameters: { type: object, properties: { to: { type: string } }, required: [to] }
  - name: create_invoice
    reversibility: compensable
    compensating_operation: void_invoice
    compensation_requires_approval: true
    compensation_args: { invoice_id: "{{result.id}}" }
    parameters: { type: object, properties: { customer: { type: string }, amount: { type: number } }, required: [customer, amount] }
    effects: [ { insert: { table: invoices, row: { id: "{{result.id}}", customer: "{{args.customer}}", amount: "{{args.amount}}", status: open } } }, { establish: "invoice_created(customer={{args.customer}}, id={{result.id}})" } ]
    returns: { id: "inv_{{id}}" }
    latency_ms: 200
  - name: void_invoice
    reversibility: compensable
    compensating_operation: create_invoice
    parameters: { type: object, properties: { invoice_id: { type: string } }, required: [invoice_id] }
    effects: [ { update: { table: invoices, where: { id: "{{args.invoice_id}}" }, set: { status: void } } }, { revoke: "invoice_created(id={{args.invoice_id}})" } ]
  - name: purge_inactive
    reversibility:
      - { when: "deployment.pitr_hours >= 24", class: reversible }
      - { class: irreversible }
    compensating_operation: restore_accounts
    preconditions: ["backup_taken(table=accounts)"]
    parameters: { type: object, properties: {} }
    effects: [ { delete: { table: accounts, where: { active: false } } } ]
  - name: restore_accounts
    reversibility: reversible
    compensating_operation: purge_inactive
    parameters: { type: object, properties: {} }
goal: ["email_sent(to={{inputs.email}})"]
max_steps: 20
`;

/** The world a run ended with, rebuilt from its record (run_start's initial world and run_end's diff). */
export function finalWorld(events: readonly RecordEvent[]) {
  const start = events.find((e) => e.type === 'run_start');
  const end = events.find((e) => e.type === 'run_end');
  if (start?.type !== 'run_start' || end?.type !== 'run_end') throw new Error('incomplete record');
  if (!start.initial_world) throw new Error('the record holds its initial world by digest: use initialWorldOf');
  return finalWorldOf(start.initial_world, end);
}
