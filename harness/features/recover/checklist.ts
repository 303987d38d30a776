/**
 * The incident checklist: every effect a run left, newest first, with what to
 * do about it. Reversible effects get their exact compensating calls;
 * compensable ones their compensations and who must approve them;
 * irreversible ones what happened, to whom and when, and the response they
 * need instead (notify, contain, disclose). Effects of calls that failed
 * ambiguously are marked uncertain: reconcile before acting on them.
 *
 * A guard's journal has no ground truth: a call that applied is on the
 * checklist by its class (irreversible or compensable), declared effects or
 * not, and stays open until it is compensated or a person settles it (`recover
 * --settle`, a settle event); an uncertain one (an ambiguous failure, an intent
 * with no outcome) is open until a reconciler or a person settled it. The
 * attempts its guard refused are listed too, ticked.
 *
 * A pure function of the record (and, when at hand, the scenario, which names
 * approvers and describes tools): recovery is a lookup, not a reconstruction.
 */
import { describeEffect } from '../../core/effects/index.ts';
import { showValue } from '../../core/effects/row-text.ts';
import type {
  AppliedEffect,
  CallEvent,
  Compensation,
  RunStartEvent,
  SettleEvent,
  WorldSnapshot,
} from '../../core/record.ts';
import type { Scenario, ToolClass } from '../../core/scenario.ts';
import { duplicateEffects, openEffects } from '../../domain/rules/duplicates.ts';
import { DANGLING_CLASSES, effectLedger } from '../../domain/rules/effects.ts';
import { retriedFailure, walkAmbiguities } from '../../domain/rules/retries.ts';
import { reconcilersByTarget, reportedBy } from '../../domain/rules/reconcile.ts';
import { approverFor, type Approver } from './approver.ts';
import { journalDisputes } from './disputes.ts';
import { settleReport, type ParsedRecord, type UnreadableLine } from '../../engine/record/reader.ts';
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
  /**
   * A guard's journal read with its tools file: why the tools file disagrees with what the journal
   * says of this call (its class, its compensation, whether that needs approval, an undeclared
   * tool). A disputed item is never applied (disputes.ts).
   */
  disputed?: string[];
  /** In a journal: a call its guard refused, why; it never reached the server (ticked, nothing to do). */
  refused?: string;
  /** In a journal: a person's settle of this call (`recover --settle`), which closes it. */
  settled?: { step: number; applied: boolean; by: string; at: string };
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
    /** Items the tools file disagrees with (a journal read with its tools file): never applied. */
    disputed: number;
    /** A journal's refused attempts (counted apart from the actions: nothing happened). */
    refused: number;
  };
  /** The world the run started from (rebuilt from the scenario when the record holds its digest only; absent when the scenario no longer gives it). */
  initial_world?: WorldSnapshot;
  /**
   * The lines of the record that could not be read (reader.ts): what they held is unknown, so they
   * are listed, never skipped in silence; each is left to a person to check.
   */
  unreadable: UnreadableLine[];
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
  // A journal has no ground truth (see the module comment): what a person settled, by the step settled.
  const journal = start.journal !== undefined;
  const settles = record.events.filter((e): e is SettleEvent => e.type === 'settle');
  const settledByPerson = new Map(settles.map((e) => [e.settles, e]));
  // Which earlier ambiguous failure a call repeats blindly: the one rule of unreconciled retries
  // (retries.ts, which scoring and the guard ask too), a settle counting as a reconciler's answer.
  const repeatOf = new Map<number, number>();
  walkAmbiguities([...issued, ...settles.map(settleReport)], tools, (c, open) => {
    const f = retriedFailure(c, open, tools.get(c.tool));
    if (f) repeatOf.set(c.step, f.step);
  });

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
  // A journal's lines are checked against the tools file: what the file says is what recovery uses.
  const disputes = start.journal && scenario ? journalDisputes(issued, scenario) : undefined;

  const items: ChecklistItem[] = [];
  for (const c of calls) {
    if (c.status === 'blocked') {
      // A journal lists the attempts its guard refused: ticked, nothing to do, never sent.
      if (journal) items.push(refusedItem(c));
      continue;
    }
    const ambiguous = c.status === 'fault' && (c.ambiguous || c.applied);
    const withEffect = effectSteps.has(c.step);
    const settled = settledBy.get(c.step);
    // In a journal, a call that applied (by its reply, or by a reconciler's answer after it failed)
    // is on the checklist by its class, declared effects or not: an irreversible write_file a tools
    // file gives no effects still overwrote a file.
    const executed =
      journal &&
      ((c.status === 'ok' && c.applied) || (ambiguous && settled?.applied === true)) &&
      !c.read_only &&
      DANGLING_CLASSES.has(c.class) &&
      !(c.kind === 'approval' && c.approved === false);
    if (!withEffect && !executed && !compensates.has(c.step) && !(ambiguous && !c.read_only)) continue;
    const person = settledByPerson.get(c.step);
    const uncertain = ambiguous && !settled && !person;
    const decl = scenario?.tools.find((t) => t.name === c.tool);
    const who = recipients(c.args);
    const item: ChecklistItem = {
      ...callHead(c),
      effects: c.effects,
      happened: c.effects.map(describeEffect).filter((s): s is string => s !== undefined),
      recipients: who,
      premature: c.preconditions.missing,
      action: 'none',
      // A journal's item is open until settled: applied (irreversible or compensable, nothing
      // compensated it) or uncertain. A run's: its dangling or duplicate effects (scoring's rule).
      open: journal
        ? !person &&
          !compensatedAt.has(c.step) &&
          !compensates.has(c.step) &&
          (uncertain || ((executed || withEffect) && DANGLING_CLASSES.has(c.class)))
        : open.has(c.step),
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
      item.uncertainty = person
        ? `${failed}; settled ${person.applied ? 'applied' : 'not applied'} by ${person.by} at ${person.at}`
        : settled
          ? `${failed}; ${settled.by.tool} (step ${settled.by.step}) reported applied=${String(settled.applied)}`
          : `the call ${failed} and the caller cannot tell whether it took effect; the record shows ${c.applied ? 'its effect applied' : 'no effect'}`;
    }
    // Repeating a call that failed ambiguously, before anything reported on it, may have doubled its effect.
    const earlier = repeatOf.get(c.step);
    if (earlier !== undefined) item.repeats = earlier;
    if (person) item.settled = { step: person.step, applied: person.applied, by: person.by, at: person.at };
    const dup = duplicates.get(c.step);
    if (dup !== undefined) item.duplicate_of = dup;
    const disputed = disputes?.get(c.step);
    if (disputed) item.disputed = disputed;
    const at = compensatedAt.get(c.step);
    const of = compensates.get(c.step);
    if (at !== undefined) item.compensated_at = at;
    if (of !== undefined) item.compensates = of;

    // Settled not applied (by a person, or a reconciler's answer): nothing happened, nothing to do.
    if (at !== undefined || of !== undefined || person || (settled && !settled.applied && !withEffect))
      item.action = 'none';
    else if (!withEffect && !executed) item.action = 'reconcile';
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
    disputed: 0,
    refused: 0,
  };
  for (const i of items) {
    if (i.refused !== undefined) {
      counts.refused++;
      continue;
    }
    counts[i.action]++;
    if (i.uncertain) counts.uncertain++;
    if (i.open) counts.open++;
    if (i.disputed) counts.disputed++;
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
    unreadable: record.unreadable,
  };
}

/** What a checklist item repeats of its call as it was journaled or recorded. */
const callHead = (c: CallEvent) => ({
  step: c.step,
  turn: c.turn,
  batch: c.batch,
  t_ms: c.t_ms,
  tool: c.tool,
  args: c.args,
  class: c.class,
  status: c.status,
  http_status: c.http_status,
});

/** A journal's refused attempt as a checklist item: ticked, nothing to do. */
function refusedItem(c: CallEvent): ChecklistItem {
  return {
    ...callHead(c),
    effects: [],
    happened: [],
    recipients: recipients(c.args),
    premature: c.preconditions.missing,
    action: 'none',
    open: false,
    uncertain: false,
    reconcile_with: [],
    compensation: null,
    refused: c.blocked_reason ?? c.error ?? 'refused',
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
