/**
 * Unreconciled retries: an irreversible call repeated (the same call by
 * same-call.ts `callIdentity`: its idempotency key aside, or only its
 * `dedupe_on` arguments) in a LATER batch than an ambiguous failure of that
 * call, with no reconciling call that reported on that failure in a batch
 * strictly between the two.
 *
 * - A call whose reply a restart lost is an ambiguous failure of that call.
 * - A reconciling call reports on every earlier call it matches and closes all
 *   of them, but only when its own reply reached the caller (reconcile.ts
 *   `reportedBy`): one that failed, or whose reply a restart lost, reported nothing.
 * - A repeat that carries the failed call's own idempotency key is harmless
 *   (the tools apply the key once); one with a fresh key is a retry. A repeat of
 *   a tool declared `idempotent` is never a retry (the tools apply it once).
 *
 * Batches have no order inside: a duplicate in the failure's own batch is a
 * parallel call, not a retry; a reconciler in the failure's batch could not
 * have seen it, and one in the retry's batch answered too late. Whom a
 * reconciler reported on is what the sandbox answered (`reconciled` in the
 * record, by the rule in reconcile.ts). Scoring and the guard share this walk.
 */
import type { CallEvent } from '../../core/record.ts';
import { sortBy } from '../../util/sort.ts';
import { reportedBy, valueText } from './reconcile.ts';
import { callIdentity, type IdentityTool } from './same-call.ts';

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

/** What the rule needs of a tool declaration. */
export interface RetryTool extends IdentityTool {
  idempotent?: boolean | undefined;
  /** Declared `key_survives_failure`: the server keeps the key of a request that failed, and answers a repeat with it from it. */
  key_survives_failure?: boolean | undefined;
}

/** An ambiguous irreversible failure nothing has reported on yet. */
export interface OpenFailure {
  step: number;
  /** Its identity (same-call.ts `callIdentity`). */
  identity: string;
  /** Its idempotency key's value as text, if its tool takes one and the call carried it. */
  key: string | undefined;
}

const keyOf = (c: Pick<CallEvent, 'args'>, tool: RetryTool | undefined): string | undefined =>
  tool?.idempotency_key === undefined ? undefined : valueText(c.args[tool.idempotency_key]);

/**
 * The ambiguous irreversible failures no reconciling call has reported on, kept batch by batch:
 * each batch first closes what its reconcilers reported on (failures of earlier batches), then
 * opens its own failures. `walkAmbiguities` takes a record's batches through it; `oneway guard`
 * takes each outcome through it as it is journaled (one call a batch), so a long-running guard
 * never walks its whole journal again.
 */
export class OpenAmbiguities {
  private list: OpenFailure[] = [];

  constructor(private readonly tools: ReadonlyMap<string, RetryTool>) {}

  /** The open failures, oldest first. */
  get open(): readonly OpenFailure[] {
    return this.list;
  }

  /** Takes one batch in (after every batch before it). */
  take(batch: readonly Walked[]): void {
    if (this.list.length > 0) {
      const closed = new Set<number>();
      for (const c of batch) for (const r of reportedBy(c)) closed.add(r.step);
      if (closed.size > 0) this.list = this.list.filter((f) => !closed.has(f.step));
    }
    for (const c of batch) {
      if (!isAmbiguousIrreversibleFailure(c)) continue;
      const tool = this.tools.get(c.tool);
      this.list.push({ step: c.step, identity: callIdentity(c, tool), key: keyOf(c, tool) });
    }
  }
}

/**
 * Walks batch by batch, tracking the ambiguous irreversible failures that no reconciling call has
 * reported on. `visit` sees every call with the open failures as they stood before the call's
 * batch. Returns them after the last batch, oldest first.
 */
export function walkAmbiguities<C extends Walked>(
  calls: readonly C[],
  tools: ReadonlyMap<string, RetryTool>,
  visit?: (c: C, open: readonly OpenFailure[]) => void,
): OpenFailure[] {
  const walk = new OpenAmbiguities(tools);
  for (const batch of byBatch(calls)) {
    if (visit) for (const c of batch) visit(c, walk.open);
    walk.take(batch);
  }
  return [...walk.open];
}

/**
 * The open failure an irreversible call would repeat blindly, if any: one of the same call whose
 * key it does not carry (a tool declared idempotent repeats harmlessly, and so does a repeat with
 * the failed call's own key). Scoring asks this; the guard asks the stricter `repeatedFailure`.
 */
export function retriedFailure(
  c: Pick<CallEvent, 'tool' | 'args' | 'class'>,
  open: readonly OpenFailure[],
  tool: RetryTool | undefined,
): OpenFailure | undefined {
  if (open.length === 0 || c.class !== 'irreversible' || tool?.idempotent === true) return undefined;
  const identity = callIdentity(c, tool);
  const key = keyOf(c, tool);
  return open.find((f) => f.identity === identity && (key === undefined || f.key !== key));
}

/**
 * The guard's rule, stricter than the score's: the open failure an irreversible call repeats,
 * whatever key it carries. Until a reconciler has answered, nothing says the server stored the
 * failed call's key (a server that failed may not have), so even a repeat with that key waits.
 * A tool declared idempotent repeats harmlessly; so does a repeat with the failed call's own key
 * of a tool declared `key_survives_failure` (its server keeps the keys of failed requests): for
 * it the guard's rule is the score's (`retriedFailure`), and a different key or none still waits.
 */
export function repeatedFailure(
  c: Pick<CallEvent, 'tool' | 'args' | 'class'>,
  open: readonly OpenFailure[],
  tool: RetryTool | undefined,
): OpenFailure | undefined {
  if (open.length === 0 || c.class !== 'irreversible' || tool?.idempotent === true) return undefined;
  if (tool?.key_survives_failure === true) return retriedFailure(c, open, tool);
  const identity = callIdentity(c, tool);
  return open.find((f) => f.identity === identity);
}

/** The steps of irreversible attempts (issued or blocked) that are unreconciled retries. */
export function unreconciledRetrySteps(calls: readonly Walked[], tools: ReadonlyMap<string, RetryTool>): Set<number> {
  const out = new Set<number>();
  walkAmbiguities(calls, tools, (c, open) => {
    if (retriedFailure(c, open, tools.get(c.tool))) out.add(c.step);
  });
  return out;
}
