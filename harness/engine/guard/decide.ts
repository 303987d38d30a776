/**
 * The guard's one decision: whether a call may go through, from what is known
 * about it when it is made. `eval --guard` (guard.ts) knows the record of the
 * run (what was observed of the sandbox); `oneway guard` (harness/features/guard-proxy/)
 * knows what it observed through it: the facts the declared effects of calls that succeeded
 * established, `--facts`, and the answers of approvers. Both describe the call
 * as a `Situation` and ask `decide`, so the same declarations and policy give
 * the same answer in evaluation and in production.
 *
 * The rule per class (policy.ts): `auto` passes; `block` refuses; `gated` and
 * `approval` check, in this order: that the call is alone (no other call of its
 * batch, or of its session in flight), that it does not repeat an ambiguous
 * failure no reconciling call has reported on, whether it duplicates a call
 * that applied (applied.ts), and that its preconditions hold; then a human is
 * asked, last, for `approval` and for a duplicate, so nobody is bothered about a
 * call that would be refused anyway. (Before `decide`, the callers check that
 * the tool is declared, fill its idempotency key and check its arguments.)
 *
 * @example
 * const d = decide({ tool: 'send_email', class: 'irreversible', missing: [], alongside: 0, scope: 'batch', retried: () => undefined, duplicated: () => undefined }, policy);
 * if ('ask' in d) approved = askSomeone(); // then decide again with `approved`
 */
import type { ToolClass } from '../../core/scenario.ts';
import type { OpenFailure } from '../../domain/rules/retries.ts';
import type { Verdict } from '../runner/gate.ts';
import type { Policy, PolicyRule } from './policy.ts';

/** What is known about a call when the guard decides. */
export interface Situation {
  tool: string;
  /** Its effective class; null for a tool the declarations do not name (production only: evaluation rejects it first). */
  class: ToolClass | null;
  /** Its preconditions that do not hold in what is known. */
  missing: readonly string[];
  /** How many other calls are made with it: the rest of its batch, or the session's other calls pending. */
  alongside: number;
  /** Where those other calls are: one batch (evaluation) or one MCP session (production). */
  scope: 'batch' | 'session';
  /** The ambiguous failure this call would repeat (retries.ts `repeatedFailure`); asked only when it matters. */
  retried(): OpenFailure | undefined;
  /** The step of the applied call this one would duplicate (applied.ts `duplicated`); asked only when it matters. */
  duplicated(): number | undefined;
  /** The human's answer once asked (undefined: not asked yet), and who answered, for the refusal. */
  approval?: { approved: boolean; by?: string } | undefined;
}

/**
 * Pass, refuse (with the reason and the missing preconditions), or ask a human first and decide
 * again; `repeats`: the step of the applied call it would duplicate, which the human is told.
 */
export type Decision = Verdict | { ask: true; repeats?: number };

const PASS: Verdict = { pass: true };

/** The policy rule for a call's class; an undeclared tool follows `undeclared` (blocked unless the policy says otherwise). */
export function ruleFor(cls: ToolClass | null, policy: Policy): PolicyRule {
  return cls === null ? (policy.undeclared ?? 'block') : policy[cls];
}

/** Whether the rule needs to know the calls made alongside (the proxy waits a moment to see them). */
export const screensSiblings = (rule: PolicyRule): boolean => rule === 'gated' || rule === 'approval';

/**
 * The decision for one call (see the module comment).
 *
 * @example
 * decide({ ...situation, missing: ['recipient_verified(email=bob@acme.example)'] }, DEFAULT_POLICY)
 * // { pass: false, reason: 'missing preconditions: recipient_verified(email=bob@acme.example)', missing: [...] }
 */
export function decide(s: Situation, policy: Policy): Decision {
  const rule = ruleFor(s.class, policy);
  if (rule === 'auto') return PASS;
  const missing = [...s.missing];
  if (rule === 'block')
    return {
      pass: false,
      reason:
        s.class === null
          ? `${s.tool} is not declared in the tools file, and undeclared tools are blocked by policy`
          : `${s.class} calls are blocked by policy`,
      missing,
    };
  // "a irreversible" is what evaluation records have always said; a session's refusal reads as English.
  const kind =
    s.class === null
      ? 'an undeclared'
      : s.scope === 'session' && s.class !== 'compensable'
        ? `an ${s.class}`
        : `a ${s.class}`;
  if (s.alongside > 0)
    return {
      pass: false,
      reason:
        s.scope === 'batch'
          ? `${kind} call must be alone in its batch (this batch has ${s.alongside + 1} calls)`
          : `${kind} call must be alone: ${s.alongside} other call${s.alongside === 1 ? '' : 's'} of this session ${s.alongside === 1 ? 'was' : 'were'} made with it or ${s.alongside === 1 ? 'is' : 'are'} in flight`,
      missing: [],
    };
  const retried = s.retried();
  if (retried)
    return {
      pass: false,
      reason: `unreconciled retry: the same call failed ambiguously at step ${retried.step} and nothing has reported on it since; call a reconciling tool first`,
      missing: [],
    };
  const repeats = s.duplicated();
  if (missing.length > 0) return { pass: false, reason: `missing preconditions: ${missing.join(', ')}`, missing };
  if (rule === 'approval' || repeats !== undefined) {
    if (s.approval === undefined) return repeats === undefined ? { ask: true } : { ask: true, repeats };
    if (!s.approval.approved)
      return {
        pass: false,
        reason:
          repeats === undefined
            ? `approval for ${s.tool} was denied${s.approval.by ? ` (${s.approval.by})` : ''}`
            : `duplicate: the same call applied at step ${repeats}, and approval to repeat it was denied${s.approval.by ? ` (${s.approval.by})` : ''}`,
        missing: [],
      };
  }
  return PASS;
}
