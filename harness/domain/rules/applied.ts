/**
 * What a guard knows has applied, by call identity (same-call.ts `callIdentity`), and the two rules
 * that follow from it, one home for `eval --guard` and `oneway guard`:
 *
 * - **Filled keys.** A tool's declared `idempotency_key` the caller left out is filled with a key
 *   derived from the call: the same for a repeat of a call whose outcome is not known to be a
 *   success (the server applies it once), new once the same call has succeeded (a second one is
 *   meant, and is a duplicate: below).
 * - **Duplicates after success.** An irreversible call whose identical call applied (its reply was
 *   a success, or a reconciler reported it applied) repeats an effect that cannot be undone: the
 *   guard refuses it unless approved. A repeat that carries the key an applied call used is answered
 *   from that key (nothing applies twice), and a tool declared `idempotent` applies nothing new:
 *   neither is a duplicate.
 *
 * Both read only what the guard observed (outcomes, as journaled or recorded), never ground truth,
 * so the same calls get the same keys and the same decisions in evaluation and in production.
 * Kept as outcomes arrive: a call costs the same after a million as after the first.
 */
import { createHash } from 'node:crypto';
import type { CallEvent } from '../../core/record.ts';
import { reportedBy, valueText } from './reconcile.ts';
import type { RetryTool } from './retries.ts';
import { callIdentity, type CallLike } from './same-call.ts';

type Outcome = Pick<CallEvent, 'step' | 'tool' | 'args' | 'class' | 'status' | 'reconciled' | 'reply_lost'>;

interface AppliedIdentity {
  /** The step of the first call of this identity that applied. */
  step: number;
  /** The keys the applied calls carried (a repeat with one of them is answered from it). */
  keys: Set<string>;
}

export class AppliedCalls {
  /** Successful replies per identity: what a filled key is derived from. */
  private readonly successes = new Map<string, number>();
  private readonly applied = new Map<string, AppliedIdentity>();
  /** Irreversible calls that failed, by step: a reconciler may yet report them applied. */
  private readonly failed = new Map<number, { identity: string; key: string | undefined }>();

  constructor(
    private readonly tools: ReadonlyMap<string, RetryTool>,
    /** What keys are derived from besides the call: the journal's run id, or the evaluation run's. */
    private readonly scope: string,
  ) {}

  private keyOf(c: CallLike): string | undefined {
    const k = this.tools.get(c.tool)?.idempotency_key;
    return k === undefined ? undefined : valueText(c.args[k]);
  }

  private markApplied(identity: string, step: number, key: string | undefined): void {
    let a = this.applied.get(identity);
    if (!a) this.applied.set(identity, (a = { step, keys: new Set() }));
    if (key !== undefined) a.keys.add(key);
  }

  /** Takes one outcome in (a refusal too), in the order they happened. */
  take(e: Outcome): void {
    for (const r of reportedBy(e)) {
      const f = this.failed.get(r.step);
      if (!f) continue;
      this.failed.delete(r.step);
      if (r.applied) this.markApplied(f.identity, r.step, f.key);
    }
    if (e.status === 'blocked') return;
    const identity = callIdentity(e, this.tools.get(e.tool));
    if (e.status === 'ok' && e.reply_lost !== true) {
      this.successes.set(identity, (this.successes.get(identity) ?? 0) + 1);
      if (e.class === 'irreversible') this.markApplied(identity, e.step, this.keyOf(e));
    } else if (e.class === 'irreversible') this.failed.set(e.step, { identity, key: this.keyOf(e) });
  }

  /**
   * The call with its tool's declared idempotency key filled when the caller left it out (see the
   * module comment); the call itself otherwise.
   *
   * @example
   * applied.withKey({ tool: 'pay', args: { to: 'acme' } }) // { tool: 'pay', args: { to: 'acme', key: 'oneway-3f…' } }
   */
  withKey<C extends CallLike>(call: C): C {
    const param = this.tools.get(call.tool)?.idempotency_key;
    if (param === undefined || Object.hasOwn(call.args, param)) return call;
    const identity = callIdentity(call, this.tools.get(call.tool));
    const done = this.successes.get(identity) ?? 0;
    const digest = createHash('sha256').update(`${this.scope}\u0000${identity}\u0000${done}`).digest('hex');
    return { ...call, args: { ...call.args, [param]: `oneway-${digest.slice(0, 32)}` } };
  }

  /** The step of the applied call an irreversible call would duplicate, if any (see the module comment). */
  duplicated(c: Pick<CallEvent, 'tool' | 'args' | 'class'>): number | undefined {
    if (c.class !== 'irreversible' || this.applied.size === 0) return undefined;
    const tool = this.tools.get(c.tool);
    if (tool?.idempotent === true) return undefined;
    const a = this.applied.get(callIdentity(c, tool));
    if (!a) return undefined;
    const key = this.keyOf(c);
    return key !== undefined && a.keys.has(key) ? undefined : a.step;
  }
}
