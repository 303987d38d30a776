/**
 * What `oneway guard` knows: nothing of the real server's state but what it
 * observed. For each client session a `World` that starts from `--facts` and
 * takes the declared effects of every call of that session that succeeded
 * through the guard (rendered over its arguments and the server's reply, as the
 * sandbox renders them), and the journal's call events, from which the open
 * ambiguous failures (retries.ts) and the calls a reconciler reports on
 * (reconcile.ts) follow by the same rules as in evaluation. The guard's
 * decision (engine/guard/decide.ts) is asked about a call as this world
 * assesses it.
 *
 * Facts are per session: what a session observed licenses that session's
 * calls, never another's, and a guard started again on a journal starts with
 * no observed fact (the journal's lines are not evidence: anyone who can write
 * the file can write "carol verified"). What the journal still gives a
 * restarted guard is what refuses, never what licenses: its open ambiguous
 * failures, what operators settled, and the keys it filled. Facts also expire
 * with what they were read from: a call whose declared effects write a table
 * revokes, in every session, the facts established by reading that table (a
 * tool's `reads`), so yesterday's read does not license today's overwrite; and
 * a fact a declared effect revokes is revoked in every session.
 *
 * Kept as the journal grows, never walked again: the open failures take each
 * outcome in as it is journaled; of the calls that reached the server, only
 * those some tool reconciles are kept (what a reconciler may report on), and
 * what applied by call identity (applied.ts: what a filled idempotency key is
 * derived from, and what a repeat would duplicate). A call costs the same after
 * a million as after the first.
 */
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
import { reconciledIndices, reportedTools, tablesWritten, type ReconcileTool } from '../../domain/rules/reconcile.ts';
import { replyAnswer } from '../../domain/rules/reply-condition.ts';
import { AppliedCalls } from '../../domain/rules/applied.ts';
import { OpenAmbiguities, repeatedFailure, type OpenFailure } from '../../domain/rules/retries.ts';
import { confirmationKey } from '../../domain/rules/same-call.ts';
import { lostIntentCall, settleReport } from '../../engine/record/reader.ts';

/** A session's license for one concrete call. */
const licenseKey = (session: string, key: string): string => `${session}\u0000${key}`;

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
  /** What each client session observed, from `--facts` on. */
  private readonly worlds = new Map<string, World>();
  /** Facts established by reading each table (a tool's `reads`), in any session: what a write to it revokes. */
  private readonly readFrom = new Map<string, Set<string>>();
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
  /** Failed calls a reconciler answered about with a reply that could not be read, and why. */
  private readonly unread = new Map<number, string>();
  /** What applied, by call identity: filled keys and duplicates (applied.ts). */
  private readonly applied: AppliedCalls;
  /**
   * Yeses to concrete calls not consumed yet (`requires_confirmation`), by session and confirmation
   * key: granted only by a reply this guard saw (never learnt from a journal), like facts.
   */
  private readonly licenses = new Map<string, number>();

  constructor(
    readonly scenario: Scenario,
    private readonly facts: readonly string[],
    /** The journal's run id: keys the guard fills are derived from it, so they hold across its restarts. */
    runId: string,
  ) {
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
    this.applied = new AppliedCalls(this.tools, runId);
    this.reconciledTools = new Set([...this.reconcileView.values()].flatMap((v) => v.reconciles));
  }

  /**
   * Learns back what a journal says happened, as far as it refuses: its outcomes in order (open
   * ambiguous failures, the calls a reconciler may report on, the keys filled), intents left
   * without one, and what operators settled. Never its facts: those are per session (see above).
   */
  replay(events: readonly RecordEvent[]): void {
    const answered = new Set(events.flatMap((e) => (e.type === 'call' ? [e.step] : [])));
    for (const e of events) {
      if (e.type === 'call') this.record(e);
      else if (e.type === 'intent' && !answered.has(e.step)) this.record(lostIntentCall(e));
      else if (e.type === 'settle') this.ambiguities.take([settleReport(e)]);
    }
  }

  /** What a session observed (a new session starts from `--facts`). */
  private worldOf(session: string): World {
    let w = this.worlds.get(session);
    if (!w) {
      w = World.from({ facts: [...this.facts], tables: {} });
      this.worlds.set(session, w);
    }
    return w;
  }

  /** Revokes a fact, as an effect's footprint names it, in every session's world. */
  private revokeEverywhere(text: string): void {
    const fact = mustParseFact(text);
    for (const w of this.worlds.values()) w.revoke(fact);
  }

  /** A call that may have written its tables: the facts read from them no longer hold, in any session. */
  private wrote(tool: Tool): void {
    for (const table of tablesWritten(tool)) {
      const read = this.readFrom.get(table);
      if (!read) continue;
      for (const text of read) this.revokeEverywhere(text);
      this.readFrom.delete(table);
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

  /** A call of a session as things stand: its class and which of its preconditions hold in what that session knows. */
  assess(call: { tool: string; args: Record<string, unknown> }, session: string): Assessment {
    const tool = this.tools.get(call.tool);
    if (!tool) return { tool, class: null, held: [], missing: [], establishes: [] };
    const ctx = this.ctx(call.args);
    // Tables are not known here: a comparison over a looked-up row does not hold, so the call is refused.
    const pre = preconditionsIn(tool, ctx, this.worldOf(session));
    if (tool.requires_confirmation)
      ((this.licenses.get(licenseKey(session, confirmationKey(call, tool))) ?? 0) > 0 ? pre.held : pre.missing).push(
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
   * The open failure a call would repeat (retries.ts `repeatedFailure`: whatever its key, unless the tool declares `key_survives_failure`). A tool the
   * file does not declare is judged as an irreversible one would be: nothing says a repeat of it is
   * harmless.
   */
  retried(
    call: { tool: string; args: Record<string, unknown> },
    open: readonly OpenFailure[],
  ): OpenFailure | undefined {
    const cls = this.classes.get(call.tool) ?? 'irreversible';
    return repeatedFailure({ ...call, class: cls }, open, this.tools.get(call.tool));
  }

  /** The step of the applied call this one would duplicate (applied.ts); an undeclared tool as an irreversible one. */
  duplicated(call: { tool: string; args: Record<string, unknown> }): number | undefined {
    return this.applied.duplicated({ ...call, class: this.classes.get(call.tool) ?? 'irreversible' });
  }

  /** How many calls a reconciler forwarded now may report on (those whose outcome is known now: an index into them). */
  reachedSoFar(): number {
    return this.reached.length;
  }

  /** The call with its declared idempotency key filled when the client left it out (applied.ts `withKey`). */
  withKey(call: { tool: string; args: Record<string, unknown> }): { tool: string; args: Record<string, unknown> } {
    return this.applied.withKey(call);
  }

  /**
   * Takes a successful reply into what is known: the tool's declared effects applied over its
   * arguments and the reply, its compensation, and for a reconciler the calls it reports on (those
   * whose outcome was known when it was forwarded: `reachedBefore`).
   */
  observe(
    session: string,
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
      out.reconciled = this.reconciled(tool, args, result, step, reachedBefore);
    if (out.approved === false) return out;
    // A yes the human gave (the server's reply said so) licenses one later matching call of this session.
    if (tool.kind === 'confirmation' && out.approved === true) {
      const target = typeof args.tool === 'string' ? args.tool : '';
      const asked = (args.args ?? {}) as Record<string, unknown>;
      const key = licenseKey(session, confirmationKey({ tool: target, args: asked }, this.tools.get(target)));
      this.licenses.set(key, (this.licenses.get(key) ?? 0) + 1);
    }
    const ctx = this.ctx(args, result);
    // Its writes first: what it establishes itself holds after them.
    this.wrote(tool);
    out.effects = applyDeclaredEffects(tool, this.worldOf(session), ctx);
    for (const effect of out.effects) {
      const f = effectFootprint(effect);
      // A fact a declared effect revoked no longer holds for any session.
      for (const text of f.factsRemoved) this.revokeEverywhere(text);
      // What a read of a table established expires when the table is written.
      for (const table of tool.reads)
        for (const text of f.factsAdded) {
          const read = this.readFrom.get(table) ?? new Set<string>();
          read.add(text);
          this.readFrom.set(table, read);
        }
    }
    out.compensation = compensationOf(tool, cls, ctx);
    out.effect_id = changedWorld(out) ? `eff-${step}` : null;
    return out;
  }

  /**
   * Whom a reconciler's reply reports on: the same rule as the sandbox's. Whether each applied is
   * what the reply says by the condition its `reconciles:` entry declares for that call's tool, else
   * by its `applied` field (reply-condition.ts). A reply that cannot be read for one of them reports
   * on none: the failures stay open, and why is kept for the refusal of a repeat.
   */
  private reconciled(
    tool: Tool,
    args: Record<string, unknown>,
    result: unknown,
    step: number,
    before: number,
  ): Reconciled | null {
    const earlier = this.reached.slice(0, before);
    const hits = reconciledIndices(this.reconcileView.get(tool.name) as ReconcileTool, args, earlier, (n) =>
      this.reconcileView.get(n),
    );
    if (hits.length === 0) return null;
    const ctx = this.ctx(args, result);
    const calls: { tool: string; step: number; applied: boolean }[] = [];
    for (const i of hits) {
      const e = earlier[i] as CallEvent;
      const entry = tool.reconciles.find((r) => typeof r !== 'string' && r.tool === e.tool);
      const answer = replyAnswer(typeof entry === 'object' ? entry.applied : undefined, ctx);
      if (!answer.ok) {
        const why = `${tool.name} answered at step ${step}, but ${answer.why}: it settles nothing`;
        for (const j of hits) this.unread.set((earlier[j] as CallEvent).step, why);
        return null;
      }
      calls.push({ tool: e.tool, step: e.step, applied: answer.value });
    }
    for (const c of calls) this.unread.delete(c.step);
    const last = calls[calls.length - 1] as { tool: string; step: number; applied: boolean };
    return { tool: last.tool, step: last.step, applied: calls.some((c) => c.applied), calls };
  }

  /** Why the last reconciler that answered about a failed call settled nothing, if one did. */
  unreadReport(failedStep: number): string | undefined {
    return this.unread.get(failedStep);
  }

  /** Takes a journaled outcome (a refusal too) into the walk of ambiguities and reconciliation. */
  record(e: CallEvent): void {
    // One call a batch: the journal's outcomes in the order they were journaled (a reconciler's
    // report covers only calls journaled before it was forwarded).
    this.ambiguities.take([e]);
    if (e.status !== 'blocked' && this.reconciledTools.has(e.tool)) this.reached.push(e);
    const tool = this.tools.get(e.tool);
    // A write that may have happened (an ambiguous failure) expires what was read as surely as one that did.
    if (tool && e.status === 'fault' && (e.ambiguous || e.reply_lost === true)) this.wrote(tool);
    this.applied.take(e);
    // A call that needs a yes consumes one of its session's, whatever it came to.
    if (tool?.requires_confirmation && e.status !== 'blocked') {
      const key = licenseKey(e.session ?? '', confirmationKey(e, tool));
      const left = this.licenses.get(key) ?? 0;
      if (left > 0) this.licenses.set(key, left - 1);
    }
  }
}
