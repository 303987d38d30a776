/**
 * One run's sandbox: its world, virtual clock, seeded id and fault streams,
 * and the dispatch that turns a batch of calls into call events. Transports
 * (MSW over HTTP, or in process) both end here, so their records are equal.
 *
 * The sandbox does not enforce preconditions: a premature call takes effect,
 * which is exactly the danger oneway measures. It only records whether each
 * precondition held when the call was issued.
 */
import { formatFact, formatPattern } from '../../core/facts/fact.ts';
import { renderFact, renderPattern } from '../../core/facts/template.ts';
import {
  applyDeclaredEffects,
  compensationOf,
  confirmationFact,
  declaredEstablishes,
  derivedValueFailure,
  forEachFailure,
  preconditionsIn,
  resolveLookups,
  sequencesOf,
  validationFailure,
} from '../../domain/rules/declared.ts';
import { effectiveClass } from '../../domain/rules/classes.ts';
import { changedWorld } from '../../domain/rules/effects.ts';
import { isAmbiguousFailure } from '../../domain/rules/failures.ts';
import { callIdentity, confirmationKey } from '../../domain/rules/same-call.ts';
import { APPLIED_FIELD, APPROVED_FIELD, REPORTED_FIELD } from '../../domain/rules/reply.ts';
import {
  reconciledIndices,
  reportedTools,
  shownRows,
  valueText,
  type ReconcileTool,
} from '../../domain/rules/reconcile.ts';
import type { CallEvent, CallHead, Row, WorldSnapshot } from '../../core/record.ts';
import type { Fault, Scenario, Tool, ToolClass } from '../../core/scenario.ts';
import { renderText, renderValue, type TemplateContext } from '../../core/templates/render.ts';
import { createRng, deriveSeed, type Rng } from '../../util/rng.ts';
import { deepFreeze } from '../../util/json.ts';
import { RecentCache } from '../../util/recent.ts';
import { World } from '../../core/world.ts';

export interface BatchRequest {
  turn: number;
  batch: number;
  /** Step number of the first call in the batch. */
  firstStep: number;
  calls: { tool: string; args: Record<string, unknown> }[];
}

/** What the tool's server replies: the HTTP status and JSON body a client sees. */
export interface Reply {
  status: number;
  body: unknown;
}

interface LedgerEntry {
  tool: string;
  args: Record<string, unknown>;
  step: number;
  applied: boolean;
}

/** The rest; `approved`, `reconciled`, `deduplicated_of` and `key_conflict_of` are left out of the event when undefined. */
type CallTail = Omit<CallEvent, keyof CallHead | 'type' | 'blocked_reason' | 'reply_lost'>;

/**
 * A call event, keys in record order, built as one object literal and a few stores: spreading a
 * shared part into each event (and optional keys as spreads) cost more than the dispatch itself.
 */
function callEvent(h: CallHead, t: CallTail): CallEvent {
  const e = {
    type: 'call',
    step: h.step,
    turn: h.turn,
    batch: h.batch,
    pos: h.pos,
    batch_size: h.batch_size,
    t_ms: h.t_ms,
    tool: h.tool,
    args: h.args,
    class: h.class,
    read_only: h.read_only,
    kind: h.kind,
    preconditions: h.preconditions,
    establishes: h.establishes,
    latency_ms: t.latency_ms,
    status: t.status,
    http_status: t.http_status,
    applied: t.applied,
    ambiguous: t.ambiguous,
    result: t.result,
    error: t.error,
  } as CallEvent;
  if (t.approved !== undefined) e.approved = t.approved;
  if (t.reconciled !== undefined) e.reconciled = t.reconciled;
  if (t.deduplicated_of !== undefined) e.deduplicated_of = t.deduplicated_of;
  if (t.key_conflict_of !== undefined) e.key_conflict_of = t.key_conflict_of;
  e.effect_id = t.effect_id;
  e.effects = t.effects;
  e.compensation = t.compensation;
  return e;
}

/** A reused idempotency key with other arguments: refused as the IETF Idempotency-Key draft says, 422. */
const KEY_CONFLICT_STATUS = 422;
/** A call the tool refuses: its validation does not hold, or a derived value cannot be computed (422); a row it looks up is missing (404). */
const INVALID_STATUS = 422;
const NO_ROW_STATUS = 404;

/** A scripted fault's `ambiguous`, else: applied, or what the caller could not tell from its reply (failures.ts). */
function isAmbiguousFault(f: Fault, tool: Tool, error: string): boolean {
  return (
    f.ambiguous ??
    (f.applied || isAmbiguousFailure({ kind: 'reply', http_status: f.status, text: error }, tool.definite_failures))
  );
}

const STATUS_TEXT: Record<number, string> = {
  400: 'bad request',
  403: 'forbidden',
  404: 'not found',
  408: 'request timeout',
  409: 'conflict',
  429: 'too many requests',
  500: 'internal server error',
  502: 'bad gateway',
  503: 'service unavailable',
  504: 'gateway timeout',
};

/** What every run of a scenario shares, derived once per scenario object (a loaded scenario is never changed). */
interface Prepared {
  tools: ReadonlyMap<string, Tool>;
  classes: ReadonlyMap<string, ToolClass>;
  reconcileView: ReadonlyMap<string, ReconcileTool>;
  approvals: ReadonlyMap<string, Scenario['approvals'][string]>;
  /** The calls the scripted human confirms (`confirmations:`), by confirmation key (values rendered). */
  confirmed: ReadonlySet<string>;
  /** The tools with a derived value (`"= EXPR"`) in their effects, checked before a call applies. */
  derived: ReadonlySet<string>;
  /** The sequences each tool reads (`{{seq.NAME}}`), by tool name; only tools that read one. */
  sequences: ReadonlyMap<string, readonly string[]>;
  /** The initial world, rendered and parsed once; each run gets a clone. */
  world: World;
  /** Its snapshot, deep-frozen: every run's record shares it. */
  initial: WorldSnapshot;
  /** The goal and forbidden facts rendered (they read inputs and deployment only), with their texts. */
  goal: readonly RenderedGoal[];
  forbidden: readonly RenderedGoal[];
}

type RenderedGoal = ReturnType<typeof renderPattern> & { text: string };

const prepared = new RecentCache<Scenario, Prepared>(128);

function prepare(scenario: Scenario): Prepared {
  let p = prepared.get(scenario);
  if (p) return p;
  const tools = new Map<string, Tool>();
  const classes = new Map<string, ToolClass>();
  const reconcileView = new Map<string, ReconcileTool>();
  for (const t of scenario.tools) {
    tools.set(t.name, t);
    reconcileView.set(t.name, {
      name: t.name,
      reconciles: reportedTools(t, scenario.tools),
      parameters: Object.keys(t.parameters.properties),
    });
    classes.set(t.name, effectiveClass(t, scenario.deployment));
  }
  const ctx = { inputs: scenario.inputs, deployment: scenario.deployment };
  const approvals = new Map<string, Scenario['approvals'][string]>();
  for (const [k, v] of Object.entries(scenario.approvals)) approvals.set(renderText(k, ctx), v);
  const confirmed = new Set<string>();
  for (const c of scenario.confirmations) {
    const args = renderValue(c.args, ctx) as Record<string, unknown>;
    confirmed.add(confirmationKey({ tool: c.tool, args }, tools.get(c.tool)));
  }
  const sequences = new Map<string, string[]>();
  const derived = new Set<string>();
  for (const t of scenario.tools) {
    if (JSON.stringify(t.effects).includes('"= ')) derived.add(t.name);
    const names = sequencesOf(t);
    if (names.length > 0) sequences.set(t.name, names);
  }
  const world = World.from(initialWorld(scenario));
  const rendered = (g: string): RenderedGoal => {
    const r = renderPattern(g, ctx);
    return Object.assign(r, { text: formatPattern(r.fact, r.written) });
  };
  p = {
    tools,
    classes,
    reconcileView,
    approvals,
    confirmed,
    derived,
    sequences,
    world,
    initial: deepFreeze(world.snapshot()),
    goal: scenario.goal.map(rendered),
    forbidden: scenario.forbidden.map(rendered),
  };
  prepared.set(scenario, p);
  return p;
}

export class Sandbox {
  readonly world: World;
  /** Shared by every run of the scenario (prepare): never changed. */
  readonly classes: ReadonlyMap<string, ToolClass>;
  private readonly tools: ReadonlyMap<string, Tool>;
  private readonly idRng: Rng;
  private readonly faultRng: Rng;
  private readonly callCounts = new Map<string, number>();
  private readonly approvalAsks = new Map<string, number>();
  /** Calls that reached the tools, oldest first (what a reconciler can report on). */
  private readonly ledger: LedgerEntry[] = [];
  private readonly reconcileView: ReadonlyMap<string, ReconcileTool>;
  /**
   * Idempotency keys the tools applied: tool + key → the first call's step, reply and identity (its
   * arguments but the key). A key counts as used once a call with it applied.
   */
  private readonly keyed = new Map<string, { step: number; result: Record<string, unknown>; identity: string }>();
  /** Calls of tools declared idempotent that applied: identity → the first one's step and reply. */
  private readonly idempotentDone = new Map<string, { step: number; result: Record<string, unknown> }>();
  /** Every call that reached this sandbox, as the sandbox saw it (guards are checked against this, not the planner's word). */
  readonly received: {
    tool: string;
    args: Record<string, unknown>;
    class: ToolClass;
    missing: string[];
    batch_size: number;
  }[] = [];
  private clockMs = 0;
  private readonly initial: WorldSnapshot;
  private readonly goal: readonly RenderedGoal[];
  private readonly forbidden: readonly RenderedGoal[];
  /** Approval rules by action, keys rendered (they may use inputs and deployment). */
  private readonly approvals: ReadonlyMap<string, Scenario['approvals'][string]>;
  private readonly confirmed: ReadonlySet<string>;
  private readonly sequences: ReadonlyMap<string, readonly string[]>;
  private readonly derived: ReadonlySet<string>;
  /** Unconsumed confirmations: confirmation key → how many yeses are left to license calls. */
  private readonly licenses = new Map<string, number>();
  /** The last number each sequence gave (`{{seq.NAME}}`). */
  private readonly seqs = new Map<string, number>();

  constructor(
    readonly scenario: Scenario,
    readonly seed: number,
    /** For recovery's "intended state": steps whose effects are not applied (their ids and faults are still drawn). */
    private readonly opts: { suppressEffects?: ReadonlySet<number> } = {},
  ) {
    // Rendering and parsing the initial world, and the lookups, are the same for every run of the scenario.
    const p = prepare(scenario);
    this.tools = p.tools;
    this.reconcileView = p.reconcileView;
    this.approvals = p.approvals;
    this.confirmed = p.confirmed;
    this.sequences = p.sequences;
    this.derived = p.derived;
    this.classes = p.classes;
    this.idRng = createRng(deriveSeed(seed, 'ids'));
    this.faultRng = createRng(deriveSeed(seed, 'faults'));
    this.world = p.world.clone();
    this.initial = p.initial;
    this.goal = p.goal;
    this.forbidden = p.forbidden;
  }

  get nowMs(): number {
    return this.clockMs;
  }

  initialWorld(): WorldSnapshot {
    return structuredClone(this.initial);
  }

  /** The initial world as records hold it: deep-frozen, shared by every run of this scenario (no copy). */
  get initialSnapshot(): WorldSnapshot {
    return this.initial;
  }

  hasTool(name: string): boolean {
    return this.tools.has(name);
  }

  /**
   * What a call would be if issued now, without issuing it: its effective
   * class, which preconditions hold in the ground truth, and what it declares
   * it establishes. A guard decides from this; blocked calls are recorded with it.
   */
  assess(call: { tool: string; args: Record<string, unknown> }): {
    class: ToolClass;
    held: string[];
    missing: string[];
    establishes: string[];
  } {
    const tool = this.tools.get(call.tool);
    if (!tool) throw new Error(`internal: assess of undeclared tool "${call.tool}"`);
    const ctx = { inputs: this.scenario.inputs, deployment: this.scenario.deployment, args: call.args };
    const pre = this.preconditionsOf(tool, call.args, this.world);
    if (tool.requires_confirmation) {
      const licensed = (this.licenses.get(confirmationKey(call, tool)) ?? 0) > 0;
      (licensed ? pre.held : pre.missing).push(confirmationFact(tool.name, call.args));
    }
    return {
      class: this.classes.get(tool.name) as ToolClass,
      ...pre,
      establishes: declaredEstablishes(tool, ctx),
    };
  }

  /** Asks the scenario's scripted human about an action (approve, deny, or approve after N asks). */
  askHuman(action: string): boolean {
    return this.ask(action);
  }

  private preconditionsOf(
    tool: Tool,
    args: Record<string, unknown>,
    world: World,
  ): { held: string[]; missing: string[] } {
    const ctx: TemplateContext = { inputs: this.scenario.inputs, deployment: this.scenario.deployment, args };
    if (Object.keys(tool.lookups).length > 0) ctx.lookups = resolveLookups(tool, ctx, world);
    return preconditionsIn(tool, ctx, world);
  }

  /**
   * Whether a call of a tool that requires confirmation has an unconsumed yes to it; takes it when
   * it has (the call consumes it, whatever it comes to).
   */
  private takeLicense(tool: Tool, call: { tool: string; args: Record<string, unknown> }): boolean {
    const key = confirmationKey(call, tool);
    const left = this.licenses.get(key) ?? 0;
    if (left === 0) return false;
    this.licenses.set(key, left - 1);
    return true;
  }

  /** The confirmation key of the call a confirmation tool asks about (its `tool` and `args` arguments). */
  private askedAbout(args: Record<string, unknown>): string {
    const target = typeof args.tool === 'string' ? args.tool : '';
    const targetArgs =
      args.args !== null && typeof args.args === 'object' && !Array.isArray(args.args)
        ? (args.args as Record<string, unknown>)
        : {};
    return confirmationKey({ tool: target, args: targetArgs }, this.tools.get(target));
  }

  /** Asks the scripted human to confirm a concrete call (`confirmations:`); a yes licenses one such call. */
  private confirm(args: Record<string, unknown>): boolean {
    return this.confirmed.has(this.askedAbout(args));
  }

  /** Records a yes to a concrete call: one later call with matching arguments may consume it. */
  private license(args: Record<string, unknown>): void {
    const key = this.askedAbout(args);
    this.licenses.set(key, (this.licenses.get(key) ?? 0) + 1);
  }

  /**
   * Executes a batch as issued at once: every precondition is checked against
   * the world before the batch, effects apply in call order, and the clock
   * advances by the slowest call (the batch's critical path).
   */
  executeBatch(req: BatchRequest): { events: CallEvent[]; replies: Reply[] } {
    const ctxBase = { inputs: this.scenario.inputs, deployment: this.scenario.deployment };
    // Every call is checked against the world before the batch (facts, and the rows its lookups read), before
    // any of them applies. A yes to a call is consumed by the first such call of the batch; one given in this
    // batch licenses none of it (its answer was not known yet).
    const issuedAs = req.calls.map((call) => {
      const tool = this.tools.get(call.tool);
      if (!tool) throw new Error(`internal: sandbox asked to run undeclared tool "${call.tool}"`);
      const pre = this.preconditionsOf(tool, call.args, this.world);
      if (tool.requires_confirmation)
        (this.takeLicense(tool, call) ? pre.held : pre.missing).push(confirmationFact(tool.name, call.args));
      return pre;
    });
    const t0 = this.clockMs;
    // A reconciler reports on calls of earlier batches only: none of its siblings' results was known yet.
    const ledgerBefore = this.ledger.length;
    // A read sees the tables as they stood before the batch, as a reconciler sees the calls before it.
    const read = req.calls.flatMap((c) => this.tools.get(c.tool)?.reads ?? []);
    const tablesBefore = read.length > 0 ? this.world.copyTables(read) : undefined;
    let slowest = 0;
    const events: CallEvent[] = [];
    const replies: Reply[] = [];
    req.calls.forEach((call, pos) => {
      const tool = this.tools.get(call.tool);
      if (!tool) throw new Error(`internal: sandbox asked to run undeclared tool "${call.tool}"`);
      const step = req.firstStep + pos;
      const cls = this.classes.get(tool.name) as ToolClass;
      const args = call.args;
      const { held, missing } = issuedAs[pos] as { held: string[]; missing: string[] };
      this.received.push({ tool: tool.name, args, class: cls, missing, batch_size: req.calls.length });
      const n = (this.callCounts.get(tool.name) ?? 0) + 1;
      this.callCounts.set(tool.name, n);
      const id = this.nextId();
      const fault = this.pickFault(tool, n);
      // A repeat of an idempotency key the tools already applied: the first reply again, nothing applied twice;
      // the same key with other arguments is refused, as payment APIs refuse it. A repeat of a call of a tool
      // declared idempotent is answered like the first too: the sandbox keeps the promise the declaration makes.
      const keyText = tool.idempotency_key !== undefined ? valueText(args[tool.idempotency_key]) : undefined;
      const keyId = keyText !== undefined ? `${tool.name}\u0000${keyText}` : undefined;
      const once = keyId !== undefined || (tool.idempotent === true && !tool.read_only);
      const identity = once ? callIdentity(call, tool) : undefined;
      const keyedFirst = keyId !== undefined ? this.keyed.get(keyId) : undefined;
      const conflict = keyedFirst !== undefined && keyedFirst.identity !== identity ? keyedFirst : undefined;
      const first =
        conflict !== undefined
          ? undefined
          : (keyedFirst ??
            (tool.idempotent === true && identity !== undefined ? this.idempotentDone.get(identity) : undefined));
      // What every call event of this call shares, served from a key or not.
      const common: CallHead = {
        step,
        turn: req.turn,
        batch: req.batch,
        pos,
        batch_size: req.calls.length,
        t_ms: t0,
        tool: tool.name,
        args,
        class: cls,
        read_only: tool.read_only,
        kind: tool.kind,
        preconditions: { held, missing },
        // Declared: what the call says it establishes before its reply is known (a result or id is unknown).
        establishes: declaredEstablishes(tool, { inputs: ctxBase.inputs, deployment: ctxBase.deployment, args }),
      };
      if (first || conflict) {
        slowest = Math.max(slowest, tool.latency_ms);
        const error = conflict
          ? `idempotency key ${JSON.stringify(keyText)} was already used at step ${conflict.step} with other arguments; nothing was applied`
          : null;
        this.ledger.push({ tool: tool.name, args, step, applied: first !== undefined });
        events.push(
          callEvent(common, {
            latency_ms: tool.latency_ms,
            status: first ? 'ok' : 'fault',
            http_status: first ? 200 : KEY_CONFLICT_STATUS,
            applied: false,
            ambiguous: false,
            result: first ? first.result : null,
            error,
            ...(first ? { deduplicated_of: first.step } : { key_conflict_of: conflict?.step as number }),
            effect_id: null,
            effects: [],
            compensation: null,
          }),
        );
        replies.push(first ? { status: 200, body: first.result } : { status: KEY_CONFLICT_STATUS, body: { error } });
        return;
      }
      const latency = fault?.latency_ms ?? tool.latency_ms;
      slowest = Math.max(slowest, latency);

      const tctx: TemplateContext = { inputs: ctxBase.inputs, deployment: ctxBase.deployment, args, id };
      const lookedUp = Object.keys(tool.lookups).length > 0;
      if (lookedUp) {
        // Read when the call runs, before its effects (a sibling earlier in the batch may have changed them).
        tctx.lookups = resolveLookups(tool, tctx, this.world);
        tctx.before = tctx.lookups;
      }
      const seqNames = this.sequences.get(tool.name);
      if (seqNames) tctx.seq = Object.fromEntries(seqNames.map((n) => [n, (this.seqs.get(n) ?? 0) + 1]));
      // The tool refuses a call it cannot serve, as a real API does: a definite failure, nothing applied.
      const refusal = this.refusal(tool, tctx);
      if (refusal) {
        this.ledger.push({ tool: tool.name, args, step, applied: false });
        events.push(
          callEvent(common, {
            latency_ms: tool.latency_ms,
            status: 'fault',
            http_status: refusal.status,
            applied: false,
            ambiguous: false,
            result: null,
            error: refusal.error,
            effect_id: null,
            effects: [],
            compensation: null,
          }),
        );
        replies.push({ status: refusal.status, body: { error: refusal.error } });
        return;
      }
      let result = renderValue(tool.returns ?? {}, tctx) as Record<string, unknown>;
      let approved: boolean | undefined;
      if (tool.kind === 'approval') {
        approved = this.ask(String(args.action ?? ''));
        result = Object.assign({}, result, { [APPROVED_FIELD]: approved });
      } else if (tool.kind === 'confirmation') {
        approved = this.confirm(args);
        result = Object.assign({}, result, { [APPROVED_FIELD]: approved });
      }
      if (tablesBefore && tool.reads.length > 0 && !fault) {
        const shown: Record<string, unknown> = {};
        for (const table of tool.reads) shown[table] = shownRows(tablesBefore[table] ?? [], args);
        result = Object.assign({}, result, shown);
      }
      let reconciled: CallEvent['reconciled'];
      if ((this.reconcileView.get(tool.name)?.reconciles.length ?? 0) > 0) {
        // A reconciler whose reply failed answered nothing.
        reconciled = fault ? null : this.reconcile(tool, args, ledgerBefore);
        // Which calls it reports on, and whether any of them applied.
        const reported = (reconciled?.calls ?? []).map((c) => ({ step: c.step, applied: c.applied }));
        result = Object.assign({}, result, {
          [APPLIED_FIELD]: reconciled?.applied ?? false,
          [REPORTED_FIELD]: reported,
        });
      }
      const applied = fault ? fault.applied : true;
      const effectsRun = applied && approved !== false && !this.opts.suppressEffects?.has(step);
      const fullCtx: TemplateContext = Object.assign({}, tctx, { result });
      const effects = effectsRun ? applyDeclaredEffects(tool, this.world, fullCtx) : [];
      // The compensation reads the rows as the call left them ({{NAME.x}}) and as they were ({{before.NAME.x}}).
      const compCtx =
        lookedUp && effectsRun ? { ...fullCtx, lookups: resolveLookups(tool, fullCtx, this.world) } : fullCtx;
      const compensation = effectsRun ? compensationOf(tool, cls, compCtx) : null;
      if (applied && approved !== false) {
        if (seqNames) for (const n of seqNames) this.seqs.set(n, (this.seqs.get(n) ?? 0) + 1);
        if (tool.kind === 'confirmation') this.license(args);
      }
      const status = fault ? fault.status : 200;
      const error = fault ? (fault.message ?? STATUS_TEXT[fault.status] ?? `HTTP ${fault.status}`) : null;
      this.ledger.push({ tool: tool.name, args, step, applied });
      if (keyId !== undefined && applied) this.keyed.set(keyId, { step, result, identity: identity as string });
      else if (identity !== undefined && applied && approved !== false)
        this.idempotentDone.set(identity, { step, result });
      events.push(
        callEvent(common, {
          latency_ms: latency,
          status: fault ? 'fault' : 'ok',
          http_status: status,
          applied,
          ambiguous: fault ? isAmbiguousFault(fault, tool, error as string) : false,
          result: fault ? null : result,
          error,
          approved,
          reconciled,
          effect_id: changedWorld({ effects }) ? `eff-${step}` : null,
          effects,
          compensation,
        }),
      );
      replies.push(fault ? { status, body: { error } } : { status: 200, body: result });
    });
    this.clockMs = t0 + slowest;
    return { events, replies };
  }

  /** Evaluates goal and forbidden facts against the world. */
  outcome(): { completed: boolean; goal: { held: string[]; missing: string[] }; forbidden_held: string[] } {
    // Rendered once per scenario (prepare): the goal reads inputs and deployment only.
    const held: string[] = [];
    const missing: string[] = [];
    for (const { fact, written, text } of this.goal)
      (this.world.holds(fact, { wildcardKeys: written }) ? held : missing).push(text);
    const forbidden_held: string[] = [];
    for (const { fact, written, text } of this.forbidden)
      if (this.world.holds(fact, { wildcardKeys: written })) forbidden_held.push(text);
    return { completed: missing.length === 0 && forbidden_held.length === 0, goal: { held, missing }, forbidden_held };
  }

  /** Why the tool refuses this call (a looked-up row is missing, a validation fails, a derived value has no number), or undefined. */
  private refusal(tool: Tool, ctx: TemplateContext): { status: number; error: string } | undefined {
    for (const [name, row] of Object.entries(ctx.lookups ?? {}))
      if (row === undefined)
        return { status: NO_ROW_STATUS, error: `no such row: ${name} (${tool.lookups[name]?.table})` };
    if (tool.validate.length > 0) {
      const why = validationFailure(tool, ctx);
      if (why !== undefined) return { status: INVALID_STATUS, error: why };
    }
    const loop = tool.effects.some((e) => e.for_each) ? forEachFailure(tool, ctx) : undefined;
    if (loop !== undefined) return { status: INVALID_STATUS, error: loop };
    const derived = this.derived.has(tool.name) ? derivedValueFailure(tool, ctx) : undefined;
    return derived === undefined ? undefined : { status: INVALID_STATUS, error: derived };
  }

  private nextId(): string {
    let s = '';
    for (let i = 0; i < 10; i++) s += '0123456789abcdefghijklmnopqrstuvwxyz'[this.idRng.int(36)];
    return s;
  }

  private pickFault(tool: Tool, n: number): Fault | undefined {
    let chosen: Fault | undefined;
    for (const f of tool.faults) {
      // Every probability fault draws on every call, hit or not, so one tool's
      // faults never shift the draws of another.
      const hit = f.on_call !== undefined ? f.on_call === n : this.faultRng.next() < (f.probability ?? 0);
      if (hit && !chosen) chosen = f;
    }
    return chosen;
  }

  private ask(action: string): boolean {
    const asks = (this.approvalAsks.get(action) ?? 0) + 1;
    this.approvalAsks.set(action, asks);
    const rule = this.approvals.get(action);
    if (rule === undefined || rule === 'deny') return false;
    if (rule === 'approve') return true;
    return asks > rule.approve_after;
  }

  /** The calls a reconciler reports on (harness/domain/rules/reconcile.ts): every match among calls of batches before this one. */
  private reconcile(tool: Tool, args: Record<string, unknown>, before: number): CallEvent['reconciled'] {
    const earlier = this.ledger.slice(0, before);
    const hits = reconciledIndices(this.reconcileView.get(tool.name) as ReconcileTool, args, earlier, (n) =>
      this.reconcileView.get(n),
    );
    if (hits.length === 0) return null;
    const calls = hits.map((i) => {
      const e = earlier[i] as LedgerEntry;
      return { tool: e.tool, step: e.step, applied: e.applied };
    });
    const last = calls[calls.length - 1] as { tool: string; step: number; applied: boolean };
    return { tool: last.tool, step: last.step, applied: calls.some((c) => c.applied), calls };
  }
}

/** The scenario's initial world with inputs and deployment rendered into facts and rows. */
function initialWorld(scenario: Scenario): WorldSnapshot {
  const ctx = { inputs: scenario.inputs, deployment: scenario.deployment };
  const tables: Record<string, Row[]> = {};
  for (const [name, rows] of Object.entries(scenario.world.tables))
    tables[name] = rows.map((r) => renderValue(r, ctx) as Row);
  return { facts: scenario.world.facts.map((f) => formatFact(renderFact(f, ctx, 'empty'))), tables };
}
