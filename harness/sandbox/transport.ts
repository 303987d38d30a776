/**
 * How a batch of calls reaches a run's sandbox.
 *
 * - `msw`: each call is a real HTTP request (global fetch) to the run's own
 *   host, intercepted by the seal. Requests of one batch wait for each other
 *   and run in call order, so records are deterministic however the requests
 *   interleave.
 * - `inprocess`: the same dispatch, called directly: ~500x cheaper, for
 *   fuzzing and benchmarks. A test shows both give identical records.
 */
import { randomUUID } from 'node:crypto';
import type { CallEvent } from '../record/events.ts';
import { hash32 } from '../util/rng.ts';
import type { BatchRequest, Reply, Sandbox } from './sandbox.ts';
import { seal, type Escape } from './seal.ts';

export type TransportName = 'msw' | 'inprocess';

export interface BatchOutcome {
  events: CallEvent[];
  replies: Reply[];
}

export interface Transport {
  readonly name: TransportName;
  /** The run's own host (msw only). */
  readonly host?: string;
  executeBatch(req: BatchRequest): Promise<BatchOutcome>;
  close(): void;
}

/** JSON round trip: what a planner's arguments look like after crossing a wire. */
export function wire<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

export function inProcessTransport(sandbox: Sandbox): Transport {
  return {
    name: 'inprocess',
    async executeBatch(req) {
      const out = sandbox.executeBatch({ ...req, calls: req.calls.map((c) => ({ tool: c.tool, args: wire(c.args) })) });
      return { events: out.events, replies: out.replies.map(wire) };
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
  fail: (e: unknown) => void;
}

let hostCounter = 0;

export function mswTransport(sandbox: Sandbox, runId: string, onEscape: (e: Escape) => void): Transport {
  // A host per run: the seal finds the run by host in O(1). `.invalid` never resolves (RFC 2606),
  // so even a broken seal could not reach a real server.
  const host = `r${hash32(runId).toString(36)}-${(hostCounter++).toString(36)}.oneway.invalid`;
  const token = randomUUID();
  const pending = new Map<number, PendingBatch>();

  const reject = (status: number, error: string) =>
    new Response(JSON.stringify({ error }), { status, headers: { 'content-type': 'application/json' } });

  const stop = seal.serve(host, async (request) => {
    const url = new URL(request.url);
    const tool = decodeURIComponent(url.pathname.replace(/^\/tools\//, ''));
    // Only the harness, holding the run's token, may call tools; planner code calling them directly would bypass the record.
    if (request.headers.get('x-oneway-token') !== token) {
      onEscape({ method: request.method, url: `${url.protocol}//${url.host}${url.pathname}`, reason: 'tool called outside the harness' });
      return reject(403, 'oneway: tools are called through planner decisions, not directly');
    }
    const batch = Number(request.headers.get('x-oneway-batch'));
    const pos = Number(request.headers.get('x-oneway-pos'));
    const p = pending.get(batch);
    if (!p || !sandbox.hasTool(tool) || !(pos >= 0 && pos < p.arrived.length) || p.arrived[pos]) {
      return reject(400, `oneway: unexpected request for tool "${tool}"`);
    }
    const body = (await request.json()) as { args: Record<string, unknown> };
    const reply = new Promise<Reply>((resolve) => (p.answers[pos] = resolve));
    p.arrived[pos] = { tool, args: body.args };
    if (++p.count === p.arrived.length) {
      try {
        const out = sandbox.executeBatch({ ...p.req, calls: p.arrived as { tool: string; args: Record<string, unknown> }[] });
        p.events = out.events;
        out.replies.forEach((r, i) => p.answers[i]?.(r));
      } catch (e) {
        // Answer every waiting request so no fetch hangs; the batch then fails with the cause.
        p.fail(e);
        p.answers.forEach((a) => a?.({ status: 500, body: { error: 'oneway: internal sandbox error' } }));
      }
    }
    const r = await reply;
    return new Response(JSON.stringify(r.body), { status: r.status, headers: { 'content-type': 'application/json' } });
  });

  return {
    name: 'msw',
    host,
    async executeBatch(req) {
      let failure: unknown;
      const p: PendingBatch = {
        req,
        arrived: new Array(req.calls.length).fill(undefined),
        count: 0,
        answers: [],
        fail: (e) => (failure = e),
      };
      pending.set(req.batch, p);
      try {
        const responses = await Promise.all(
          req.calls.map(async (call, pos) => {
            const res = await fetch(`http://${host}/tools/${encodeURIComponent(call.tool)}`, {
              method: 'POST',
              headers: {
                'content-type': 'application/json',
                'x-oneway-token': token,
                'x-oneway-batch': String(req.batch),
                'x-oneway-pos': String(pos),
              },
              body: JSON.stringify({ args: call.args }),
            });
            return { status: res.status, body: (await res.json()) as unknown };
          }),
        );
        if (failure) throw failure;
        if (!p.events) throw new Error('internal: batch answered without events');
        return { events: p.events, replies: responses };
      } finally {
        pending.delete(req.batch);
      }
    },
    close: stop,
  };
}
