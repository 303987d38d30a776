/**
 * `oneway guard`: an MCP proxy between an agent's MCP client and one real MCP
 * server that enforces the tools' declarations with the guard's one decision
 * (engine/guard/decide.ts, the function `eval --guard` uses) and journals
 * every effect for `oneway recover`.
 *
 * A tool call, in order:
 * 1. its tool's declared `idempotency_key`, when the client left it out, is
 *    filled with a key derived from the call (domain/rules/applied.ts, as
 *    `eval --guard` fills it);
 * 2. its arguments are checked against the declared JSON Schema: a call that
 *    violates it is rejected (journaled as `rejected`), never forwarded;
 * 3. the guard describes it from what it knows (known.ts: its class, the
 *    preconditions missing in the observed facts, the open ambiguous failure it
 *    would repeat) and from the session: the other calls of the session made
 *    with it or still in flight. A call whose rule looks at those (`gated`,
 *    `approval`) waits `batchWindowMs` before it is decided, so that
 *    calls a client sends together are seen together, as one batch is in
 *    evaluation;
 * 4. `decide` (in flight, retry, duplicate, preconditions, approval last); an
 *    approval is asked of whom the policy names (approve.ts: `--approve-cmd`,
 *    or the client's user) and the call decided again with the answer;
 * 5. refused: journaled as a `blocked` call, answered with a tool error naming
 *    the reason and what is missing, never forwarded. Passed: an intent is
 *    journaled, the call forwarded, and its outcome journaled (with the effects
 *    its declaration gives the reply and its concrete compensation) before the
 *    reply goes back, with who let it through (`approved_by`). A failure after
 *    forwarding is ambiguous unless known definite (domain/rules/failures.ts:
 *    a real server's tool error carries no status), and the same call is then
 *    refused, whatever its key (but the failed call's own, for a tool declared
 *    `key_survives_failure`), until a reconciling call answered.
 *
 * Nothing a client or server does ends the guard: every failure is an answer
 * to the client and an entry in the journal.
 */
import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  GetPromptResultSchema,
  ListPromptsRequestSchema,
  ListPromptsResultSchema,
  ListResourcesRequestSchema,
  ListResourcesResultSchema,
  ListResourceTemplatesRequestSchema,
  ListResourceTemplatesResultSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  ReadResourceResultSchema,
  type CallToolResult,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import type { ApprovedBy, CallEvent, IntentEvent, ObservedVerdict, RunStartEvent } from '../../core/record.ts';
import { blockedOutcome, RECORD_SCHEMA_VERSION } from '../../core/record.ts';
import type { Scenario, ToolClass } from '../../core/scenario.ts';
import { checkArguments } from '../../domain/rules/arguments.ts';
import { effectiveClass } from '../../domain/rules/classes.ts';
import { isAmbiguousFailure, type Failure } from '../../domain/rules/failures.ts';
import { reconcilersByTarget, reportedTools } from '../../domain/rules/reconcile.ts';
import { decide, ruleFor, screensSiblings, type Decision, type Situation } from '../../engine/guard/decide.ts';
import type { Policy } from '../../engine/guard/policy.ts';
import { recordTools } from '../../engine/runner/run.ts';
import { packageVersion } from '../../util/package-root.ts';
import { askApproval, type ApprovalAnswer } from './approve.ts';
import type { Journal } from './journal.ts';
import { KnownWorld } from './known.ts';
import { guardedTools, type GuardedList } from './listed.ts';
import type { Upstream } from './upstream.ts';

export interface GuardOptions {
  scenario: Scenario;
  policy: Policy;
  upstream: Upstream;
  journal: Journal;
  /** `--approve-cmd`: asked when the client cannot be. */
  approveCmd?: string | undefined;
  approvalTimeoutMs: number;
  /** How long a forwarded call may take before it is an ambiguous failure. */
  callTimeoutMs: number;
  /** How long a gated call waits for calls sent with it before it is decided (0: not at all). */
  batchWindowMs: number;
  /** Where the guard's own diagnostics go (stderr). */
  log(message: string): void;
  /** `--observe`: forward every call, and journal what the policy would have decided (`would`) instead of enforcing it. */
  observe?: boolean | undefined;
}

/** The default wait for calls sent together with a gated one (as `oneway serve --batch-window`). */
export const DEFAULT_BATCH_WINDOW_MS = 20;

/**
 * The journal's first event: the declarations as a run record holds them, the facts known at the
 * start, the policy and the server.
 */
export function journalStart(
  opts: {
    scenario: Scenario;
    toolsFile: string;
    facts: readonly string[];
    policy: Policy;
    upstream: string;
    observe?: boolean | undefined;
  },
  now = new Date(),
): RunStartEvent {
  const { scenario } = opts;
  const classes = new Map<string, ToolClass>(
    scenario.tools.map((t) => [t.name, effectiveClass(t, scenario.deployment)]),
  );
  return {
    type: 'run_start',
    schema_version: RECORD_SCHEMA_VERSION,
    run_id: randomUUID(),
    scenario: scenario.id,
    scenario_file: opts.toolsFile,
    planner: 'oneway guard',
    trial: 1,
    seed: 0,
    deployment: scenario.deployment,
    max_steps: 0,
    guard: true,
    tools: recordTools(scenario, classes),
    initial_world: { facts: [...opts.facts].sort(), tables: {} },
    journal: {
      started_at: now.toISOString(),
      upstream: opts.upstream,
      policy: Object.fromEntries(Object.entries(opts.policy).filter(([, v]) => v !== undefined)) as Record<
        string,
        string
      >,
      ...(opts.observe ? { observe: true } : {}),
    },
  };
}

/** One client session: its MCP server. */
export interface GuardSession {
  readonly id: string;
  readonly server: Server;
  /** Whether none of its calls is pending (an idle HTTP session gives its place up when one is needed). */
  idle(): boolean;
}

interface SessionState {
  id: string;
  server: Server;
  /** The session's calls not answered yet: how many calls each was made with, and its batch. */
  pending: Set<{ alongside: number; batch: number }>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** What a refused or failed call answers: a tool error, with the guard's reading in `_meta`. */
function toolError(text: string, meta: Record<string, unknown>): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }], _meta: meta };
}

/** The reply as templates read it (`{{result.x}}`): structured content, else the JSON of a lone text, else the text. */
function replyValue(r: CallToolResult): unknown {
  if (r.structuredContent !== undefined) return r.structuredContent;
  const texts = r.content.flatMap((c) => (c.type === 'text' ? [c.text] : []));
  if (texts.length === 1) {
    try {
      return JSON.parse(texts[0] as string) as unknown;
    } catch {
      // not JSON: the text itself
    }
  }
  return { text: texts.join('\n') };
}

/** The most of a reply the journal keeps (its effects and compensation are rendered from all of it). */
export const MAX_JOURNALED_REPLY = 64 * 1024;

/** A reply as journaled: itself, or what was left out when it is over MAX_JOURNALED_REPLY bytes of JSON. */
function journaledResult(result: unknown): unknown {
  const bytes = Buffer.byteLength(JSON.stringify(result) ?? '');
  return bytes <= MAX_JOURNALED_REPLY
    ? result
    : { 'oneway/omitted': `a reply of ${bytes} bytes, over the ${MAX_JOURNALED_REPLY} bytes the journal keeps of one` };
}

const textOf = (r: CallToolResult): string =>
  r.content
    .flatMap((c) => (c.type === 'text' ? [c.text] : []))
    .join('\n')
    .slice(0, 2000);

/** A tool error's HTTP status, where the server gives one in `_meta` (as `oneway serve` does): a real server gives none. */
function httpStatusOf(r: CallToolResult): number | null {
  const s = r._meta?.['oneway/http_status'];
  return typeof s === 'number' && Number.isInteger(s) ? s : null;
}

/** What an observing guard journals of a decision (`CallEvent.would`): undefined when the call would have passed. */
function observed(d: Decision): ObservedVerdict | undefined {
  if ('ask' in d) return { decision: 'ask' };
  return d.pass ? undefined : { decision: 'refuse', reason: d.reason, missing: [...d.missing] };
}

export class GuardProxy {
  readonly known: KnownWorld;
  private list: GuardedList | undefined;
  /** Calls not yet journaled to the end: what `settle` waits for. */
  private readonly inFlight = new Set<Promise<CallToolResult>>();
  private readonly reconcilers: Map<string, string[]>;

  constructor(private readonly opts: GuardOptions) {
    this.known = new KnownWorld(
      opts.scenario,
      opts.journal.start.initial_world?.facts ?? [],
      opts.journal.start.run_id,
    );
    this.known.replay(opts.journal.before);
    this.reconcilers = reconcilersByTarget(
      opts.scenario.tools.map((t) => ({ name: t.name, reconciles: reportedTools(t, opts.scenario.tools) })),
    );
  }

  /** Connects to the server and reads its tools; says on the log which tools the file and the server disagree on. */
  async start(): Promise<void> {
    await this.opts.upstream.connect();
    const list = await this.listTools();
    const { undeclared, unlisted } = list;
    if (undeclared.length > 0)
      this.opts.log(
        `the server lists ${undeclared.length} tool(s) the file does not declare (${ruleFor(null, this.opts.policy) === 'block' ? 'refused' : `policy: ${ruleFor(null, this.opts.policy)}`}): ${undeclared.join(', ')}`,
      );
    if (unlisted.length > 0)
      this.opts.log(`the file declares ${unlisted.length} tool(s) the server does not list: ${unlisted.join(', ')}`);
  }

  /** The server's tools, decorated (listed.ts). */
  async listTools(): Promise<GuardedList> {
    this.list = guardedTools(await this.opts.upstream.listTools(), this.known, this.opts.policy);
    return this.list;
  }

  /** What the guard serves: tools always; the server's resources and prompts passed through when it has them. */
  capabilities(): ServerCapabilities {
    const up = this.opts.upstream.info?.capabilities ?? {};
    return {
      tools: {},
      ...(up.resources ? { resources: {} } : {}),
      ...(up.prompts ? { prompts: {} } : {}),
    };
  }

  /** A new client session: an MCP server to connect to the client's transport. */
  session(): GuardSession {
    const up = this.opts.upstream.info;
    const instructions = [
      up?.instructions,
      'Calls go through oneway guard: each tool declares its class in _meta["oneway/class"] and what the guard does with it in _meta["oneway/policy"]. A refused call is a tool error naming the reason and what is missing.',
    ]
      .filter(Boolean)
      .join('\n\n');
    const server = new Server(
      { name: 'oneway-guard', version: packageVersion() },
      { capabilities: this.capabilities(), instructions },
    );
    const state: SessionState = { id: randomUUID().slice(0, 8), server, pending: new Set() };
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: (await this.listTools()).tools }));
    server.setRequestHandler(CallToolRequestSchema, (req, extra) => {
      const args = (req.params.arguments ?? {}) as Record<string, unknown>;
      const done = this.call(state, req.params.name, args, extra.requestId);
      this.inFlight.add(done);
      void done.finally(() => this.inFlight.delete(done));
      return done;
    });
    const pass = async <T>(method: string, params: unknown, schema: Parameters<typeof this.forwardRequest<T>>[2]) =>
      this.forwardRequest<T>(method, params, schema);
    if (up?.capabilities.resources) {
      server.setRequestHandler(ListResourcesRequestSchema, (r) =>
        pass('resources/list', r.params, ListResourcesResultSchema),
      );
      server.setRequestHandler(ListResourceTemplatesRequestSchema, (r) =>
        pass('resources/templates/list', r.params, ListResourceTemplatesResultSchema),
      );
      server.setRequestHandler(ReadResourceRequestSchema, (r) =>
        pass('resources/read', r.params, ReadResourceResultSchema),
      );
    }
    if (up?.capabilities.prompts) {
      server.setRequestHandler(ListPromptsRequestSchema, (r) =>
        pass('prompts/list', r.params, ListPromptsResultSchema),
      );
      server.setRequestHandler(GetPromptRequestSchema, (r) => pass('prompts/get', r.params, GetPromptResultSchema));
    }
    return { id: state.id, server, idle: () => state.pending.size === 0 };
  }

  /** Waits until every call taken so far is answered and journaled (before the guard exits). */
  async settle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** A read-only request passed through to the server as it is (resources, prompts): not a tool call, not journaled. */
  private async forwardRequest<T>(method: string, params: unknown, schema: { parse(x: unknown): T }): Promise<T> {
    const client = await this.opts.upstream.connect();
    return (await client.request({ method, params } as never, schema as never, {
      timeout: this.opts.callTimeoutMs,
    })) as T;
  }

  /** The declared name of a tool the client calls by the server's name. */
  private declaredName(name: string): string {
    return this.list?.renamed.get(name) ?? name;
  }

  /**
   * One tool call of a session (see the module comment). Never throws: every outcome is an answer.
   * Nothing passes without a journal: once it cannot be written, every call is refused.
   */
  async call(
    s: SessionState,
    name: string,
    given: Record<string, unknown>,
    requestId?: string | number,
  ): Promise<CallToolResult> {
    const broken = this.opts.journal.broken;
    if (broken)
      return toolError(`refused by oneway guard: ${broken}\nNothing was sent to the server.`, {
        'oneway/status': 'blocked',
        'oneway/reason': broken,
      });
    try {
      return await this.decideAndForward(s, name, given, requestId);
    } catch (e) {
      // A journal that cannot be written before the call is sent: it is not sent (forward journals
      // an outcome it cannot write without throwing: that call was sent, and its reply goes back).
      const message = (e as Error).message;
      this.opts.log(message);
      return toolError(`refused by oneway guard: ${message}\nNothing was sent to the server.`, {
        'oneway/status': 'blocked',
        'oneway/reason': message,
      });
    }
  }

  private async decideAndForward(
    s: SessionState,
    name: string,
    given: Record<string, unknown>,
    requestId: string | number | undefined,
  ): Promise<CallToolResult> {
    const { journal, policy } = this.opts;
    const declared = this.declaredName(name);
    const tool = this.known.declared(declared);
    const { args } = this.known.withKey({ tool: declared, args: given });
    if (tool) {
      const v = checkArguments(tool.parameters, args);
      if (!v.ok) {
        const reason = `invalid arguments for ${name}: ${v.text}`;
        const last = journal.lastStep;
        journal.write({ type: 'rejected', turn: last, batch: last, tool: name, args, reason, session: s.id });
        return toolError(`refused by oneway guard: ${reason}`, {
          'oneway/status': 'rejected',
          'oneway/reason': reason,
        });
      }
    }

    // Every call of the session pending now is made with this one, and this one with them.
    const arrived = Date.now();
    const me = { alongside: s.pending.size, batch: 0 };
    const oldest = s.pending.values().next().value;
    for (const p of s.pending) p.alongside++;
    s.pending.add(me);
    try {
      const step = journal.nextStep();
      // A call made while others of its session are pending is journaled in their batch, as the calls
      // of one decision are in evaluation (so the journal's batches are what the scores read).
      me.batch = oldest?.batch ?? step;
      const t_ms = journal.now();
      const call = { tool: declared, args };
      const a = this.known.assess(call, s.id);
      const open = [...this.known.openFailures()];
      const situation = (approval?: ApprovalAnswer): Situation => ({
        tool: name,
        class: a.class,
        missing: a.missing,
        alongside: me.alongside,
        scope: 'session',
        retried: () => this.known.retried(call, open),
        duplicated: () => this.known.duplicated(call),
        ...(approval ? { approval } : {}),
      });
      // Company is checked before anything else, so a rule that looks at it decides only once the
      // calls sent with this one have arrived.
      if (screensSiblings(ruleFor(a.class, policy)) && this.opts.batchWindowMs > 0)
        await sleep(this.opts.batchWindowMs);
      let d: Decision = decide(situation(), policy);
      // Observing: what the policy decided is journaled with the call, which is forwarded all the same
      // (nobody is asked, and nobody is journaled as having let it through).
      const { observe } = this.opts;
      const would = observe ? observed(d) : undefined;
      let approvedBy: ApprovedBy | undefined = observe ? undefined : 'policy';
      if ('ask' in d && !observe) {
        const answer = await askApproval(
          {
            tool: name,
            arguments: args,
            class: a.class,
            preconditions: { held: a.held, missing: a.missing },
            session: s.id,
            step,
            journal: journal.path,
            ...(d.repeats !== undefined ? { repeats: d.repeats } : {}),
          },
          {
            elicit: s.server.getClientCapabilities()?.elicitation?.form
              ? async (message, timeout) =>
                  (
                    await s.server.elicitInput(
                      { mode: 'form', message, requestedSchema: { type: 'object', properties: {} } },
                      // Sent as part of the tool call's answer (over HTTP, on its stream).
                      { timeout, ...(requestId !== undefined ? { relatedRequestId: requestId } : {}) },
                    )
                  ).action
              : undefined,
            command: this.opts.approveCmd,
            approver: policy.approver,
            timeoutMs: this.opts.approvalTimeoutMs,
            log: (text) => this.opts.log(text.trimEnd()),
          },
        );
        d = decide(situation(answer), policy);
        if (answer.who) approvedBy = answer.who;
      }
      const head = {
        step,
        turn: step,
        batch: me.batch,
        pos: 0,
        batch_size: 1,
        t_ms,
        tool: declared,
        args,
        // An undeclared tool's class is unknown: journaled as the worst it could be.
        class: a.class ?? 'irreversible',
        read_only: tool?.read_only ?? false,
        kind: tool?.kind ?? 'action',
        preconditions: { held: a.held, missing: a.missing },
        establishes: a.establishes,
      } as const;
      if (!observe && ('ask' in d || !d.pass)) {
        const refusal = 'ask' in d ? { reason: `approval for ${name} was not answered`, missing: [] } : d;
        // A refusal is answered no sooner than the batch window after the call came: a client sends
        // its next call only after every answer of its batch, so a call arriving meanwhile was sent
        // with this one, and this one counts as made with it (as a blocked call counts in its batch).
        const held = arrived + this.opts.batchWindowMs - Date.now();
        if (held > 0) await sleep(held);
        this.journalOutcome({
          ...head,
          latency_ms: 0,
          ...blockedOutcome(refusal.reason),
          session: s.id,
        });
        const failedAt = refusal.reason.startsWith('unreconciled retry')
          ? this.known.retried(call, open)?.step
          : undefined;
        const needs = this.needs(
          declared,
          refusal,
          failedAt === undefined ? undefined : this.known.unreadReport(failedAt),
        );
        return toolError(
          `refused by oneway guard: ${refusal.reason}${needs ? `\nwhat is missing: ${needs}` : ''}\nNothing was sent to the server.`,
          {
            'oneway/status': 'blocked',
            'oneway/step': step,
            'oneway/reason': refusal.reason,
            'oneway/missing': refusal.missing,
          },
        );
      }
      return await this.forward(s.id, head, name, { would, approvedBy });
    } finally {
      s.pending.delete(me);
    }
  }

  /**
   * A call an operator makes (`oneway recover --apply`): journaled as every call is (intent, outcome,
   * effects), forwarded without the guard's decision, since the operator's authority is the approval.
   */
  async operatorCall(
    tool: string,
    args: Record<string, unknown>,
    session: string,
  ): Promise<{ ok: boolean; step: number; error?: string }> {
    const list = this.list ?? (await this.listTools());
    const serverName = [...list.renamed].find(([, declared]) => declared === tool)?.[0] ?? tool;
    const { journal } = this.opts;
    const step = journal.nextStep();
    const a = this.known.assess({ tool, args }, session);
    const decl = this.known.declared(tool);
    // A journal that cannot be written refuses this call too: nothing is sent unjournaled.
    const result = await this.forward(
      session,
      {
        step,
        turn: step,
        batch: step,
        pos: 0,
        batch_size: 1,
        t_ms: journal.now(),
        tool,
        args,
        class: a.class ?? 'irreversible',
        read_only: decl?.read_only ?? false,
        kind: decl?.kind ?? 'action',
        preconditions: { held: a.held, missing: a.missing },
        establishes: a.establishes,
      },
      serverName,
      // The operator's authority is the approval: the journal says so.
      { approvedBy: 'operator' },
    ).catch((e: Error) => toolError(`not sent: ${e.message}`, { 'oneway/status': 'blocked' }));
    return result.isError ? { ok: false, step, error: textOf(result) } : { ok: true, step };
  }

  /** What a refused call lacks, in words: its missing facts, or what would make it pass. */
  private needs(tool: string, refusal: { reason: string; missing: string[] }, unread?: string): string {
    if (refusal.missing.length > 0) return refusal.missing.join(', ');
    if (refusal.reason.startsWith('unreconciled retry')) {
      const by = this.reconcilers.get(tool) ?? [];
      const wanted =
        by.length > 0
          ? `a reply from ${by.join(' or ')} about the failed call`
          : 'a reconciliation: no declared tool reports on it, so a human must check whether the failed call took effect';
      return unread ? `${wanted} that can be read (${unread})` : wanted;
    }
    if (refusal.reason.includes('must be alone'))
      return 'the other calls of this session to have returned: call it alone';
    if (refusal.reason.startsWith('approval')) return 'an approval';
    if (refusal.reason.startsWith('duplicate')) return 'an approval to do it a second time';
    return '';
  }

  /**
   * Journals the outcome of a call the server has had: should the journal fail now, the call
   * happened all the same, so its reply still goes back (the guard refuses every call after it,
   * and the intent it left is an uncertain item for recover).
   */
  private journalAfter(outcome: Omit<CallEvent, 'type'>): void {
    try {
      this.journalOutcome(outcome);
    } catch (e) {
      this.opts.log(
        `${(e as Error).message}; step ${outcome.step} (${outcome.tool}) reached the server and is not journaled`,
      );
    }
  }

  private journalOutcome(outcome: Omit<CallEvent, 'type'>): void {
    // The session and who let it through last, after the fields every record has.
    const { session, approved_by, ...rest } = outcome;
    const e: CallEvent = {
      type: 'call',
      ...rest,
      ...(session !== undefined ? { session } : {}),
      ...(approved_by !== undefined ? { approved_by } : {}),
    };
    this.opts.journal.write(e);
    this.known.record(e);
  }

  /** Forwards a call that passed: intent, the call, its outcome journaled, then the answer. */
  private async forward(
    session: string,
    head: Omit<IntentEvent, 'type' | 'session'>,
    name: string,
    { would, approvedBy }: { would?: ObservedVerdict; approvedBy?: ApprovedBy } = {},
  ): Promise<CallToolResult> {
    const { journal, upstream } = this.opts;
    const base = {
      ...head,
      latency_ms: 0,
      ...(would ? { would } : {}),
      session,
      ...(approvedBy ? { approved_by: approvedBy } : {}),
    };
    let client;
    try {
      client = await upstream.connect();
    } catch (e) {
      const error = `not sent: ${(e as Error).message}`;
      this.journalOutcome({
        ...base,
        status: 'fault',
        http_status: null,
        applied: false,
        ambiguous: false,
        result: null,
        error,
        effect_id: null,
        effects: [],
        compensation: null,
      });
      return toolError(`oneway guard could not reach the server: ${(e as Error).message}\nNothing was sent to it.`, {
        'oneway/status': 'error',
        'oneway/step': head.step,
      });
    }
    // An intent for every call that may take effect: a read-only call lost mid-way changed nothing.
    if (!head.read_only) journal.write({ type: 'intent', ...head, session });
    const reachedBefore = this.known.reachedSoFar();
    const started = Date.now();
    const fwd = await upstream.call(client, name, head.args, this.opts.callTimeoutMs);
    const latency_ms = Date.now() - started;
    const meta = { 'oneway/step': head.step };
    if (fwd.ok && !fwd.result.isError) {
      const result = replyValue(fwd.result);
      const seen = this.known.observe(session, head.tool, head.args, result, head.class, head.step, reachedBefore);
      this.journalAfter({
        ...base,
        latency_ms,
        status: 'ok',
        http_status: null,
        applied: true,
        ambiguous: false,
        result: journaledResult(result),
        error: null,
        ...(seen.approved !== undefined ? { approved: seen.approved } : {}),
        ...(seen.reconciled !== undefined ? { reconciled: seen.reconciled } : {}),
        effect_id: seen.effect_id,
        effects: seen.effects,
        compensation: seen.compensation,
      });
      return { ...fwd.result, _meta: { ...fwd.result._meta, ...meta, 'oneway/status': 'ok' } };
    }
    const http = fwd.ok ? httpStatusOf(fwd.result) : null;
    const failure: Failure = fwd.ok
      ? { kind: 'reply', http_status: http, text: textOf(fwd.result) || 'the tool reported an error' }
      : fwd.failure;
    // Unknown means ambiguous: only a failure known to be definite lets a repeat through (failures.ts).
    const ambiguous = isAmbiguousFailure(failure, this.known.declared(head.tool)?.definite_failures);
    const error = failure.text;
    this.journalAfter({
      ...base,
      latency_ms,
      status: 'fault',
      http_status: http,
      applied: false,
      ambiguous,
      result: null,
      error,
      effect_id: null,
      effects: [],
      compensation: null,
    });
    const status = { ...meta, 'oneway/status': 'error', 'oneway/ambiguous': ambiguous };
    // The server's own tool error goes back as it is; a failure of the exchange is said in the guard's words.
    if (fwd.ok) return { ...fwd.result, _meta: { ...fwd.result._meta, ...status } };
    const by = this.reconcilers.get(head.tool) ?? [];
    return toolError(
      `${name} failed: ${error}.${
        ambiguous
          ? ` It may have taken effect: oneway guard refuses the same call until ${by.length > 0 ? by.join(' or ') : 'a reconciling call'} has answered.`
          : ''
      }`,
      status,
    );
  }
}
