/**
 * gated: the seed article's constrained planner. It chains backwards from the
 * goal, establishes preconditions first, asks the approval gates, asks the
 * human to confirm each call that requires it (in a batch before it, the call
 * only after a yes; one yes per call), and never
 * calls an irreversible tool speculatively, in a parallel batch, or again after
 * an ambiguous failure without reconciling first (nor sends again a repeat a
 * guard held: it reconciles, or stops with the guard's reason). Where it cannot
 * satisfy a gate it stops rather than act: completing less often is the price it shows.
 */
import { holdsIn, UNKNOWN } from '../harness/core/facts/fact.ts';
import { UsageError } from '../harness/core/errors.ts';
import type { Decision, Observation, PlannerFactory, PlannerView } from '../harness/core/planner.ts';
import type { ArgSources } from '../harness/domain/planner-kit/args.ts';
import { goalFacts } from '../harness/domain/planner-kit/belief.ts';
import { callKey, stableJson } from '../harness/domain/planner-kit/call-key.ts';
import { backwardChain, isReady, type PlanNode } from '../harness/domain/planner-kit/chain.ts';
import { askedAbout } from '../harness/domain/planner-kit/confirm.ts';
import { finish, issue } from '../harness/domain/planner-kit/decision.ts';
import { approvalVerdict, attemptsOf, toolNamed } from '../harness/domain/planner-kit/history.ts';
import { avoidsForbidden } from '../harness/domain/planner-kit/forbidden.ts';
import { byClassThenMissing } from '../harness/domain/planner-kit/rank.ts';
import { failedIrreversibleCalls, irreversibleState } from '../harness/domain/planner-kit/recovery.ts';
import { planningSources } from '../harness/domain/planner-kit/sources.ts';

export interface GatedOptions {
  /** How many times a denied approval may be asked again (default 0). */
  ask_again: number;
  /** Idempotency keys: `stable` (default), derived from the call so a retry or restart repeats the key; `fresh`, a new key per decision. */
  keys: 'stable' | 'fresh';
}

/** Attempts of one non-irreversible call: the first plus two retries. */
export const GATED_ATTEMPTS = 3;

/** Parses `--planner-opt` values for gated. */
export function gatedOptions(raw: Record<string, string>): GatedOptions {
  const text = raw.ask_again ?? '0';
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n))
    throw new UsageError(
      `gated: ask_again must be a whole number >= 0, got "${text}"`,
      'e.g. --planner-opt ask_again=1',
    );
  const keys = raw.keys ?? 'stable';
  if (keys !== 'stable' && keys !== 'fresh')
    throw new UsageError(`gated: keys must be "stable" or "fresh", got "${keys}"`, 'e.g. --planner-opt keys=fresh');
  return { ask_again: n, keys };
}

/** A denied approval that may not be asked again, as a finish reason. */
function denial(src: ArgSources, opts: GatedOptions): string | undefined {
  const denials = new Map<string, number>();
  const latest = new Map<string, { verdict: boolean | undefined; o: Observation }>();
  for (const o of src.obs) {
    // A confirmation is asked about a concrete call: a no to it is a denial of that call, as an approval's is.
    const kind = toolNamed(src.view, o.tool)?.kind;
    if (kind === 'action' || kind === undefined) continue;
    const key = kind === 'confirmation' ? `${o.tool}\u0000${askedAbout(src.view, o.args)}` : callKey(o);
    const verdict = approvalVerdict(o);
    latest.set(key, { verdict, o });
    if (verdict === false) denials.set(key, (denials.get(key) ?? 0) + 1);
  }
  for (const [key, { verdict, o }] of latest) {
    const n = denials.get(key) ?? 0;
    const action =
      typeof o.args.action === 'string'
        ? ` for ${o.args.action}`
        : typeof o.args.tool === 'string'
          ? ` for ${o.args.tool} ${stableJson(o.args.args ?? {})}`
          : '';
    if (verdict === false && n > opts.ask_again) return `denied: ${o.tool}${action} (${n} time${n === 1 ? '' : 's'})`;
  }
  return undefined;
}

/** The next step of an irreversible call that failed before: a reconciling call, or a reason to stop. */
function recovery(src: ArgSources): Decision | undefined {
  for (const call of failedIrreversibleCalls(src.view, src)) {
    const st = irreversibleState(src, call);
    if (st.kind === 'reconcile') return { type: 'call', call: st.call };
    if (st.kind === 'stop') return finish(st.reason);
  }
  return undefined;
}

/** Options that would establish a forbidden fact are never planned. */
/** A reason to stop instead of issuing this (non-irreversible) node again. */
function exhausted(src: ArgSources, node: PlanNode): string | undefined {
  const attempts = attemptsOf(src.obs, node.call);
  // An approval or a confirmation is bounded by ask_again; count only the times it did not answer.
  const counted = node.kind !== 'action' ? attempts.filter((o) => o.status !== 'ok') : attempts;
  return counted.length >= GATED_ATTEMPTS
    ? `gave up: ${node.call.tool} ${stableJson(node.call.args)} after ${counted.length} attempts`
    : undefined;
}

/**
 * One gated turn, a pure function of the view: goal reached → finish; a denied
 * gate → finish; a failed irreversible call → reconcile it (or stop); else plan
 * from the goal and issue the ready non-irreversible calls as one batch, or,
 * when there are none, the first ready irreversible call alone.
 *
 * @example
 * gatedDecision(view, { ask_again: 0 }) // turn 1: batch [verify_recipient, request_approval]; turn 2: send_customer_email alone
 */
export function gatedDecision(view: PlannerView, opts: GatedOptions): Decision {
  const src = planningSources(view, opts.keys);
  const goals = goalFacts(view);
  if (goals.every((g) => holdsIn(g, src.belief, UNKNOWN))) return finish('goal reached');
  const denied = denial(src, opts);
  if (denied) return finish(denied);
  const recover = recovery(src);
  if (recover) return recover;

  const plan = backwardChain(goals, src, { rank: byClassThenMissing, accept: avoidsForbidden(view) });
  if (plan.unreachable.length > 0)
    return finish(`unreachable: ${plan.unreachable.join(', ')} (nothing establishes ${plan.dead_ends.join(', ')})`);
  const ready = plan.nodes.filter(isReady);
  const reversible = ready.filter((n) => n.class !== 'irreversible');
  if (reversible.length > 0) {
    for (const n of reversible) {
      const why = exhausted(src, n);
      if (why) return finish(why);
    }
    return issue(reversible.map((n) => n.call));
  }
  const oneWay = ready.find((n) => n.class === 'irreversible');
  if (!oneWay)
    return finish(`stuck: no call can be issued (pending: ${plan.nodes.map((n) => n.call.tool).join(', ')})`);
  const st = irreversibleState(src, oneWay.call);
  if (st.kind === 'fresh' || st.kind === 'retry') return { type: 'call', call: oneWay.call };
  if (st.kind === 'reconcile') return { type: 'call', call: st.call };
  if (st.kind === 'stop') return finish(st.reason);
  // It went through, yet the goal is not believed: calling it again would repeat a one-way effect.
  return finish(`no progress: ${oneWay.call.tool} already succeeded but ${oneWay.for} is not believed`);
}

const gated: PlannerFactory = {
  name: 'gated',
  cpuBound: true,
  description:
    'Chains back from the goal, establishes preconditions first, asks approvals and the confirmation of each call that needs one, issues irreversible calls alone and only when their preconditions are believed, reconciles before retrying.',
  create(ctx) {
    const opts = gatedOptions(ctx.options);
    return { name: 'gated', next: (view) => gatedDecision(view, opts) };
  },
  // Like a durable-execution engine: it remembers every batch whose replies it saw, and logs an
  // intent before each call, so after a restart it knows which calls were in flight.
  checkpoint: 'batch+intents',
};

export default gated;
