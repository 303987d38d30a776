/**
 * Unreconciled retries: an irreversible call repeated (the same call, see
 * same-call.ts) in a LATER batch than an ambiguous failure of that call, with no
 * reconciling call that reported on it in a batch strictly between the two.
 *
 * Batches have no order inside: a duplicate in the failure's own batch is a
 * parallel call, not a retry; a reconciler in the failure's batch could not
 * have seen it, and one in the retry's batch answered too late. Whom a
 * reconciler reported on is what the sandbox answered (`reconciled` in the
 * record, by the rule in reconcile.ts). Scoring and the guard share this walk.
 */
import type { CallEvent } from '../../core/record.ts';
import { sortBy } from '../../util/sort.ts';
import { callKey } from './same-call.ts';

type Walked = Pick<
  CallEvent,
  'step' | 'batch' | 'tool' | 'args' | 'class' | 'status' | 'ambiguous' | 'reconciled' | 'reply_lost'
>;

/** Groups calls by batch, batches in ascending order (the order of a batch's calls is kept but never relied on). */
export function byBatch<T extends { batch: number }>(calls: readonly T[]): T[][] {
  const groups = new Map<number, T[]>();
  for (const c of calls) {
    const g = groups.get(c.batch);
    if (g) g.push(c);
    else groups.set(c.batch, [c]);
  }
  return sortBy([...groups.entries()], ([a], [b]) => a - b).map(([, g]) => g);
}

/**
 * An irreversible call that reached the tools and whose outcome the caller cannot know: it failed
 * ambiguously, or the planner restarted before its reply arrived (a lost reply is the same unknown).
 */
const isAmbiguousIrreversibleFailure = (c: Pick<CallEvent, 'class' | 'status' | 'ambiguous' | 'reply_lost'>): boolean =>
  c.class === 'irreversible' &&
  c.status !== 'blocked' &&
  ((c.status === 'fault' && c.ambiguous) || c.reply_lost === true);

/**
 * Walks batch by batch, tracking the keys of ambiguous irreversible failures that
 * nothing has reconciled. `visit` sees every call with the set as it stood before
 * the call's batch. Returns the set after the last batch.
 */
export function walkAmbiguities<C extends Walked>(
  calls: readonly C[],
  visit?: (c: C, open: ReadonlySet<string>) => void,
): Set<string> {
  const open = new Set<string>();
  // A call's key is made only when asked for: most runs have no ambiguous failure at all.
  const issuedAt = new Map<number, C>();
  for (const c of calls) if (c.status !== 'blocked') issuedAt.set(c.step, c);
  for (const batch of byBatch(calls)) {
    if (visit) for (const c of batch) visit(c, open);
    for (const c of batch) {
      // Only a reconciler that answered (an ok reply) has reported anything.
      if (c.status !== 'ok' || !c.reconciled || open.size === 0) continue;
      const target = issuedAt.get(c.reconciled.step);
      if (target !== undefined) open.delete(callKey(target));
    }
    for (const c of batch) if (isAmbiguousIrreversibleFailure(c)) open.add(callKey(c));
  }
  return open;
}

/**
 * Whether the tool itself makes a repeat of the same call harmless: it has an idempotency key (the
 * repeat carries the same key, since the arguments are the same) or is declared idempotent. Such a
 * repeat cannot apply twice, so it is no retry (scoring and the guard both ask this).
 */
export const repeatsHarmlessly = (tool: { idempotency_key?: string; idempotent?: boolean } | undefined): boolean =>
  tool?.idempotency_key !== undefined || tool?.idempotent === true;

/**
 * The steps of irreversible attempts (issued or blocked) that are unreconciled retries. A repeat of
 * a call to a tool in `once` (one that `repeatsHarmlessly`) cannot apply twice, so it is no retry.
 */
export function unreconciledRetrySteps(calls: readonly Walked[], once: ReadonlySet<string> = new Set()): Set<number> {
  const out = new Set<number>();
  walkAmbiguities(calls, (c, open) => {
    if (c.class === 'irreversible' && !once.has(c.tool) && open.size > 0 && open.has(callKey(c))) out.add(c.step);
  });
  return out;
}
