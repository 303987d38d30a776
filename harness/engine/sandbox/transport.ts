/**
 * How a batch of calls reaches a run's sandbox.
 *
 * - `msw`: each call is a real HTTP request (global fetch) to the run's own
 *   host, intercepted by the seal. Requests of one batch wait for each other
 *   and run in call order, so records are deterministic however the requests
 *   interleave.
 * - `inprocess`: the same dispatch, called directly: ~65x cheaper per call (docs/benchmark.md), for
 *   fuzzing and benchmarks. A test shows both give identical records.
 */
import { randomUUID } from 'node:crypto';
import type { CallEvent } from '../../core/record.ts';
import { OnewayError } from '../../core/errors.ts';
import { plainJsonCopy, stableJson } from '../../util/json.ts';
import { hash32 } from '../../util/rng.ts';
import type { BatchRequest, Reply, Sandbox } from './sandbox.ts';
import { seal, type Escape } from './seal.ts';

export type TransportName = 'msw' | 'inprocess';

interface BatchOutcome {
  events: CallEvent[];
  replies: Reply[];
}

export interface Transport {
  readonly name: TransportName;
  /** The run's own host (msw only). */
  readonly host?: string;
  executeBatch(req: BatchRequest): Promise<BatchOutcome>;
  /** The same, answered at once, by a transport that never waits (in process): the runner awaits nothing then. */
  executeBatchNow?(req: BatchRequest): BatchOutcome;
  close(): void;
}

/** JSON round trip: what a planner's arguments look like after crossing a wire (plain data copied without the text). */
export function wire<T>(value: T): T {
  return value === undefined ? value : (plainJsonCopy(value) ?? (JSON.parse(JSON.stringify(value)) as T));
}

/**
 * A batch's outcome in process: the replies as a client would parse them, copied when asked for (the
 * runner reads the events only). A class, not an object literal with a getter: on Node 20, V8 keeps
 * such literals, and what they reference, alive past young collections (npm run bench).
 */
class InProcessOutcome implements BatchOutcome {
  #replies: Reply[] | undefined;
  constructor(
    readonly events: CallEvent[],
    private readonly raw: Reply[],
  ) {}
  get replies(): Reply[] {
    return (this.#replies ??= this.raw.map(wire));
  }
}

export function inProcessTransport(sandbox: Sandbox): Transport {
  const executeBatchNow = (req: BatchRequest): BatchOutcome => {
    const out = sandbox.executeBatch({
      turn: req.turn,
      batch: req.batch,
      firstStep: req.firstStep,
      calls: req.calls.map((c) => ({ tool: c.tool, args: wire(c.args) })),
    });
    return new InProcessOutcome(out.events, out.replies);
  };
  return {
    name: 'inprocess',
    executeBatchNow,
    async executeBatch(req) {
      return executeBatchNow(req);
    },
    close() {},
  };
}

interface PendingBatch {
  req: BatchRequest;
  arrived: ({ tool: string; args: Record<string, unknown> } | undefined)[];
  count: number;
  answers: ((r: Reply) => void)[];
  events?: CallEvent[];
  /** Set when the batch cannot run (a tampered request): later arrivals are answered at once. */
  failed?: boolean;
  fail: (e: unknown) => void;
}

/** The one call a token admits: the runner's decision, bound to its batch and position. */
interface Ticket {
  batch: number;
  pos: number;
  tool: string;
  /** The arguments as they cross the wire, key order ignored. */
  args: string;
}

/**
 * A tool request that is not the call the runner decided (rewritten, replayed or forged by code
 * between the runner and the sandbox, e.g. a planner that wrapped `fetch`). Nothing of its batch
 * is applied; the run ends with `planner_error`.
 */
export class TamperError extends OnewayError {
  override name = 'TamperError';
  constructor(message: string) {
    super('tamper', message);
  }
}

let hostCounter = 0;

/**
 * What a run's MSW transport shares between its two sides: the harness sending each decided call
 * as a request with a single-use token (`sendBatch`), and the sandbox's handler admitting only
 * those requests, collecting a batch and running it once all of it arrived (`serveToolRequest`).
 */
interface Channel {
  host: string;
  sandbox: Sandbox;
  /** The batches in flight, by batch index. */
  pending: Map<number, PendingBatch>;
  /** One token per call the runner decided, single use: the sandbox serves exactly that call. */
  tickets: Map<string, Ticket>;
  onEscape: (e: Escape) => void;
}

export function mswTransport(sandbox: Sandbox, runId: string, onEscape: (e: Escape) => void): Transport {
  // A host per run: the seal finds the run by host in O(1). `.invalid` never resolves (RFC 2606),
  // so even a broken seal could not reach a real server.
  const host = `r${hash32(runId).toString(36)}-${(hostCounter++).toString(36)}.oneway.invalid`;
  const channel: Channel = { host, sandbox, pending: new Map(), tickets: new Map(), onEscape };
  const stop = seal.serve(host, (request) => serveToolRequest(channel, request));
  return { name: 'msw', host, executeBatch: (req) => sendBatch(channel, req), close: stop };
}

const refusal = (status: number, error: string) =>
  new Response(JSON.stringify({ error }), { status, headers: { 'content-type': 'application/json' } });

/** Fails a batch: nothing of it is applied, every request of it gets an answer, the run learns why. */
function spoil(p: PendingBatch, why: string): void {
  if (p.failed) return;
  p.failed = true;
  p.fail(new TamperError(why));
  p.answers.forEach((a) =>
    a?.({ status: 409, body: { error: 'oneway: this batch was refused (a request was altered)' } }),
  );
}

/**
 * The sandbox's side: a tool request is served only with a token the harness issued, for exactly
 * the call it was issued for (anything else is an escape, and a tampered request spoils its batch);
 * it is answered once its whole batch has arrived and run.
 */
async function serveToolRequest(ch: Channel, request: Request): Promise<Response> {
  const url = new URL(request.url);
  const where = `${url.protocol}//${url.host}${url.pathname}`;
  const tool = decodeURIComponent(url.pathname.replace(/^\/tools\//, ''));
  // Only the harness, holding a call's token, may call tools; planner code calling them directly would bypass the record.
  const token = request.headers.get('x-oneway-token') ?? '';
  const ticket = ch.tickets.get(token);
  if (!ticket) {
    ch.onEscape({
      method: request.method,
      url: where,
      reason: token ? 'tool request with a spent or unknown token' : 'tool called outside the harness',
    });
    return refusal(403, 'oneway: tools are called through planner decisions, not directly');
  }
  ch.tickets.delete(token);
  const p = ch.pending.get(ticket.batch);
  let body: { args?: unknown } | undefined;
  try {
    body = (await request.json()) as { args?: unknown };
  } catch {
    body = undefined;
  }
  const batch = Number(request.headers.get('x-oneway-batch'));
  const pos = Number(request.headers.get('x-oneway-pos'));
  const args = body !== null && typeof body === 'object' ? body.args : undefined;
  const altered = alterations(ticket, tool, batch, pos, args);
  if (altered.length > 0 || !p || p.failed) {
    const why =
      altered.length > 0
        ? `a tool request was altered on its way to the sandbox (${altered.join('; ')})`
        : 'a tool request arrived for a batch that is not running';
    ch.onEscape({
      method: request.method,
      url: where,
      reason: `tool request tampered with: ${altered.join('; ') || 'no such batch'}`,
    });
    if (p) spoil(p, why);
    return refusal(403, 'oneway: the sandbox serves only the call the runner decided');
  }
  if (!ch.sandbox.hasTool(tool) || p.arrived[pos]) return refusal(400, `oneway: unexpected request for tool "${tool}"`);
  const r = await arrive(ch.sandbox, p, pos, tool, args as Record<string, unknown>);
  return new Response(JSON.stringify(r.body), { status: r.status, headers: { 'content-type': 'application/json' } });
}

/** How a request differs from the call its ticket was issued for (none: it is that call). */
function alterations(ticket: Ticket, tool: string, batch: number, pos: number, args: unknown): string[] {
  const altered: string[] = [];
  if (tool !== ticket.tool) altered.push(`tool ${ticket.tool} became ${tool}`);
  if (batch !== ticket.batch || pos !== ticket.pos) altered.push('batch or position changed');
  if (args === null || typeof args !== 'object' || Array.isArray(args) || stableJson(args) !== ticket.args)
    altered.push('arguments changed');
  return altered;
}

/**
 * One call of a batch has arrived: its reply, once the batch has run. The last call to arrive runs
 * the batch in the sandbox, in call order, and answers every request of it.
 */
function arrive(
  sandbox: Sandbox,
  p: PendingBatch,
  pos: number,
  tool: string,
  args: Record<string, unknown>,
): Promise<Reply> {
  const reply = new Promise<Reply>((resolve) => (p.answers[pos] = resolve));
  p.arrived[pos] = { tool, args };
  if (++p.count === p.arrived.length) {
    try {
      const out = sandbox.executeBatch({
        turn: p.req.turn,
        batch: p.req.batch,
        firstStep: p.req.firstStep,
        calls: p.arrived as { tool: string; args: Record<string, unknown> }[],
      });
      p.events = out.events;
      out.replies.forEach((r, i) => p.answers[i]?.(r));
    } catch (e) {
      // Answer every waiting request so no fetch hangs; the batch then fails with the cause.
      p.fail(e);
      p.answers.forEach((a) => a?.({ status: 500, body: { error: 'oneway: internal sandbox error' } }));
    }
  }
  return reply;
}

/**
 * The harness's side: every call of the batch sent at once as a request with its own token; the
 * batch's events once all are answered, or why it failed (a request that never reached the sandbox,
 * or an answer the sandbox did not give).
 */
async function sendBatch(ch: Channel, req: BatchRequest): Promise<BatchOutcome> {
  let failure: unknown;
  const p: PendingBatch = {
    req,
    arrived: new Array(req.calls.length).fill(undefined),
    count: 0,
    answers: [],
    fail: (e) => (failure = e),
  };
  ch.pending.set(req.batch, p);
  const issued: string[] = [];
  try {
    const responses = await Promise.all(
      req.calls.map((call, pos) => {
        const token = randomUUID();
        issued.push(token);
        ch.tickets.set(token, { batch: req.batch, pos, tool: call.tool, args: stableJson(wire(call.args)) });
        return sendCall(ch.host, p, req.batch, pos, call, token);
      }),
    );
    if (failure) throw failure;
    // Answers that did not come from the sandbox (a wrapped fetch that made them up).
    if (!p.events)
      throw new TamperError('a tool reply did not come from the sandbox (the request was intercepted before it)');
    return { events: p.events, replies: responses };
  } finally {
    ch.pending.delete(req.batch);
    for (const t of issued) ch.tickets.delete(t);
  }
}

/** One call as an HTTP request to the run's host, with its token; its reply as the planner's client would read it. */
async function sendCall(
  host: string,
  p: PendingBatch,
  batch: number,
  pos: number,
  call: BatchRequest['calls'][number],
  token: string,
): Promise<Reply> {
  const res = await fetch(`http://${host}/tools/${encodeURIComponent(call.tool)}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-oneway-token': token,
      'x-oneway-batch': String(batch),
      'x-oneway-pos': String(pos),
    },
    body: JSON.stringify({ args: call.args }),
  }).catch((e: unknown) => {
    // The request never reached the sandbox: its siblings must not wait for it.
    if (!p.arrived[pos]) spoil(p, `a tool request did not reach the sandbox: ${(e as Error).message}`);
    throw e;
  });
  // An answer for a call the sandbox never received was made up on the way (a wrapped fetch).
  if (!p.arrived[pos]) spoil(p, 'a tool reply did not come from the sandbox (the request was intercepted before it)');
  return { status: res.status, body: (await res.json().catch(() => null)) as unknown };
}
