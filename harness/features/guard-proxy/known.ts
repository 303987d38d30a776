/**
 * What `oneway guard` knows: nothing of the real server's state but what it
 * observed. A `World` that starts from `--facts` and takes the declared effects
 * of every call that succeeded through the guard (rendered over its arguments
 * and the server's reply, as the sandbox renders them), and the journal's call
 * events, from which the open ambiguous failures (retries.ts) and the calls a
 * reconciler reports on (reconcile.ts) follow by the same rules as in
 * evaluation. The guard's decision (engine/guard/decide.ts) is asked about a
 * call as this world assesses it.
 *
 * Kept as the journal grows, never walked again: the open failures take each
 * outcome in as it is journaled; of the calls that reached the server, only
 * those some tool reconciles are kept (what a reconciler may report on), and
 * of the successes only a count per call (what a filled idempotency key is
 * derived from). A call costs the same after a million as after the first.
 */
import { createHash } from 'node:crypto';
import { effectFootprint } from '../../core/effects/index.ts';
import { mustParseFact } from '../../core/facts/fact.ts';
import type { CallEvent, Reconciled, RecordEvent } from '../../core/record.ts';
import type { Scenario, Tool, ToolClass } from '../../core/scenario.ts';
import type { TemplateContext } from '../../core/templates/render.ts';
import { World } from '../../core/world.ts';
import { effectiveClass } from '../../domain/rules/classes.ts';
import {
  applyDeclaredEffects,
  compensationOf,
  confirmationFact,
  declaredEstablishes,
  preconditionsIn,
} from '../../domain/rules/declared.ts';
import { changedWorld } from '../../domain/rules/effects.ts';
import { reconciledIndices, reportedTools, type ReconcileTool } from '../../domain/rules/reconcile.ts';
import { OpenAmbiguities, retriedFailure, type OpenFailure } from '../../domain/rules/retries.ts';
import { callIdentity, confirmationKey } from '../../domain/rules/same-call.ts';
import { lostIntentCall } from '../../engine/record/reader.ts';

/** A call as the guard assesses it: its class (null: not declared), its preconditions in what is known. */
export interface Assessment {
  tool: Tool | undefined;
  class: ToolClass | null;
  held: string[];
  missing: string[];
  establishes: string[];
}

/** What a successful reply did: the effects the declarations give it, and its compensation. */
export interface Observed {
  effects: CallEvent['effects'];
  compensation: CallEvent['compensation'];
  effect_id: string | null;
  approved?: boolean;
  reconciled?: Reconciled | null;
}

export class KnownWorld {
  readonly world: World;
  private readonly tools: ReadonlyMap<string, Tool>;
  private readonly classes: ReadonlyMap<string, ToolClass>;
  private readonly reconcileView: ReadonlyMap<string, ReconcileTool>;
  private readonly base: { inputs: Record<string, unknown>; deployment: Record<string, unknown> };
  /** The ambiguous failures no reconciler has reported on, over every outcome journaled. */
  private readonly ambiguities: OpenAmbiguities;
  /**
   * The calls of tools some tool reconciles that reached the server and whose outcome is known,
   * oldest first: what a reconciler may report on.
   */
  private readonly reached: CallEvent[] = [];
  private readonly reconciledTools: ReadonlySet<string>;
  /** Successes by call identity, for the tools that declare an idempotency key. */
  private readonly successes = new Map<string, number>();
  /** Yeses to concrete calls not consumed yet (`requires_confirmation`), by confirmation key. */
  private readonly licenses = new Map<string, number>();

  constructor(
    readonly scenario: Scenario,
    facts: readonly string[],
    /** The journal's run id: keys the guard fills are derived from it, so they hold across its restarts. */
    private readonly runId: string,
  ) {
    this.world = World.from({ facts: [...facts], tables: {} });
    this.tools = new Map(scenario.tools.map((t) => [t.name, t]));
    this.classes = new Map(scenario.tools.map((t) => [t.name, effectiveClass(t, scenario.deployment)]));
    this.reconcileView = new Map(
      scenario.tools.map((t) => [
        t.name,
        {
          name: t.name,
          reconciles: reportedTools(t, scenario.tools),
          parameters: Object.keys(t.parameters.properties),
        },
      ]),
    );
    this.base = { inputs: scenario.inputs, deployment: scenario.deployment };
    this.ambiguities = new OpenAmbiguities(this.tools);
    this.reconciledTools = new Set([...this.reconcileView.values()].flatMap((v) => v.reconciles));
  }

  /**
   * Learns back what a journal says happened: the facts its calls' effects established and revoked,
   * as journaled (an effect's footprint: exactly the facts it added and removed), its outcomes in
   * order, and intents left without one. Tables are not learnt back: nothing the guard decides
   * reads them.
   */
  replay(events: readonly RecordEvent[]): void {
    const answered = new Set(events.flatMap((e) => (e.type === 'call' ? [e.step] : [])));
    for (const e of events) {
      if (e.type === 'call') {
        for (const effect of e.effects) {
          const f = effectFootprint(effect);
          // A fact a revoke removed, as a pattern, matches exactly what that revoke matched then.
          for (const text of f.factsRemoved) this.world.revoke(mustParseFact(text));
          for (const text of f.factsAdded) this.world.establish(mustParseFact(text), text);
        }
        this.record(e);
      } else if (e.type === 'intent' && !answered.has(e.step)) this.record(lostIntentCall(e));
    }
  }

  declared(tool: string): Tool | undefined {
    return this.tools.get(tool);
  }

  classOf(tool: string): ToolClass | null {
    return this.classes.get(tool) ?? null;
  }

  private ctx(args: Record<string, unknown>, result?: unknown): TemplateContext {
    return result === undefined
      ? { inputs: this.base.inputs, deployment: this.base.deployment, args }
      : { inputs: this.base.inputs, deployment: this.base.deployment, args, result };
  }

  /** A call as things stand: its class and which of its preconditions hold in what is known. */
  assess(call: { tool: string; args: Record<string, unknown> }): Assessment {
    const tool = this.tools.get(call.tool);
    if (!tool) return { tool, class: null, held: [], missing: [], establishes: [] };
    const ctx = this.ctx(call.args);
    // Tables are not known here: a comparison over a looked-up row does not hold, so the call is refused.
    const pre = preconditionsIn(tool, ctx, this.world);
    if (tool.requires_confirmation)
      ((this.licenses.get(confirmationKey(call, tool)) ?? 0) > 0 ? pre.held : pre.missing).push(
        confirmationFact(tool.name, call.args),
      );
    return {
      tool,
      class: this.classes.get(tool.name) as ToolClass,
      ...pre,
      establishes: declaredEstablishes(tool, ctx),
    };
  }

  /** The ambiguous failures no reconciling call has reported on yet (retries.ts, over the journal). */
  openFailures(): readonly OpenFailure[] {
    return this.ambiguities.open;
  }

  /**
   * The open failure a call would repeat blindly. A tool the file does not declare is judged as an
   * irreversible one would be: nothing says a repeat of it is harmless.
   */
  retried(
    call: { tool: string; args: Record<string, unknown> },
    open: readonly OpenFailure[],
  ): OpenFailure | undefined {
    const cls = this.classes.get(call.tool) ?? 'irreversible';
    return retriedFailure({ ...call, class: cls }, open, this.tools.get(call.tool));
  }

  /** How many calls a reconciler forwarded now may report on (those whose outcome is known now: an index into them). */
  reachedSoFar(): number {
    return this.reached.length;
  }

  /**
   * The key the guard fills in for a tool's declared `idempotency_key` the client left out, derived
   * from the call: the same for a repeat of a call whose outcome is not known to be a success (the
   * server applies it once), new once the same call has succeeded (a second payment is meant).
   */
  keyFor(call: { tool: string; args: Record<string, unknown> }): string {
    const identity = callIdentity(call, this.tools.get(call.tool));
    const done = this.successes.get(identity) ?? 0;
    const digest = createHash('sha256').update(`${this.runId}\u0000${identity}\u0000${done}`).digest('hex');
    return `oneway-${digest.slice(0, 32)}`;
  }

  /**
   * Takes a successful reply into what is known: the tool's declared effects applied over its
   * arguments and the reply, its compensation, and for a reconciler the calls it reports on (those
   * whose outcome was known when it was forwarded: `reachedBefore`).
   */
  observe(
    toolName: string,
    args: Record<string, unknown>,
    result: unknown,
    cls: ToolClass,
    step: number,
    reachedBefore?: number,
  ): Observed {
    const tool = this.tools.get(toolName);
    if (!tool) return { effects: [], compensation: null, effect_id: null };
    const out: Observed = { effects: [], compensation: null, effect_id: null };
    const reply = result !== null && typeof result === 'object' ? (result as Record<string, unknown>) : {};
    if (tool.kind !== 'action' && typeof reply.approved === 'boolean') out.approved = reply.approved;
    if (reachedBefore !== undefined && (this.reconcileView.get(tool.name)?.reconciles.length ?? 0) > 0)
      out.reconciled = this.reconciled(tool, args, reply, reachedBefore);
    if (out.approved === false) return out;
    const ctx = this.ctx(args, result);
    out.effects = applyDeclaredEffects(tool, this.world, ctx);
    out.compensation = compensationOf(tool, cls, ctx);
    out.effect_id = changedWorld(out) ? `eff-${step}` : null;
    return out;
  }

  /** Whom a reconciler's reply reports on: the same rule as the sandbox's; whether each applied is what the reply's `applied` says. */
  private reconciled(
    tool: Tool,
    args: Record<string, unknown>,
    reply: Record<string, unknown>,
    before: number,
  ): Reconciled | null {
    const earlier = this.reached.slice(0, before);
    const hits = reconciledIndices(this.reconcileView.get(tool.name) as ReconcileTool, args, earlier, (n) =>
      this.reconcileView.get(n),
    );
    if (hits.length === 0) return null;
    const applied = reply.applied === true;
    const calls = hits.map((i) => {
      const e = earlier[i] as CallEvent;
      return { tool: e.tool, step: e.step, applied };
    });
    const last = calls[calls.length - 1] as { tool: string; step: number; applied: boolean };
    return { tool: last.tool, step: last.step, applied, calls };
  }

  /** Takes a journaled outcome (a refusal too) into the walk of ambiguities and reconciliation. */
  record(e: CallEvent): void {
    // One call a batch: the journal's outcomes in the order they were journaled (a reconciler's
    // report covers only calls journaled before it was forwarded).
    this.ambiguities.take([e]);
    if (e.status !== 'blocked' && this.reconciledTools.has(e.tool)) this.reached.push(e);
    const tool = this.tools.get(e.tool);
    if (e.status === 'ok' && tool?.idempotency_key !== undefined) {
      const identity = callIdentity(e, tool);
      this.successes.set(identity, (this.successes.get(identity) ?? 0) + 1);
    }
    // A yes the human gave (the server's reply said so) licenses one later matching call; such a call consumes one.
    if (tool?.kind === 'confirmation' && e.status === 'ok' && e.approved === true) {
      const target = typeof e.args.tool === 'string' ? e.args.tool : '';
      const args = (e.args.args ?? {}) as Record<string, unknown>;
      const key = confirmationKey({ tool: target, args }, this.tools.get(target));
      this.licenses.set(key, (this.licenses.get(key) ?? 0) + 1);
    }
    if (tool?.requires_confirmation && e.status !== 'blocked') {
      const key = confirmationKey(e, tool);
      const left = this.licenses.get(key) ?? 0;
      if (left > 0) this.licenses.set(key, left - 1);
    }
  }
}
