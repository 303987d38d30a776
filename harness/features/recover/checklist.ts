/**
 * The incident checklist: every effect a run left, newest first, with what to
 * do about it. Reversible effects get their exact compensating calls;
 * compensable ones their compensations and who must approve them;
 * irreversible ones what happened, to whom and when, and the response they
 * need instead (notify, contain, disclose). Effects of calls that failed
 * ambiguously are marked uncertain: reconcile before acting on them.
 *
 * A pure function of the record (and, when at hand, the scenario, which names
 * approvers and describes tools): recovery is a lookup, not a reconstruction.
 */
import { describeEffect } from '../../core/effects/index.ts';
import { showValue } from '../../core/effects/row-text.ts';
import type { AppliedEffect, CallEvent, Compensation, RunStartEvent, WorldSnapshot } from '../../core/record.ts';
import type { Scenario, ToolClass } from '../../core/scenario.ts';
import { duplicateEffects, openEffects } from '../../domain/rules/duplicates.ts';
import { effectLedger } from '../../domain/rules/effects.ts';
import { reconcilersByTarget, reportedBy } from '../../domain/rules/reconcile.ts';
import { callIdentity } from '../../domain/rules/same-call.ts';
import { approverFor, type Approver } from './approver.ts';
import type { ParsedRecord } from '../../engine/record/reader.ts';
import { initialWorldOf } from '../../engine/record/initial-world.ts';
import { irreversibleResponse, recipients, type Response } from './response.ts';

/**
 * - compensate: issue the compensating call (same authority, no approval needed)
 * - compensate_with_approval: issue it once the approver has signed off
 * - respond: no compensation exists; notify, contain, disclose
 * - reconcile: the call failed ambiguously and the record shows no effect; confirm before anything else
 * - none: nothing to do (already compensated in the run, or the call was itself a compensation)
 */
type ItemAction = 'compensate' | 'compensate_with_approval' | 'respond' | 'reconcile' | 'none';

export interface ChecklistItem {
  step: number;
  turn: number;
  batch: number;
  /** Virtual time when the call was issued. */
  t_ms: number;
  tool: string;
  args: Record<string, unknown>;
  class: ToolClass;
  status: CallEvent['status'];
  http_status: number | null;
  effects: AppliedEffect[];
  /** The effects in words, one line each. */
  happened: string[];
  /** Arguments that say who or what the call reached. */
  recipients: { key: string; value: unknown }[];
  /** Preconditions that did not hold when the call was issued. */
  premature: string[];
  action: ItemAction;
  /**
   * Whether it is left open for recovery: a dangling effect of a run that did not complete, or a
   * duplicate effect of any run (the number of open items is the run's dangling or duplicate score).
   */
  open: boolean;
  /** Whether the effect may or may not have happened (a failed reply). */
  uncertain: boolean;
  /** Why it is uncertain, or how the run settled it. */
  uncertainty?: string;
  /** Tools that can tell whether it happened. */
  reconcile_with: string[];
  compensation: (Compensation & { approver?: Approver }) | null;
  /** Step of an earlier call with the same tool and arguments that failed ambiguously: the effect may exist twice. */
  repeats?: number;
  /**
   * Step of an earlier effect this one repeated (same tool and arguments, or the same `dedupe_on`
   * values; an idempotency key aside): the duplicate, the one to reverse or claw back.
   */
  duplicate_of?: number;
  /** Step of a later call in the run that already issued this compensation. */
  compensated_at?: number;
  /** For a call that was itself a compensation: the step it compensated. */
  compensates?: number;
  /** For effects with no compensation: what to do instead. */
  response?: Response;
}

export interface Checklist {
  run: Pick<
    RunStartEvent,
    'run_id' | 'scenario' | 'scenario_file' | 'planner' | 'trial' | 'seed' | 'deployment' | 'guard' | 'journal'
  > & {
    /** Null when the record has no run_end (interrupted run). */
    end_reason: string | null;
    completed: boolean | null;
    calls: number;
  };
  /** Newest first. */
  items: ChecklistItem[];
  counts: {
    compensate: number;
    compensate_with_approval: number;
    respond: number;
    reconcile: number;
    none: number;
    uncertain: number;
    /** Items still open: the run's dangling effects if it did not complete, else its duplicate effects. */
    open: number;
  };
  /** The world the run started from (rebuilt from the scenario when the record holds its digest only; absent when the scenario no longer gives it). */
  initial_world?: WorldSnapshot;
}

/**
 * Builds the checklist of a record.
 *
 * @example
 * const r = readRecord('run.jsonl');
 * if (r.ok) for (const item of buildChecklist(r.value, scenario).items) console.log(item.step, item.action);
 */
export function buildChecklist(record: ParsedRecord, scenario?: Scenario): Checklist {
  const { start, calls, end } = record;
  const reconcilers = reconcilersByTarget(start.tools.map((t) => ({ name: t.name, reconciles: t.reconciles ?? [] })));
  const issued = calls.filter((c) => c.status !== 'blocked');
  const tools = new Map(start.tools.map((t) => [t.name, t]));
  // The calls that failed so that their effect may have happened, by "the same call" (its identity: the
  // idempotency key aside, as for retries and duplicates; one made per call).
  const failedByKey = new Map<string, CallEvent[]>();
  for (const d of issued) {
    if (d.status !== 'fault' || !(d.ambiguous || d.applied)) continue;
    const k = callIdentity(d, tools.get(d.tool));
    const list = failedByKey.get(k);
    if (list) list.push(d);
    else failedByKey.set(k, [d]);
  }

  // The same ledger the dangling score counts: which calls left an effect, and which compensated which.
  const ledger = effectLedger(issued, start.tools);
  const { compensatedAt, compensates } = ledger;
  const effectSteps = new Set(ledger.effects);
  const duplicates = duplicateEffects(issued, ledger, tools);
  // What is left to recover: the same function the dangling and duplicate scores agree with.
  const open = openEffects(issued, end ? end.completed : null, ledger, tools);
  // Which reconciling call settled each failed call: one whose reply reached the planner and reported on it.
  const settledBy = new Map<number, { by: CallEvent; applied: boolean }>();
  for (const d of issued) for (const r of reportedBy(d)) settledBy.set(r.step, { by: d, applied: r.applied });

  const items: ChecklistItem[] = [];
  for (const c of issued) {
    const ambiguous = c.status === 'fault' && (c.ambiguous || c.applied);
    const withEffect = effectSteps.has(c.step);
    if (!withEffect && !compensates.has(c.step) && !(ambiguous && !c.read_only)) continue;
    const settled = settledBy.get(c.step);
    const uncertain = ambiguous && !settled;
    const decl = scenario?.tools.find((t) => t.name === c.tool);
    const who = recipients(c.args);
    const item: ChecklistItem = {
      step: c.step,
      turn: c.turn,
      batch: c.batch,
      t_ms: c.t_ms,
      tool: c.tool,
      args: c.args,
      class: c.class,
      status: c.status,
      http_status: c.http_status,
      effects: c.effects,
      happened: c.effects.map(describeEffect).filter((s): s is string => s !== undefined),
      recipients: who,
      premature: c.preconditions.missing,
      action: 'none',
      open: open.has(c.step),
      uncertain,
      reconcile_with: reconcilers.get(c.tool) ?? [],
      compensation: c.compensation
        ? {
            ...c.compensation,
            ...(needsApproval(c.class, c.compensation)
              ? { approver: approverFor(scenario, c.compensation.operation) }
              : {}),
          }
        : null,
    };
    if (ambiguous) {
      // A guard's journal has no HTTP status for a timeout, a lost connection or a guard killed mid-call: its error says what happened.
      const failed = c.http_status !== null ? `failed with HTTP ${c.http_status}` : `failed (${c.error ?? 'no reply'})`;
      item.uncertainty = settled
        ? `${failed}; ${settled.by.tool} (step ${settled.by.step}) reported applied=${String(settled.applied)}`
        : `the call ${failed} and the caller cannot tell whether it took effect; the record shows ${c.applied ? 'its effect applied' : 'no effect'}`;
    }
    // Repeating a call that failed ambiguously may have doubled its effect.
    const earlier =
      failedByKey.size > 0
        ? failedByKey.get(callIdentity(c, tools.get(c.tool)))?.find((d) => d.batch < c.batch)
        : undefined;
    if (earlier) item.repeats = earlier.step;
    const dup = duplicates.get(c.step);
    if (dup !== undefined) item.duplicate_of = dup;
    const at = compensatedAt.get(c.step);
    const of = compensates.get(c.step);
    if (at !== undefined) item.compensated_at = at;
    if (of !== undefined) item.compensates = of;

    if (at !== undefined || of !== undefined) item.action = 'none';
    else if (!withEffect) item.action = 'reconcile';
    else if (c.compensation && c.class !== 'irreversible')
      item.action = needsApproval(c.class, c.compensation) ? 'compensate_with_approval' : 'compensate';
    else item.action = 'respond';

    if (item.action === 'respond') {
      item.response = irreversibleResponse({
        tool: c.tool,
        ...(decl?.description ? { description: decl.description } : {}),
        effects: c.effects,
        whom: who.map((r) => `${r.key}=${showValue(r.value)}`).join(', '),
      });
    }
    items.push(item);
  }
  items.sort((a, b) => b.step - a.step);

  const counts = {
    compensate: 0,
    compensate_with_approval: 0,
    respond: 0,
    reconcile: 0,
    none: 0,
    uncertain: 0,
    open: 0,
  };
  for (const i of items) {
    counts[i.action]++;
    if (i.uncertain) counts.uncertain++;
    if (i.open) counts.open++;
  }
  return {
    run: {
      run_id: start.run_id,
      scenario: start.scenario,
      scenario_file: start.scenario_file,
      planner: start.planner,
      trial: start.trial,
      seed: start.seed,
      deployment: start.deployment ?? {},
      guard: start.guard === true,
      ...(start.journal ? { journal: start.journal } : {}),
      end_reason: end?.end_reason ?? null,
      completed: end ? end.completed : null,
      calls: issued.length,
    },
    items,
    counts,
    ...initialWorldField(start, scenario),
  };
}

/** A compensable tool's compensation is a new action with its own approvals; a reversible one's only when the record says so. */
export function needsApproval(cls: ToolClass, comp: Pick<Compensation, 'requires_approval'>): boolean {
  return cls === 'compensable' || comp.requires_approval;
}

/** The checklist's initial world, when the record holds it or the scenario rebuilds it. */
function initialWorldField(start: RunStartEvent, scenario: Scenario | undefined): { initial_world?: WorldSnapshot } {
  if (start.initial_world) return { initial_world: start.initial_world };
  if (!scenario) return {};
  const w = initialWorldOf(start, scenario);
  return w.ok ? { initial_world: w.value } : {};
}
