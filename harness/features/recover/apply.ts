/**
 * `recover --apply`: replay the run in a fresh sandbox (same scenario, same
 * seed, the recorded calls in their batches), check the replay's effects equal
 * the record's, issue the compensations the checklist allows (reversible ones;
 * compensable ones with approval) newest first, and prove the outcome: the
 * world equals its pre-run state, or a diff of what remains, each difference
 * attributed to why it remains.
 */
import { effectFootprint } from '../../core/effects/index.ts';
import type { Result } from '../../core/errors.ts';
import type { AppliedEffect, CallEvent, Row, WorldSnapshot } from '../../core/record.ts';
import type { Approver } from './approver.ts';
import { Sandbox } from '../../engine/sandbox/sandbox.ts';
import { worldDigest } from '../../engine/record/initial-world.ts';
import { inProcessTransport, type Transport } from '../../engine/sandbox/transport.ts';
import type { Scenario } from '../../core/scenario.ts';
import { stableJson } from '../../util/json.ts';
import { buildChecklist, type Checklist, type ChecklistItem } from './checklist.ts';
import { diffWorlds, type WorldChange } from './diff.ts';
import type { ParsedRecord, RecordIssue } from '../../engine/record/reader.ts';

export interface ApplyOptions {
  /** Issue compensations that need approval (compensable effects): the operator has it. */
  approve: boolean;
  /**
   * Undo only the duplicate effects (the second payout, not the first) and prove the world equals
   * the intended state: the world the run would have left had each effect been applied once.
   */
  duplicates?: boolean;
}

/** Why a checklist item's compensation is not issued (undefined: it is issued), the same for the sandbox and a real server. */
export type Skipped<R extends string> = {
  disposition: 'intended' | 'is_compensation' | 'already_compensated' | 'irreversible' | 'unapproved' | R;
  operation?: string;
  args?: Record<string, unknown>;
};

/**
 * Recovery's triage of one checklist item, newest first, for `--apply` in the sandbox and against a
 * real server alike: with `duplicates` only the duplicates are undone; what the run compensated or
 * was itself a compensation is left; an ambiguous failure with no effect gets `reconcile` (the
 * sandbox knows nothing applied, a server's caller must reconcile); no compensation is a response;
 * a compensation that needs approval waits for `approve`.
 */
export function notIssued<R extends string>(
  item: ChecklistItem,
  opts: { approve?: boolean; duplicates?: boolean },
  reconcile: R,
): Skipped<R> | undefined {
  if (opts.duplicates && item.duplicate_of === undefined)
    return { disposition: item.action === 'none' && item.compensates !== undefined ? 'is_compensation' : 'intended' };
  if (item.action === 'none')
    return { disposition: item.compensates !== undefined ? 'is_compensation' : 'already_compensated' };
  if (item.action === 'reconcile') return { disposition: reconcile };
  const comp = item.compensation;
  if (item.action === 'respond' || !comp) return { disposition: 'irreversible' };
  if (item.action === 'compensate_with_approval' && !opts.approve)
    return { disposition: 'unapproved', operation: comp.operation, args: comp.args };
  return undefined;
}

/** What recovery did about one checklist item. */
type Disposition =
  | 'compensated' // the compensation ran and replied ok
  | 'compensation_failed' // it ran and failed
  | 'unapproved' // it needs approval and --approve was not given
  | 'irreversible' // no compensation exists
  | 'already_compensated' // the run itself compensated it
  | 'is_compensation' // the call was itself a compensation in the run
  | 'nothing_applied' // ambiguous failure whose effect did not happen
  | 'intended'; // with --duplicates: an effect the task needed once, kept

export interface CompensationOutcome {
  step: number;
  tool: string;
  class: ChecklistItem['class'];
  disposition: Disposition;
  operation?: string;
  args?: Record<string, unknown>;
  http_status?: number | null;
  error?: string | null;
  /** Preconditions of the compensating tool that did not hold when it was issued. */
  missing?: string[];
  effects?: AppliedEffect[];
}

type Cause = 'irreversible' | 'unapproved' | 'not_restored' | 'compensation_failed' | 'unattributed';

export type Remaining = WorldChange & {
  cause: Cause;
  /** The run's call the difference goes back to. */
  step?: number;
  tool?: string;
  /** The compensating operation involved, for not_restored and compensation_failed. */
  operation?: string;
  explanation: string;
};

export interface ApplyReport {
  /** What the world was brought back to: its pre-run state, or (with --duplicates) the intended state. */
  target: 'pre-run' | 'intended';
  replay: { calls: number; batches: number };
  /** Newest first, one per checklist item. */
  compensations: CompensationOutcome[];
  restored: boolean;
  remaining: Remaining[];
  /** Facts read-only calls established (what they verified): not effects, so not compared. */
  observations: string[];
  /** Tables whose rows are back, in another order. */
  reordered: string[];
  /** Notes for the operator (e.g. a deployment that differs from the scenario file's). */
  notes: string[];
  before: WorldSnapshot;
  after: WorldSnapshot;
}

export type ApplyResult = Result<ApplyReport, { issues: RecordIssue[] }>;

/**
 * Replays a record against its scenario and applies the compensations: the replay's sandbox is
 * checked against the record (`replaySandbox`), the run replayed (`replay`), the checklist's
 * compensations issued newest first (`compensate`), and what differs from the target world
 * attributed to why it remains (`remainder`).
 *
 * @example
 * const r = await applyRecovery(record, loaded.scenario, { approve: false });
 * if (r.ok) process.exitCode = r.value.restored ? 0 : 1;
 */
export async function applyRecovery(
  record: ParsedRecord,
  scenario: Scenario,
  opts: ApplyOptions,
  checklist: Checklist = buildChecklist(record, scenario),
): Promise<ApplyResult> {
  const ready = replaySandbox(record, scenario);
  if (!ready.ok) return ready;
  const { sandbox, deployment, issued, notes, initial } = ready.value;
  const { start } = record;
  const transport = inProcessTransport(sandbox);
  // The issued calls by batch, in record order.
  const batches = new Map<number, CallEvent[]>();
  for (const c of issued) batches.set(c.batch, [...(batches.get(c.batch) ?? []), c]);
  try {
    const replayed = await replay(record, transport, batches);
    if (!replayed.ok) return replayed;
    const { compensations, timeline } = await compensate(checklist, opts, sandbox, transport, issued, replayed.value);
    // The target: the pre-run world, or the world the run would have left with each effect applied once.
    const before = opts.duplicates
      ? await intendedWorld(
          scenario,
          deployment,
          start.seed,
          batches,
          new Set(checklist.items.flatMap((i) => (i.duplicate_of !== undefined ? [i.step] : []))),
        )
      : initial;
    const after = sandbox.world.snapshot();
    const { remaining, observations, reordered } = remainder(before, after, issued, timeline, compensations, checklist);
    return {
      ok: true,
      value: {
        target: opts.duplicates ? 'intended' : 'pre-run',
        replay: { calls: issued.length, batches: batches.size },
        compensations,
        restored: remaining.length === 0,
        remaining,
        observations,
        reordered,
        notes,
        before,
        after,
      },
    };
  } finally {
    transport.close();
  }
}

/** A record that cannot be recovered from as it is, and what to do about it. */
function problem(record: ParsedRecord, message: string, hint?: string, line = 0): ApplyResult & { ok: false } {
  return { ok: false, issues: [{ severity: 'error', file: record.file, line, message, ...(hint ? { hint } : {}) }] };
}

/**
 * A fresh sandbox to replay the record in: the run's scenario, under the run's deployment, with the
 * run's initial world, declaring every tool the run called; else why the scenario file is not the
 * one the run used. Also the calls that reached the sandbox, and notes for the operator.
 */
function replaySandbox(
  record: ParsedRecord,
  scenario: Scenario,
): Result<
  {
    sandbox: Sandbox;
    deployment: Record<string, unknown>;
    issued: CallEvent[];
    notes: string[];
    initial: WorldSnapshot;
  },
  { issues: RecordIssue[] }
> {
  const { start } = record;
  const notes: string[] = [];
  if (scenario.id !== start.scenario) {
    return problem(
      record,
      `the record is a run of "${start.scenario}", but the scenario file is "${scenario.id}"`,
      'pass the scenario the run used with --scenario=FILE',
    );
  }
  // The run's classes and world came from its deployment: replay under the recorded one.
  const deployment = start.deployment ?? scenario.deployment;
  if (stableJson(deployment) !== stableJson(scenario.deployment)) {
    notes.push(
      `the scenario file's deployment differs from the run's; replayed under the run's (${stableJson(deployment)})`,
    );
  }
  const sandbox = new Sandbox({ ...scenario, deployment }, start.seed);
  // A record holds a large initial world by its digest only (harness/engine/record/initial-world.ts).
  const initial = sandbox.initialWorld();
  if (
    start.initial_world
      ? stableJson(initial) !== stableJson(start.initial_world)
      : worldDigest(initial) !== start.initial_world_sha256
  ) {
    return problem(
      record,
      'the scenario file gives another initial world than the run had: it changed since the run',
      'pass the version the run used with --scenario=FILE',
    );
  }
  const issued = record.calls.filter((c) => c.status !== 'blocked');
  const unknown = issued.find((c) => !sandbox.hasTool(c.tool));
  if (unknown)
    return problem(
      record,
      `step ${unknown.step} calls "${unknown.tool}", which the scenario file does not declare`,
      'pass the scenario the run used with --scenario=FILE',
    );
  return { ok: true, value: { sandbox, deployment, issued, notes, initial } };
}

/** Where the replay left off: the last turn, batch and step, after which compensations are numbered. */
interface Cursor {
  turn: number;
  batch: number;
  step: number;
}

/** Replays the recorded batches in order, each call checked against its record; where it left off, or the first mismatch. */
async function replay(
  record: ParsedRecord,
  transport: Transport,
  batches: ReadonlyMap<number, CallEvent[]>,
): Promise<Result<Cursor, { issues: RecordIssue[] }>> {
  const last: Cursor = { turn: 0, batch: -1, step: 0 };
  for (const [batch, calls] of [...batches.entries()].sort((a, b) => a[0] - b[0])) {
    const first = calls[0] as CallEvent;
    const out = await transport.executeBatch({
      turn: first.turn,
      batch,
      firstStep: first.step,
      calls: calls.map((c) => ({ tool: c.tool, args: c.args })),
    });
    for (let i = 0; i < calls.length; i++) {
      const want = calls[i] as CallEvent;
      const got = out.events[i];
      const why = got ? replayMismatch(want, got) : 'no event';
      if (why) {
        return problem(
          record,
          `the replay does not reproduce the record at step ${want.step} (${want.tool}): ${why}`,
          'the scenario file changed since the run, or the run used a guard that asked the human itself; pass the version the run used with --scenario=FILE',
        );
      }
    }
    last.turn = Math.max(last.turn, first.turn);
    last.batch = batch;
    last.step = Math.max(last.step, ...calls.map((c) => c.step));
  }
  return { ok: true, value: last };
}

/** A run's effects in order, then each compensation's (attributed to the call it compensates). */
type Timeline = { effects: AppliedEffect[]; step: number; tool: string; compensation?: string }[];

/**
 * Issues the checklist's compensations, newest first, each as a batch of its own after the replay
 * (`from`), unless `notIssued` says why not; what became of each item, and the timeline of effects.
 */
async function compensate(
  checklist: Checklist,
  opts: ApplyOptions,
  sandbox: Sandbox,
  transport: Transport,
  issued: readonly CallEvent[],
  from: Cursor,
): Promise<{ compensations: CompensationOutcome[]; timeline: Timeline }> {
  const last = { ...from };
  const compensations: CompensationOutcome[] = [];
  const timeline: Timeline = issued.map((c) => ({ effects: c.effects, step: c.step, tool: c.tool }));
  for (const item of checklist.items) {
    const base = { step: item.step, tool: item.tool, class: item.class };
    const comp = item.compensation;
    const skip = notIssued(item, opts, 'nothing_applied');
    if (skip) {
      compensations.push({ ...base, ...skip });
      continue;
    }
    if (!comp) continue; // notIssued skips an item without a compensation
    if (!sandbox.hasTool(comp.operation)) {
      compensations.push({
        ...base,
        disposition: 'compensation_failed',
        operation: comp.operation,
        args: comp.args,
        error: `the scenario declares no tool "${comp.operation}"`,
      });
      continue;
    }
    last.turn++;
    last.batch++;
    last.step++;
    const out = await transport.executeBatch({
      turn: last.turn,
      batch: last.batch,
      firstStep: last.step,
      calls: [{ tool: comp.operation, args: comp.args }],
    });
    const ev = out.events[0] as CallEvent;
    timeline.push({ effects: ev.effects, step: item.step, tool: item.tool, compensation: comp.operation });
    compensations.push({
      ...base,
      disposition: ev.status === 'ok' ? 'compensated' : 'compensation_failed',
      operation: comp.operation,
      args: comp.args,
      http_status: ev.http_status,
      error: ev.error,
      missing: ev.preconditions.missing,
      effects: ev.effects,
    });
  }
  return { compensations, timeline };
}

/**
 * What differs between the target world and the world after recovery: facts read-only calls
 * verified (observations, not effects), and every other difference attributed to why it remains.
 */
function remainder(
  before: WorldSnapshot,
  after: WorldSnapshot,
  issued: readonly CallEvent[],
  timeline: Timeline,
  compensations: readonly CompensationOutcome[],
  checklist: Checklist,
): { remaining: Remaining[]; observations: string[]; reordered: string[] } {
  const diff = diffWorlds(before, after);
  const observed = observationFacts(issued);
  const observations: string[] = [];
  const remaining: Remaining[] = [];
  const byStep = new Map(compensations.map((c) => [c.step, c]));
  for (const change of diff.changes) {
    if (
      change.where === 'fact' &&
      change.change === 'added' &&
      observed.has(change.fact) &&
      !producedBy(
        change,
        timeline.filter((t) => !isReadOnly(t.step, issued)),
      )
    ) {
      observations.push(change.fact);
      continue;
    }
    remaining.push(attribute(change, timeline, byStep, checklist));
  }
  return { remaining, observations, reordered: diff.reordered };
}

/**
 * The world the run would have left had each duplicate effect not been applied: the record replayed
 * in another fresh sandbox, the duplicate calls' effects suppressed (they still draw their ids and
 * faults, so every other call gets what it got in the run).
 */
async function intendedWorld(
  scenario: Scenario,
  deployment: Record<string, unknown>,
  seed: number,
  batches: ReadonlyMap<number, CallEvent[]>,
  duplicates: ReadonlySet<number>,
): Promise<WorldSnapshot> {
  const sandbox = new Sandbox({ ...scenario, deployment }, seed, { suppressEffects: duplicates });
  const transport = inProcessTransport(sandbox);
  try {
    for (const [batch, calls] of [...batches.entries()].sort((a, b) => a[0] - b[0])) {
      const first = calls[0] as CallEvent;
      await transport.executeBatch({
        turn: first.turn,
        batch,
        firstStep: first.step,
        calls: calls.map((c) => ({ tool: c.tool, args: c.args })),
      });
    }
    return sandbox.world.snapshot();
  } finally {
    transport.close();
  }
}

function approverShort(a: Approver | undefined): string {
  if (!a) return 'a human with authority over it';
  return a.via && a.action ? `${a.via}(action=${a.action})` : a.text;
}

function replayMismatch(want: CallEvent, got: CallEvent): string | undefined {
  if (got.status !== want.status)
    return `it replied ${got.status} (HTTP ${got.http_status ?? '?'}), the record says ${want.status} (HTTP ${want.http_status ?? '?'})`;
  if (got.applied !== want.applied) return `applied is ${String(got.applied)}, the record says ${String(want.applied)}`;
  if (stableJson(got.effects) !== stableJson(want.effects)) return 'its effects differ from the recorded ones';
  const strip = (c: CallEvent['compensation']) =>
    c ? { operation: c.operation, args: c.args, requires_approval: c.requires_approval } : null;
  if (stableJson(strip(got.compensation)) !== stableJson(strip(want.compensation)))
    return 'its compensation differs from the recorded one';
  return undefined;
}

/** Facts that read-only calls established: what they verified. */
function observationFacts(calls: readonly CallEvent[]): Set<string> {
  const out = new Set<string>();
  for (const c of calls)
    if (c.read_only) for (const e of c.effects) for (const f of effectFootprint(e).factsAdded) out.add(f);
  return out;
}

function isReadOnly(step: number, calls: readonly CallEvent[]): boolean {
  return calls.find((c) => c.step === step)?.read_only === true;
}

const same = (a: unknown, b: unknown) => stableJson(a) === stableJson(b);

/** Whether an effect list produced a change (added or changed the row to what it is, removed it, established or revoked the fact). */
function produces(effects: readonly AppliedEffect[], change: WorldChange): boolean {
  return effects.some((e) => {
    const f = effectFootprint(e);
    if (change.where === 'fact')
      return (change.change === 'added' ? f.factsAdded : f.factsRemoved).includes(change.fact);
    if (f.table !== change.table) return false;
    if (change.change === 'removed') return f.rowsRemoved.some((r) => same(r, change.row));
    const now: Row = change.change === 'added' ? change.row : change.after;
    return f.rowsAdded.some((r) => same(r, now));
  });
}

function producedBy(change: WorldChange, timeline: readonly { effects: AppliedEffect[] }[]): boolean {
  return timeline.some((t) => produces(t.effects, change));
}

/** Why a difference remains: the latest effect that produced it, and what recovery did about its call. */
function attribute(
  change: WorldChange,
  timeline: Timeline,
  byStep: ReadonlyMap<number, CompensationOutcome>,
  checklist: Checklist,
): Remaining {
  let source: (typeof timeline)[number] | undefined;
  for (let i = timeline.length - 1; i >= 0; i--) {
    const t = timeline[i] as (typeof timeline)[number];
    if (produces(t.effects, change)) {
      source = t;
      break;
    }
  }
  if (!source) return { ...change, cause: 'unattributed', explanation: 'no recorded effect explains it' };
  const { step, tool } = source;
  if (source.compensation) {
    return {
      ...change,
      cause: 'not_restored',
      step,
      tool,
      operation: source.compensation,
      explanation: `the compensation ${source.compensation} of step ${step} (${tool}) does not restore it`,
    };
  }
  const outcome = byStep.get(step);
  const item = checklist.items.find((i) => i.step === step);
  const op = item?.compensation?.operation;
  switch (outcome?.disposition) {
    case 'irreversible':
      return {
        ...change,
        cause: 'irreversible',
        step,
        tool,
        explanation: `step ${step} (${tool}) is ${item?.class ?? 'irreversible'} with no compensation`,
      };
    case 'unapproved':
      return {
        ...change,
        cause: 'unapproved',
        step,
        tool,
        ...(op ? { operation: op } : {}),
        explanation: `step ${step} (${tool}) is ${item?.class ?? 'compensable'}: ${op ?? 'its compensation'} needs approval from ${approverShort(item?.compensation?.approver)}; rerun with --approve once given`,
      };
    case 'compensation_failed':
      return {
        ...change,
        cause: 'compensation_failed',
        step,
        tool,
        ...(op ? { operation: op } : {}),
        explanation: `the compensation ${op ?? '?'} of step ${step} (${tool}) failed${outcome.http_status ? ` with HTTP ${outcome.http_status}` : ''}${outcome.error ? `: ${outcome.error}` : ''}`,
      };
    case 'compensated':
    case 'already_compensated':
    case 'is_compensation':
      return {
        ...change,
        cause: 'not_restored',
        step,
        tool,
        ...(op ? { operation: op } : {}),
        explanation:
          outcome.disposition === 'is_compensation'
            ? `step ${step} (${tool}) compensated an earlier call in the run and does not restore it`
            : `the compensation ${op ?? '?'} of step ${step} (${tool}) ran${outcome.disposition === 'already_compensated' ? ' in the run' : ''} and does not restore it`,
      };
    default:
      return {
        ...change,
        cause: 'unattributed',
        step,
        tool,
        explanation: `step ${step} (${tool}) changed it, and nothing in the checklist undoes it`,
      };
  }
}
