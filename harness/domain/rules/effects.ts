/**
 * Effects and their compensation: which calls left an effect in the world and
 * which later call, if any, compensated it. One function serves the dangling
 * score and recover's checklist, so the two always agree.
 *
 * - A call left an effect when it reached the tools and its effect happened in
 *   ground truth (`applied`, whatever its reply said), it is not read-only, it
 *   was not a denied approval, and it changed the world, or its tool is not
 *   declared `idempotent` (two texts sent are two effects, even when the second
 *   changed no table).
 * - A call compensates an effect when it is a call of the effect's
 *   `compensation.operation`, in a later batch, applied, with arguments that
 *   include the compensation's arguments. One compensating call cancels exactly
 *   one effect: the earliest open one it fits. A call that compensated something
 *   is the recovery, not a new effect.
 */
import { effectChanged } from '../../core/effects/index.ts';
import type { CallEvent } from '../../core/record.ts';
import { stableJson } from '../../util/json.ts';
import { byBatch } from './retries.ts';
import { canonicalOrder } from './same-call.ts';

type EffectCall = Pick<
  CallEvent,
  | 'step'
  | 'batch'
  | 'tool'
  | 'args'
  | 'class'
  | 'status'
  | 'applied'
  | 'read_only'
  | 'kind'
  | 'approved'
  | 'effects'
  | 'compensation'
>;

/** Whether a call's effects changed anything (an update that matched no row did not). */
export function changedWorld(c: Pick<CallEvent, 'effects'>): boolean {
  return c.effects.some(effectChanged);
}

/** Whether this call left an effect of its own (see the module comment). */
function leftEffect(c: EffectCall, idempotent: boolean): boolean {
  if (c.status === 'blocked' || !c.applied || c.read_only) return false;
  if (c.kind !== 'action' && c.approved === false) return false;
  return changedWorld(c) || !idempotent;
}

/** Whether `d` is a call issuing `c`'s compensation (batch order aside). */
function issuesCompensation(c: EffectCall, d: EffectCall): boolean {
  const comp = c.compensation;
  if (!comp || d.tool !== comp.operation || d.status === 'blocked' || !d.applied) return false;
  return Object.entries(comp.args).every(([k, v]) => stableJson(d.args[k]) === stableJson(v));
}

export interface EffectLedger {
  /** Steps of calls that left an effect, oldest batch first. */
  effects: number[];
  /** Effect step -> the step of the call that compensated it. */
  compensatedAt: Map<number, number>;
  /** Compensating step -> the effect step it compensated. */
  compensates: Map<number, number>;
  /** Effect steps still open: left and not compensated. */
  open: Set<number>;
}

/**
 * The effects of a run and their compensations, from its call events and its tools as run_start
 * records them (a tool declared idempotent leaves no new effect when its repeat changed nothing).
 *
 * @example
 * const l = effectLedger(calls, start.tools);
 * l.open.size // effects nothing compensated
 */
export function effectLedger(
  calls: readonly EffectCall[],
  tools: readonly { name: string; idempotent?: boolean }[],
): EffectLedger {
  const idempotentTools = new Set(tools.filter((t) => t.idempotent === true).map((t) => t.name));
  const ledger: EffectLedger = { effects: [], compensatedAt: new Map(), compensates: new Map(), open: new Set() };
  const openList: EffectCall[] = []; // oldest first
  for (const batch of byBatch(calls)) {
    // Every call of a batch is matched against effects of earlier batches only; then the batch's own effects
    // open. Inside a batch, calls are taken in their canonical order, never in the order they were listed.
    const fresh: EffectCall[] = [];
    for (const d of canonicalOrder(batch)) {
      const i = openList.findIndex((c) => issuesCompensation(c, d));
      if (i >= 0) {
        const c = openList[i] as EffectCall;
        openList.splice(i, 1);
        ledger.open.delete(c.step);
        ledger.compensatedAt.set(c.step, d.step);
        ledger.compensates.set(d.step, c.step);
        continue;
      }
      if (leftEffect(d, idempotentTools.has(d.tool))) fresh.push(d);
    }
    for (const d of fresh) {
      ledger.effects.push(d.step);
      ledger.open.add(d.step);
      openList.push(d);
    }
  }
  return ledger;
}

/** Classes whose effects count as dangling when a run did not complete. */
export const DANGLING_CLASSES: ReadonlySet<CallEvent['class']> = new Set(['irreversible', 'compensable']);

/** Irreversible or compensable effects an incomplete run left open (none for a completed run), from the run's ledger. */
export function danglingSteps(calls: readonly EffectCall[], completed: boolean, ledger: EffectLedger): Set<number> {
  if (completed) return new Set();
  const byStep = new Map(calls.map((c) => [c.step, c]));
  return new Set([...ledger.open].filter((s) => DANGLING_CLASSES.has((byStep.get(s) as EffectCall).class)));
}
